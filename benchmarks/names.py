"""Names the command line needs before anything heavy is imported (so `wva --help` stays fast)."""

PATTERNS = ("single", "chain", "route", "orchestrate", "parallel", "evaluate_optimize", "agent")
DEFAULT_TASKS = ("pipeline", "support", "fanout", "multihop", "repair")
