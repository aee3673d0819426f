"""`debug`: find the setting that broke a service. Each finding says, in an engineer's words, which tool to
consult next (the logs, the configuration, the traces...) and for which component; some lead nowhere, and the
engineer goes back. Which tool is informative next depends on what the last one said: drawn only when findings
name the tool as a field (`readable=true`). The mechanism is `benchmarks.tasks.trail`.
"""

from __future__ import annotations

from benchmarks.tasks.trail.family import TrailFamily
from benchmarks.tasks.trail.world import Place, TrailSpec

SPEC = TrailSpec(
    name="debug",
    mark="[outage]",
    places=(
        Place("read_log", "the service logs",
              ("the lines the server wrote as it ran", "the running commentary of the process",
               "what the daemon printed")),
        Place("show_config", "the configuration",
              ("the settings file", "the knobs someone set at deploy time", "the values the service starts with")),
        Place("run_test", "the test suite",
              ("the checks that run before a release", "the unit tests", "the automated assertions")),
        Place("inspect_metrics", "the metrics dashboard",
              ("the graphs of latency and load", "the counters scraped every minute", "the time series")),
        Place("trace_request", "the request traces",
              ("the spans one request left behind", "the path a single call took", "the distributed trace")),
        Place("list_deploys", "the deploy history",
              ("the record of releases", "who shipped what and when", "the rollout list")),
        Place("check_dns", "the name resolution",
              ("what the resolver answers", "the mapping from names to addresses", "the zone records")),
        Place("query_db", "the database",
              ("the rows the service stores", "the tables behind the service", "the persistent store")),
    ),
    question="The checkout service is failing: find the setting that broke it. Start {start} Each finding says "
             "where to look next; consult one tool at a time for the component a finding names.",
    notes=("The entries show errors around the time of the outage.", "Something changed shortly before the alerts.",
           "The numbers jump when the failures start.", "A warning repeats every few seconds.",
           "Nothing unusual at first, then a burst of failures."),
    answers=("pool.max_size", "cache.ttl", "retry.limit", "timeout.connect", "tls.min_version", "queue.depth",
             "dns.ttl", "rate.burst"),
    answer_sentence="This is the cause: the broken setting is {answer}.",
    copies="the {nth} region's copy of",
)


class Debug(TrailFamily):
    name = "debug"
    description = "Find the setting that broke a service; each finding says, in prose, which tool to consult next."
    spec = SPEC
