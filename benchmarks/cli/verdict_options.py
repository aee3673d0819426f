"""The verdict's options, for every command that prints verdicts (`bench`, `sweep`, `criterion`, `report`,
`plan`): --margin, --comparator, --cost-margin and --value-per-success.

The values are checked by the library's own checks (`benchmarks.criterion.verdict`) and the defaults are
the library's (`benchmarks.names`), so the command line and code that calls the library accept the same
values and say the same thing about the rest. The checks are imported when a value is parsed, not when
the parser is built: `wva --help` stays light."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from benchmarks.names import DEFAULT_COST_MARGIN, DEFAULT_MARGIN


def _checked(flag: str, check: str, parse: Callable[[str], Any] = str) -> Callable[[str], Any]:
    """An argparse type: `parse` the text, then the library's `check`, whose message names what is wrong."""

    def convert(text: str) -> Any:
        from benchmarks.criterion import verdict

        try:
            return getattr(verdict, check)(parse(text))
        except ValueError as exc:  # argparse says "argument --margin: " itself
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{flag} ")) from None

    return convert


def _number(text: str) -> float | str:
    """A number, or the text as it was (the library's check then says what the value must be)."""
    try:
        return float(text)
    except ValueError:
        return text


def _usd(text: str) -> float | str:
    return _number(text.strip().lstrip("$"))


def add_verdict_options(p: argparse.ArgumentParser) -> None:
    margin = _checked("--margin", "check_margin", _number)
    comparator = _checked("--comparator", "check_comparator")
    cost_margin = _checked("--cost-margin", "check_cost_margin", _number)
    value = _checked("--value-per-success", "check_value", _usd)
    p.add_argument("--margin", type=margin, default=DEFAULT_MARGIN, metavar="DELTA",
                   help=f"non-inferiority margin on success (default {DEFAULT_MARGIN:g})")
    p.add_argument("--comparator", type=comparator, default="declared", metavar="NAME",
                   help="the workflow the agent is compared with: 'declared' (the family's own, else selected; the "
                   "default), 'selected' (the best workflow, with selection-proof intervals) or a pattern name")
    p.add_argument("--cost-margin", type=cost_margin, default=DEFAULT_COST_MARGIN, metavar="SHARE",
                   help="the saving that counts as cheaper: the cheaper side must cost at most 1 - SHARE of the "
                   f"other (default {DEFAULT_COST_MARGIN:g}: {DEFAULT_COST_MARGIN * 100:.0f}%%)")
    p.add_argument("--value-per-success", type=value, default=None, metavar="USD",
                   help="what one success is worth: decide by net value per trial (success × USD − cost) instead")


def verdict_options(args: argparse.Namespace) -> dict[str, Any]:
    """The verdict options of parsed arguments, as `criterion_tables`/`write_criterion` take them."""
    return {"margin": args.margin, "comparator": args.comparator, "cost_margin": args.cost_margin,
            "value_per_success": args.value_per_success}

