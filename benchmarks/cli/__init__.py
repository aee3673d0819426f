"""The `wva` subcommands: one module each, with `add_parser(subparsers)` and `run(args) -> int`.

To add a command, write `benchmarks/cli/<name>.py` and list it in `COMMANDS`; the order
here is the order `wva --help` shows. A command module imports only what its parser needs at
the top: heavy imports go inside `run`, so that `wva --help` stays fast.
"""

from __future__ import annotations

COMMANDS: tuple[str, ...] = ("bench", "criterion", "plan", "report", "sweep", "run", "graph", "audit", "tasks",
                              "models", "sim_server")
