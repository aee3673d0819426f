"""The differential test harness, copied into every trial's project as `tests/_check.py` (and run by the
catalogue's verifier, so that both judge a module alike). A case is an expression over the module under test;
its expected outcome is what the original stdlib module gave: `repr` of the value, or `raises <Exception>`."""

import importlib
import os
import resource
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOWN = 3  # failures printed in full; the rest are counted


def outcome(expr, ns):
    """(what the case gives, as the expected values are written; the exception, if one was raised)."""
    try:
        value = eval(expr, ns)  # the generator's own case text, never a model's
    except Exception as exc:
        return "raises " + type(exc).__name__, exc
    text = repr(value)
    return (type(value).__name__ if " at 0x" in text else text), None


def namespace(module, root=ROOT):
    """The module imported from `root` (refused if it comes from anywhere else), bound under its top name."""
    if root not in sys.path:
        sys.path.insert(0, root)
    mod = importlib.import_module(module)
    if not os.path.abspath(mod.__file__).startswith(root + os.sep):
        raise ImportError(f"{module} was imported from {mod.__file__}, not from the project")
    return {module.split(".")[0]: importlib.import_module(module.split(".")[0])}


def _trace(exc):
    import traceback  # only now: it imports textwrap, which must be the project's when it is the module tested

    return "".join(traceback.format_exception(exc)).replace(ROOT + os.sep, "")


def main(module, cases):
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    name = "tests/test_" + module.replace(".", "_") + ".py"
    try:
        ns = namespace(module)
    except Exception as exc:
        print(_trace(exc), end="")
        print(f"FAILED: {name} could not import {module}")
        sys.exit(1)
    failed = [(i, expr, want, *outcome(expr, ns)) for i, (expr, want) in enumerate(cases)]
    failed = [f for f in failed if f[2] != f[3]]
    for i, expr, want, got, exc in failed[:SHOWN]:
        print(f"case {i}: {expr}")
        if exc is not None and not want.startswith("raises"):
            print(_trace(exc), end="")
        print(f"    expected: {want}\n    got:      {got}\n")
    if len(failed) > SHOWN:
        print(f"... and {len(failed) - SHOWN} more failing cases\n")
    print(f"FAILED: {len(failed)} of {len(cases)} cases in {name}" if failed else f"OK: {len(cases)} cases passed")
    sys.exit(1 if failed else 0)
