"""`wva sim-server`: serve SimModel over HTTP as a Messages API look-alike, with the benchmark's tasks.

By default every built-in task family's policy answers its own prompts (each family's policy
recognises them in `accepts`), and the generic policy answers the rest, so `wva bench --model
anthropic:<id>` pointed at the server (`ANTHROPIC_BASE_URL`) runs the benchmark through the real
SDK. A family that fails to load is skipped with one warning line; `--generic-only` serves the
generic policy alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.cli._common import CommandFailed, UsageError, knob_items, port


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "sim-server",
        help="serve the simulated model over HTTP (point ANTHROPIC_BASE_URL, or OPENAI_BASE_URL=URL/v1, at it)",
        description="Serve SimModel as an HTTP Messages API, so that any Anthropic client can talk to it. "
        "Each request is answered by the policy of the built-in task family whose prompt it is, else by the "
        "generic policy.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    parser.add_argument("--port", type=port, default=8765, help="port to listen on (default: %(default)s)")
    parser.add_argument(
        "--knob",
        type=knob_items,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a SimModel knob (`wva models` lists them) or a server option: slow_s (seconds a "
        "'slow' request takes), require_api_key (reject other keys; better from the environment variable "
        "WVA_SIM_API_KEY, which `ps` does not show), max_body_bytes (larger bodies get a 413; default 32 MiB), "
        "read_timeout_s (seconds a client has to send a whole request; default 30), and the network's faults, "
        "each a probability per request: disconnect_rate (connection cut mid-reply), slow_rate (a reply slow_s "
        "late), malformed_rate (a 200 whose body is not JSON); for the Message Batches endpoints, "
        "batch_processing_s (seconds a batch takes; default 0.2), batch_error_rate and batch_expire_rate (a "
        "request in a batch errored or expired); repeatable",
    )
    parser.add_argument("--tasks", default="", metavar="LIST",
                        help="also serve these task specs' policies, e.g. a task file: "
                        "--tasks examples/tickets/tickets.toml")
    parser.add_argument("--generic-only", action="store_true",
                        help="serve the generic policy only, not the task families' policies")
    return parser


def task_policies(warn: Callable[[str], None]) -> list[Any]:
    """The policy of every built-in task family that loads; `warn` gets one line per family that does not."""
    from benchmarks.tasks.registry import BUILTIN, load_task

    policies: list[Any] = []
    for name in BUILTIN:
        try:
            policies.append(load_task(name).policy())
        except Exception as exc:  # a family being written, or broken: serve the others
            warn(f"wva sim-server: warning: task family {name!r} is not served: {' '.join(str(exc).split())}")
    return policies


def run(args: argparse.Namespace) -> int:
    from patterns.sim.server import API_KEY_ENV, SERVER_OPTIONS  # heavy: the simulator and a server
    from patterns.specs import parse_sim_knobs

    try:
        knobs = parse_sim_knobs(args.knob, extra=SERVER_OPTIONS)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if "require_api_key" not in knobs and os.environ.get(API_KEY_ENV):  # a --knob given explicitly wins
        knobs["require_api_key"] = os.environ[API_KEY_ENV]
    extra: dict[str, Any] = {} if getattr(args, "generic_only", False) else {"policies": task_policies}
    if getattr(args, "tasks", ""):  # a task file's policy first: it recognises only its own marker
        from benchmarks.tasks.registry import load_task, split_task_list

        try:
            own = [load_task(spec).policy() for spec in split_task_list(args.tasks)]
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        builtin = extra.get("policies")
        extra["policies"] = lambda warn: own + (builtin(warn) if builtin else [])
    try:
        return run_server_cli(args.host, args.port, knobs, **extra)
    except ValueError as exc:  # range checks (error_rate in [0, 1], slow_s >= 0): before anything is served
        raise UsageError(str(exc)) from None
    except OSError as exc:  # the address is taken or not ours to bind
        raise CommandFailed(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None


PolicyLoader = Callable[[Callable[[str], None]], Sequence[Any]]  # given a `warn(line)`, returns policies


def run_server_cli(host: str, port: int, knobs: dict[str, Any], *,
                   policies: Sequence[Any] | PolicyLoader | None = None) -> int:
    """Serve until Ctrl-C; `knobs` are SimModel knobs plus the server options (`SERVER_OPTIONS`).

    `policies` (or a loader called with a `warn(line)` function, after the knobs are checked and
    before anything is served) are consulted before the generic policy. The first line printed is
    the URL; the loader's warnings and the policies served follow it, on stderr.
    """
    from patterns.sim.server import SimServer, typed_knobs

    server = SimServer(host, port, **typed_knobs(knobs))  # a bad knob fails here, before anything is loaded
    notes: list[str] = []
    if policies is not None:
        server.policies.extend(policies(notes.append) if callable(policies) else policies)
    server.start()
    # both wire formats' bases: the Anthropic SDK appends /v1/messages itself, OpenAI clients want the /v1 base
    print(f"sim server listening on {server.url}  (export ANTHROPIC_BASE_URL={server.url}; OpenAI clients: "
          f"export OPENAI_BASE_URL={server.url}/v1)", flush=True)
    if not server.loopback:
        auth = "a key is required" if knobs.get("require_api_key") else "no key is required (set WVA_SIM_API_KEY)"
        notes.insert(0, f"wva sim-server: warning: listening on {host}, which other machines can reach; {auth}")
    if server.policies:
        names = ", ".join(type(p).__name__ for p in server.policies)
        notes.append(f"sim server: policies {names}, then GenericPolicy for any other request")
    for note in notes:
        print(note, file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        injected = ", ".join(f"{kind}={n}" for kind, n in server.faults_injected.items() if n) or "none"
        print(f"sim server stopped ({server.model.calls} model calls; faults injected: {injected})", flush=True)
    finally:
        server.stop()
    return 0
