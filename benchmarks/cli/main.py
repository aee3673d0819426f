"""`wva`: the command line. Each subcommand lives in `benchmarks/cli/<name>.py`.

Every way of calling `wva` wrongly ends the same way: one line `wva: error: ...` on stderr
and exit status 2. No traceback, and no argparse usage dump: a user who mistyped a flag
needs the one sentence that says what was wrong, and a script needs a stable status.
Work that cannot be done (`CommandFailed`: a port in use) is one `wva: error: ...` line and
status 1; so is any exception that carries its own `exit_status` (a Ray cluster that cannot be
reached: 2), followed, when it says it is `resumable`, by the command that finishes the sweep.
A bug (an unexpected exception) is one `wva: internal error: ...` line and status 1;
`WVA_DEBUG=1` adds the traceback. Ctrl-C (SIGINT) is status 130 and one line, plus, for a sweep
that kept finished trials, the `--resume` command that finishes it. With `--json`, every such error, Ctrl-C
included, is also one JSON document on stdout (`benchmarks.cli.json_out.error_doc`), unless the command printed its
own already, so a script reading stdout always gets JSON.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from benchmarks.cli import COMMANDS
from benchmarks.cli._common import CommandFailed, UsageError

PROG = "wva"


class WvaArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are exceptions, so `main()` alone decides what is printed."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)  # "--po" meaning "--port" would be a promise to keep
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("workflow-vs-agent")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def build_parser() -> WvaArgumentParser:
    parser = WvaArgumentParser(
        prog=PROG,
        description="Measure, on the same tasks, whether a fixed LLM workflow is enough or an agent is worth its cost.",
        epilog=f"Run '{PROG} <command> --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    subparsers = parser.add_subparsers(
        dest="command", metavar="<command>", title="commands", parser_class=WvaArgumentParser
    )
    for name in COMMANDS:
        module = importlib.import_module(f"benchmarks.cli.{name}")
        sub = module.add_parser(subparsers)
        sub.set_defaults(_run=module.run)
    return parser


def _one_line(text: object) -> str:
    from patterns.redact import redact

    return redact(" ".join(str(text).split()))


def _fail(message: str, status: int) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return status


def _exit_status(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    return _fail(f"error: {_one_line(exc.code)}", 1)


_PARSED: dict[str, argparse.Namespace] = {}  # this call's arguments, once parsed (read by the Ctrl-C handler)


def _run(argv: Sequence[str] | None) -> int:
    from benchmarks.cli.json_out import PRINTED

    _PARSED.clear()
    PRINTED.clear()
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    _PARSED["args"] = args
    if extras:  # argparse reports these at the top level; point at the command's own --help
        where = f"{PROG} {args.command}" if args.command else PROG
        raise UsageError(f"unrecognized arguments: {' '.join(extras)} (see '{where} --help')")
    if args.command is None:
        choices = ", ".join(name.replace("_", "-") for name in COMMANDS)
        raise UsageError(f"no command given: use one of {choices} (see '{PROG} --help')")
    if os.environ.get("WVA_PRICES") and getattr(args, "prices", None) is None:  # --prices replaces it
        from patterns.pricing import check_env_prices

        try:  # before any work: a bad file is one line here, never an error after a paid sweep
            check_env_prices()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    status = args._run(args)
    return 0 if status is None else int(status)


def _json_fail(argv: list[str], exc: BaseException, message: str, status: int) -> int:
    """`_fail`, and the error as one JSON document on stdout when --json was asked for (and none was printed)."""
    if "--json" in argv and not getattr(exc, "json_done", False):
        from benchmarks.cli.json_out import PRINTED, emit, error_doc

        if not PRINTED:
            command = next((a for a in argv if not a.startswith("-")), None)
            emit(error_doc(command, _one_line(exc) or message, status))
    return _fail(message, status)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(argv)
    except UsageError as exc:
        return _json_fail(argv, exc, f"error: {_one_line(exc)}", 2)
    except CommandFailed as exc:
        return _json_fail(argv, exc, f"error: {_one_line(exc)}", 1)
    except SystemExit as exc:  # --help and --version exit 0 through argparse
        return _exit_status(exc)
    except KeyboardInterrupt:
        return _interrupted(argv)
    except BrokenPipeError:  # `wva models | head`: the reader left; nothing more to say
        _silence_stdout()
        return 1
    except Exception as exc:
        status = getattr(exc, "exit_status", None)
        if isinstance(status, int) and not isinstance(status, bool):
            _json_fail(argv, exc, f"error: {_one_line(exc)}", status)
            if getattr(exc, "resumable", False):
                _say_resume(argv)
            return status
        if os.environ.get("WVA_DEBUG", "") not in ("", "0"):
            traceback.print_exc()
        detail = _one_line(exc)
        return _json_fail(argv, exc, f"internal error: {type(exc).__name__}{': ' + detail if detail else ''}", 1)


def _interrupted(argv: list[str]) -> int:
    if sys.stderr.isatty():  # over the progress bar (and the terminal's ^C) rather than after it
        sys.stderr.write("\r\x1b[K")
    out = _kept_in(argv)
    said = f"interrupted: the finished trials are kept in {out}/" if out else "interrupted"
    _json_fail(argv, KeyboardInterrupt(said), said, 130)  # under --json, the error document too
    if out:
        _say_resume(argv)
    return 130


def _kept_in(argv: list[str]) -> str | None:
    """The `--out` folder of a `wva bench` whose journal holds finished trials, else None.

    Read from the arguments this call already parsed, never by parsing them again: a Ctrl-C during the
    startup imports would re-import the half-loaded modules (a long traceback, exit 1, not 130), and before
    the arguments were parsed no sweep can have kept anything."""
    args = _PARSED.get("args")
    if args is None or getattr(args, "command", None) != "bench":
        return None
    from benchmarks.harness import journal

    return str(args.out) if any(path.exists() for path in journal.paths(args.out)) else None


def _say_resume(argv: list[str]) -> None:
    if _kept_in(argv) is None:
        return
    again = [arg for arg in argv if arg != "--overwrite"]  # it would start the sweep over: --resume goes on
    command = shlex.join([PROG, *again, *([] if "--resume" in again else ["--resume"])])
    print(f"{PROG}: to finish the sweep: {_one_line(command)}", file=sys.stderr)


def _silence_stdout() -> None:
    # Python would otherwise report the broken pipe again when it flushes stdout at exit.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
