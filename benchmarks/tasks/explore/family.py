"""`explore`: a research trail through an archive. Where was the brig's lost cargo bound? Each note says, in the
archive's own words, which collection to search next and under which mark; some searches find a note that
leads nowhere, and a reader goes back. The next step is known only by reading the last note: drawn only when the
note names the collection as a field (`readable=true`). The mechanism is `benchmarks.tasks.trail`.
"""

from __future__ import annotations

from benchmarks.tasks.trail.family import TrailFamily
from benchmarks.tasks.trail.world import Place, TrailSpec

SPEC = TrailSpec(
    name="explore",
    mark="[archive]",
    places=(
        Place("port_registry", "the port registry",
              ("the harbour master's books", "the ledgers kept at the quay", "the record of ships in and out")),
        Place("customs_office", "the customs files",
              ("the excise men's papers", "the duty collector's drawers", "what the tariff clerks filed")),
        Place("parish_records", "the parish registers",
              ("the church's book of names", "the vicar's registers", "the baptism and burial rolls")),
        Place("newspaper_archive", "the newspaper archive",
              ("the old broadsheets", "the printed gazettes of the day", "the news on yellowed paper")),
        Place("shipping_insurer", "the insurer's policies",
              ("the underwriters' slips", "the marine policies at the coffee house", "what the risk-takers wrote")),
        Place("warehouse_ledger", "the warehouse ledger",
              ("the storekeeper's tallies", "the inventory of the bonded sheds", "the count kept at the dock store")),
        Place("merchant_letters", "the merchant's letters",
              ("the trader's correspondence", "the bundle from the counting-house", "what the merchant wrote home")),
        Place("court_rolls", "the court rolls",
              ("the magistrates' minutes", "the record of disputes heard", "the judge's docket")),
        Place("lighthouse_log", "the lighthouse log",
              ("the keeper's night book", "the lamp-watcher's entries", "the record kept on the headland")),
        Place("bank_accounts", "the bank's accounts",
              ("the money-lender's columns", "the tally of deposits", "the banker's daybook")),
    ),
    question="Where was the lost cargo of the brig Aurora bound? Start {start} Each note says where to look next; "
             "search one collection at a time with the mark a note gives.",
    notes=("An entry mentions the cargo in passing.", "A faded line refers to the brig.",
           "A clerk noted the shipment.", "Someone asked about the cargo here once.",
           "The page is torn, but the shipment is listed."),
    answers=("Riga", "Lisbon", "Bergen", "Danzig", "Cadiz", "Marseille", "Antwerp", "Genoa", "Hamburg", "Bordeaux"),
    answer_sentence="The last entry settles it: the cargo was bound for {answer}.",
    copies="the {nth} town's copy of",
)


class Explore(TrailFamily):
    name = "explore"
    description = "Follow a research trail through an archive; each note says, in prose, where to look next."
    spec = SPEC
