"""Names the command line needs before anything heavy is imported (so `wva --help` stays fast)."""

PATTERNS = ("single", "chain", "route", "orchestrate", "parallel", "evaluate_optimize", "agent")
DEFAULT_TASKS = ("pipeline", "support", "fanout", "multihop", "repair")

# The default model of `wva bench`, `run` and `sweep`: the simulator getting one decision in ten wrong.
# A perfect simulator (plain `sim`, error_rate 0) would show only which designs *can* succeed; errors
# are what make compounding, recovery and the price of flexibility visible. Stated in every output.
DEFAULT_MODEL = "sim:error_rate=0.1"
