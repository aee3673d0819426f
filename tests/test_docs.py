"""The README and the pages under docs/ hold: their Python runs, their links lead somewhere, and the README
stays a front door.

- Every ```python block of a page runs, the page's blocks in order in one namespace (as a reader pastes
  them one after the other), from the repository's folder. A block whose first line is `# not run: <why>`
  needs what the suite has not (an API key) and is skipped — the reason stays visible on the page.
- Every relative link and image of README.md and docs/*.md resolves to a file inside the repository,
  and a `#fragment` to a heading of the page it points to (the code host's anchors).
- README.md is at most 300 lines and stands alone: no page refers to the developers' design notes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import ROOT

PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
NOT_RUN = "# not run:"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# Pages other branches write at the same time, linked already; remove a name once its page has landed.


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


def runnable(page: Path) -> list[str]:
    return [b for b in python_blocks(page) if not b.lstrip().startswith(NOT_RUN)]


def slug(heading: str) -> str:
    """The anchor a code host gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+\s+(.*)$", text, flags=re.M)}


def links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def broken(page: Path, target: str) -> str | None:
    """Why a relative link of `page` does not resolve, or None."""
    path, _, fragment = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    if not dest.is_relative_to(ROOT):
        return "leads out of the repository"
    if not dest.exists():
        return "no such file"
    if fragment and dest.suffix == ".md" and fragment not in anchors(dest):
        return f"no heading #{fragment} in {dest.relative_to(ROOT)}"
    return None


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("page", [p for p in PAGES if runnable(p)], ids=rel)
def test_the_python_blocks_of_a_page_run(page: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {}
    for i, block in enumerate(runnable(page), 1):
        exec(compile(block, f"{rel(page)} python block {i}", "exec"), namespace)  # our own pages
    capsys.readouterr()


def test_the_pages_have_python_to_run_and_mark_what_cannot() -> None:
    assert runnable(ROOT / "docs" / "patterns.md")
    skipped = [b for p in PAGES for b in python_blocks(p) if b.lstrip().startswith(NOT_RUN)]
    assert all(re.match(r"# not run: \S", b.lstrip()) for b in skipped), "say why a block is not run"


def test_every_relative_link_resolves() -> None:
    bad = {f"{rel(page)} -> {target}": why for page in PAGES for target in links(page)
           if (why := broken(page, target))}
    assert bad == {}


def test_the_link_check_finds_a_broken_link(tmp_path: Path) -> None:
    page = ROOT / "docs" / "criterion.md"
    assert broken(page, "simulator.md#a-fair-comparison") is None
    assert broken(page, "no-such-page.md") == "no such file"
    assert broken(page, "simulator.md#no-such-heading") == "no heading #no-such-heading in docs/simulator.md"
    assert broken(page, "../../outside.md") == "leads out of the repository"
    assert slug("Scale-out: `--workers` and Ray") == "scale-out---workers-and-ray"


def test_the_readme_is_a_front_door() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300
    for page in PAGES:
        assert "DESIGN.md" not in page.read_text(encoding="utf-8"), rel(page)


def test_every_page_under_docs_is_linked_from_the_readme() -> None:
    readme = set(links(ROOT / "README.md"))
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= readme
