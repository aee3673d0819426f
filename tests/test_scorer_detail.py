"""A scorer's failure joined to the run's own detail stays one whole line: cut at a word with "…", never mid-word."""

from __future__ import annotations

from benchmarks.harness import code_errors
from benchmarks.harness.trial import _scorer_failed


def _row(detail: str) -> dict[str, object]:
    return {"success": True, "score": 1.0, "errors": 0, "error_kinds": "", "detail": detail}


def test_a_long_joined_detail_is_cut_at_a_word_with_an_ellipsis() -> None:
    words = " ".join(f"word{i:03d}" for i in range(80))  # 639 characters, no word longer than 7
    row = _scorer_failed(_row(words), ValueError("the scorer could not parse " + words))
    detail = row["detail"]
    assert len(detail) <= code_errors.DETAIL_CHARS and detail.endswith("…")
    kept = detail.removesuffix("…").split()
    assert kept[-1] in words.split()  # the last word kept is whole
    assert row["score"] is None and row["errors"] == 1 and "ScorerError" in row["error_kinds"]


def test_a_short_detail_is_kept_whole_and_joined() -> None:
    row = _scorer_failed(_row("the run's own note"), ValueError("bad output"))
    assert row["detail"].endswith("; the run's own note") and "bad output" in row["detail"]
    assert "…" not in row["detail"]
