"""`wva sim-server`: serve SimModel over HTTP as a Messages API look-alike."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import CommandFailed, UsageError, knob_items, port


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "sim-server",
        help="serve the simulated model over HTTP (point ANTHROPIC_BASE_URL at it)",
        description="Serve SimModel as an HTTP Messages API, so that any Anthropic client can talk to it.",
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
        "'slow' request takes), require_api_key (reject other keys); repeatable",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from patterns.simserver import SERVER_OPTIONS, run_server_cli  # heavy: the simulator and a server
    from patterns.specs import parse_sim_knobs

    try:
        knobs = parse_sim_knobs(args.knob, extra=SERVER_OPTIONS)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        return run_server_cli(args.host, args.port, knobs)
    except ValueError as exc:  # range checks (error_rate in [0, 1], slow_s >= 0): before anything is served
        raise UsageError(str(exc)) from None
    except OSError as exc:  # the address is taken or not ours to bind
        raise CommandFailed(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
