"""The `fanout` family's vocabulary: its marker, question kinds and the phrases its prompts are built
from, shared by the designs (which write them) and the policy (which recognises them)."""

from __future__ import annotations

import re

MARK = "[fanout]"
ITEM_ID = re.compile(r"\b[A-Z]-\d{2}\b")
KINDS = ("total", "max", "cheapest")
QUESTION_PHRASES = {"total": "total stock", "max": "highest price", "cheapest": "cheapest"}
INSTRUCTIONS = {"total": "answer with the total stock", "max": "answer with the highest price",
                "cheapest": "answer with the name of the cheapest product"}
SUBTASK = "Look up product {id} with get_item and report its record."

SYSTEM = ("[fanout] You answer questions about products in a store catalog. Product ids look like A-17. "
          "Read product records with the get_item tool; never guess a value.")
# The two instructions behind the agent's recoveries; any design may send them (the declared parallel sends CHECK).
RETRY = "If a lookup fails, check the id against the question and try again."
CHECK = "Before you answer, check your answer against the records."
AGENT_SYSTEM = (SYSTEM + " [fanout:agent] Call get_item for every product the question names (several calls "
                f"in one turn are fine). {RETRY} When you have every record, answer. {CHECK}")
ONE_ROUND = ("You get one round of tool calls: call get_item for every product at once, then answer from the "
             "results (there is no second round).")
QUESTIONS = {
    "total": "What is the total stock of these products: {ids}? Give the number of units.",
    "max": "What is the highest price among these products: {ids}? Give the price in dollars.",
    "cheapest": "Which of these products is the cheapest: {ids}? Give its name.",
}
HANDLERS = {"total": "Answer with the total stock (the sum of the stock of every product).",
            "max": "Answer with the highest price among the products.",
            "cheapest": "Answer with the name of the cheapest product."}
AGGREGATE = ("[fanout:aggregate] Question: {task}\n\nRecords:\n{input}\n\n"
             "Answer the question from these records only.")
