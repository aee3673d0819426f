"""What `wva bench` says once the sweep is over: the tables, the verdicts, the run's total cost and tokens,
whether it failed — as text, or with `--json` as one document (`wva.bench/1`, docs/json.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from benchmarks.cli.json_out import JsonDone, emit, records, schema


def criterion_of(outcome: Any, options: dict[str, Any]) -> tuple[Any, str | None]:
    """(the criterion table or None, why it is missing); a folder with nothing to do is read, never written."""
    try:  # a failure here must never cost the bench's results, already written
        from benchmarks.criterion.table import criterion_file, criterion_table, write_criterion

        if outcome.nothing_to_do:
            return criterion_table(outcome.out, **options), None
        return write_criterion(outcome.out, name=criterion_file(options.get("comparator")), **options), None
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"


def totals(out: Path) -> dict[str, Any]:
    """The folder's totals (the pilot's, where the run went on until decided), its decided, drawn and repeats
    phases' (`benchmarks.harness.totals`), None where there are none."""
    from benchmarks.harness.totals import run_totals
    from benchmarks.names import DECIDED, DRAWN, REPEATS

    return {"totals": run_totals(out), "decided_totals": run_totals(out / DECIDED),
            "drawn_totals": run_totals(out / DRAWN), "repeats_totals": run_totals(out / REPEATS)}


def total_lines(out: Path, model: str) -> list[str]:
    from benchmarks.harness.totals import totals_line

    sums = totals(out)
    lines = [totals_line("total", sums["totals"], model)] if sums["totals"] else []
    if sums["decided_totals"]:
        lines.append(totals_line(f"  + the decided phase ({out}/decided/)", sums["decided_totals"], model))
    if sums["drawn_totals"]:
        lines.append(totals_line(f"  + the drawn phase ({out}/drawn/)", sums["drawn_totals"], model))
    if sums["repeats_totals"]:
        lines.append(totals_line(f"  + the repeats phase ({out}/repeats/)", sums["repeats_totals"], model))
    return lines


def report(outcome: Any, notes: dict[str, list[str]], options: dict[str, Any], model: str,
           extra: list[str]) -> None:
    """The tables, the verdicts, where the trials are and what they cost in all (`extra`: the drawn phase's and
    --until-decided's lines)."""
    from benchmarks.cli._tables import bench_table
    from benchmarks.criterion.read import folder_caveat
    from benchmarks.criterion.render import format_verdicts

    print(bench_table(outcome.summary))
    for line in notes["not_offered"]:
        print(line)
    table, failed = criterion_of(outcome, options)
    if table is not None:
        print("\n" + format_verdicts(table))
        if caveat := folder_caveat(outcome.out):
            print(f"NOT A MEASURE OF QUALITY: {caveat}")
    else:
        print(f"wva: warning: criterion not computed: {failed}", file=sys.stderr)
    for line in extra:
        print(line)
    if outcome.nothing_to_do:
        print(f"\nnothing to do: {outcome.out}/ already holds all {outcome.trials} trials of this sweep (same "
              "settings and code); nothing was run or changed (--overwrite to run it again)")
    else:
        print(f"\n{outcome.trials} trials ({outcome.ran} run now) written to {outcome.out}/")
    print("\n".join(total_lines(outcome.out, model)))


def json_report(outcome: Any, notes: dict[str, list[str]], options: dict[str, Any], model: str,
                extra: list[str], drawn: Any, estimate: Any = None) -> dict[str, Any]:
    """The same as one JSON-ready document (docs/json.md); `estimate` is the `Estimate` printed before the first
    trial (a provider model only; with `--until-decided`, the first look's), else None."""
    from benchmarks.criterion.read import folder_caveat

    table, failed = criterion_of(outcome, options)
    try:
        caveat = folder_caveat(outcome.out)
    except Exception:  # no runs.csv: nothing ran
        caveat = None
    return {"schema": schema("bench"), "out": str(outcome.out), "model": model, "trials": outcome.trials,
            "ran": outcome.ran, "nothing_to_do": bool(outcome.nothing_to_do), "summary": records(outcome.summary),
            "criterion": records(table) if table is not None else None, "criterion_error": failed,
            "caveat": caveat, "not_offered": notes["not_offered"], "notes": extra,
            "estimate": None if estimate is None else estimate.to_dict(),
            "drawn": None if drawn is None else {"out": str(drawn.out), "trials": drawn.trials, "ran": drawn.ran},
            **totals(outcome.out), "status": 0, "error": None}


def finish(doc: dict[str, Any] | None, outcome: Any) -> int:
    """The exit status (failed sweep: exit 1; trials failed in the task's code: 1), the JSON printed if asked, with
    the reason for a status of 1 in its `error`."""
    failed = failed_sweep(outcome)
    code = None if failed else code_error_reason(outcome)
    if code:
        print(f"wva: error: {code}", file=sys.stderr)
    if doc is None:
        if failed:
            from benchmarks.cli._common import CommandFailed

            raise CommandFailed(failed)
        return 1 if code else 0
    emit({**doc, "status": 1 if failed or code else 0, "error": failed or code})
    if failed:
        raise JsonDone(failed, 1)
    return 1 if code else 0


def code_error_reason(outcome: Any) -> str | None:
    """Why the status is 1 when trials failed in the task's own code, else None."""
    from benchmarks.harness.code_errors import count
    from benchmarks.harness.outputs import read_runs

    runs = read_runs(outcome.out, ["error_kinds"])
    failed = count(runs["error_kinds"])
    if not failed:
        return None
    return (f"{failed} of {len(runs)} trials failed in the task's own code (scorer, design or environment: "
            "ScorerError/CodeError/DesignError in runs.csv's error_kinds, the file and line in detail; a DesignError "
            "trial is left out of the verdict); fix it and run again")


def failed_sweep(outcome: Any) -> str | None:
    """Why the sweep as a whole failed — every trial ended in an error — or None."""
    summary = outcome.summary
    if summary.empty or int(summary["terminal_error"].sum()) < int(summary["n"].sum()):
        return None
    from benchmarks.harness.outputs import read_runs

    kinds = read_runs(outcome.out, ["error_kinds"])["error_kinds"].fillna("").astype(str).str.split(";").str[-1]
    common = kinds.replace("", "an unrecorded error").value_counts()
    return (f"every trial failed ({outcome.trials} of {outcome.trials}; most often {common.index[0]}, "
            f"{int(common.iloc[0])} times): the figures above measure nothing; see runs.csv's error_kinds and detail")
