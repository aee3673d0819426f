"""The catalogue's verifier, one subprocess per module: `python -S -B verify.py < job.json`.

In a pristine copy of the target it runs the cases (their expected outcomes) and records the lines they execute;
then it tries seeded mutations of those lines, each in the copy, keeping one when the cases fail with it, pass
again once the line is restored, and finish within `HANG_S` (a mutation that hangs is dropped, not kept)."""

import itertools
import json
import os
import random
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run as a script, beside check.py
from check import namespace, outcome
from mutate import Mutation, apply, candidates, parses

HANG_S = 5.0  # generous: a slow, loaded machine must not turn a slow import into a "hang"


class Hang(BaseException):
    """Raised by the alarm: not an Exception, so that no case's own handler swallows it."""


def _alarm(*_: object) -> None:
    raise Hang


def outcomes(job: dict, trace: dict | None = None) -> list[str]:
    top = job["module"].split(".")[0]
    for name in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
        del sys.modules[name]
    ns = namespace(job["module"], job["root"])

    def line(frame: object, event: str, arg: object) -> object:
        if event == "line":
            trace.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
        return line

    if trace is not None:
        sys.settrace(lambda f, e, a: line if f.f_code.co_filename.startswith(job["root"]) else None)
    try:
        return [outcome(case, ns)[0] for case in job["cases"]]
    finally:
        sys.settrace(None)


def verdict(job: dict, expected: list[str], path: str, text: str) -> bool:
    """The cases fail on `text` in `path`, and pass again on the original."""
    with open(path, encoding="utf-8", newline="") as f:
        original = f.read()
    signal.setitimer(signal.ITIMER_REAL, HANG_S)
    try:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        try:
            failed = outcomes(job) != expected
        except Exception:  # the module no longer imports: its tests fail, with the traceback
            failed = True
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(original)
        return failed and outcomes(job) == expected
    except Hang:
        return False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(original)


def covered(mutations: object, ran: set) -> object:
    return (m for m in mutations if m.line in ran)


def main() -> None:
    job, out = json.load(sys.stdin), sys.stdout
    sys.stdout = sys.stderr  # a mutation may make a module print: only the result goes to stdout
    signal.signal(signal.SIGALRM, _alarm)
    trace: dict = {}
    expected = outcomes(job, trace)
    if "verify" in job:  # the catalogue's mutations, checked again: [fails, then passes once restored]
        sources = {m["file"]: open(os.path.join(job["root"], m["file"]), encoding="utf-8", newline="").read()
                   for m in job["verify"]}
        out.write(json.dumps([verdict(job, expected, os.path.join(job["root"], m["file"]),
                                      apply(sources[m["file"]], Mutation(**m))) for m in job["verify"]]))
        return
    rng, sources, streams = random.Random(job["seed"]), {}, []
    for rel in job["files"]:
        path = os.path.join(job["root"], rel)
        with open(path, encoding="utf-8", newline="") as f:
            sources[rel] = f.read()
        streams.append(covered(candidates(rel, sources[rel], rng), trace.get(path, set())))
    turns = (m for group in itertools.zip_longest(*streams) for m in group if m is not None)
    kept = []
    for m in itertools.islice(turns, job["tries"]):
        source = sources[m.file]
        if len(kept) < job["keep"] and parses(source, m) and \
                verdict(job, expected, os.path.join(job["root"], m.file), apply(source, m)):
            kept.append(vars(m))
    out.write(json.dumps({"expected": expected, "mutations": kept}))


if __name__ == "__main__":
    main()
