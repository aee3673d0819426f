"""What a sweep may do with a folder that already holds finished trials: the rules, in one place.

- No finished trial in it: a fresh run. Files the project wrote there before (a report, charts, the
  manifest of a sweep killed before its first trial) are cleared first, so the folder never mixes two
  runs; nothing else in it is touched.
- `--overwrite`: the same, whatever the folder holds.
- `--resume`: continue, only if the folder's trials are this sweep's: its `manifest.json` must exist,
  match its own fingerprint (not edited by hand), and record the same settings (model, seed, patterns,
  tasks, trials, prompt caching, limits, retry policy, grader model; more `--instances` extend the sweep,
  fewer would leave finished trials out and are refused), the same code digest and
  the same package versions. A different setting is refused, naming it; a different code version or
  package is refused unless `--allow-mixed`, and then the manifest lists every code version the folder's
  trials came from.
- Neither flag: a folder that already holds every trial of this very sweep (same settings, same code,
  the manifest intact) has *nothing to do*: its tables and verdicts are printed from its files and no
  byte of it changes. Any other folder with finished trials is refused, saying what to do: `--resume` to
  continue (this sweep's trials, some missing), or `--overwrite` to start again; another `--out` (other
  settings); `--resume --allow-mixed` (other code).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.harness.errors import SweepRefused
from benchmarks.harness.manifest import SETTINGS, code_of, fingerprint

FRESH, RESUME, NOTHING = "fresh", "resume", "nothing to do"
REMEDIES = {"settings": "use another --out, or --overwrite to start again",
            "code": "--resume --allow-mixed to continue anyway (the manifest then lists both), or --overwrite to start "
                    "again",
            "manifest": "--overwrite to start again"}
FLAGS = {"model": "--model", "seed": "--seed", "patterns": "--patterns", "tasks": "--tasks", "trials": "--trials",
         "prompt_cache": "--prompt-cache", "max_tokens": "max_tokens (RequestOptions)",
         "grader_model": "--grader-model", "limits": "the limits", "retry": "the retry policy"}


@dataclass(frozen=True)
class FolderState:
    manifest: dict[str, Any] | None
    finished: int  # finished trials of this plan found in the folder
    foreign: int  # finished trials that are not this plan's
    complete: bool  # the tidy files hold every planned trial, and no journal holds more


@dataclass(frozen=True)
class Problem:
    kind: str  # "settings" (never resumable), "code" (resumable with --allow-mixed), "manifest"
    text: str


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def problem(old: dict[str, Any] | None, new: dict[str, Any], state: FolderState) -> Problem | None:
    """Why the folder's trials are not this sweep's, or None."""
    if old is None:
        return Problem("manifest", "it has no manifest.json, so nothing says what produced its trials")
    if "fingerprint" in old and old["fingerprint"] != fingerprint(old):
        return Problem("manifest", "its manifest.json was changed after the sweep wrote it (the fingerprint does "
                                   "not match)")
    for key in SETTINGS:
        if key == "study" and old.get(key) != new.get(key):
            return Problem("settings", f"it was written by {_run_kind(old)}, and this is {_run_kind(new)}: run the "
                                       "command that wrote it")
        if key == "message_batches" and bool(old.get(key)) != bool(new.get(key)):
            was, now = ("with", "without") if old.get(key) else ("without", "with")
            return Problem("settings", f"it was run {was} --message-batches and this sweep is {now} it (a batched "
                                       "call's latency is queue time, its price half: the two never mix)")
        if _plain(old.get(key)) != _plain(new.get(key)):
            name = FLAGS.get(key, key)
            return Problem("settings", f"it was run with {name} {_shown(old.get(key))}, and this sweep asks for "
                                       f"{name} {_shown(new.get(key))}")
    if state.foreign:
        return Problem("settings", f"{state.foreign} of its finished trials are not part of this sweep (a task "
                                   "file's dataset changed?)")
    if old.get("code_digest") != new.get("code_digest"):
        was = old.get("code_digest") or "not recorded"
        return Problem("code", f"its trials came from other code: code digest {was} at commit {_commit(old)}, now "
                               f"{new.get('code_digest')} at commit {_commit(new)}")
    for name, wanted in (new.get("packages") or {}).items():
        had = (old.get("packages") or {}).get(name)
        if had != wanted:
            return Problem("code", f"its trials were computed with {name} {had}, and {wanted} is installed")
    return None


def _run_kind(doc: dict[str, Any]) -> str:
    study = doc.get("study")
    return f"a study ({', '.join(study)}) that grows it look by look" if study else "a plain sweep"


def _shown(value: Any) -> str:
    value = _plain(value)
    text = ",".join(map(str, value)) if isinstance(value, list) else str(value) if isinstance(value, str | int) \
        else json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _commit(doc: dict[str, Any]) -> str:
    commit = str((doc.get("git") or {}).get("commit") or "unknown")[:10]
    return commit + (" with uncommitted changes" if (doc.get("git") or {}).get("dirty") else "")


def decide(out: Path, state: FolderState, new: dict[str, Any], *, resume: bool, overwrite: bool,
           allow_mixed: bool) -> str:
    """FRESH, RESUME or NOTHING; a `SweepRefused` saying why and what to do otherwise (module docstring)."""
    if overwrite or (state.finished == 0 and state.foreign == 0):
        return FRESH
    found = problem(state.manifest, new, state)
    held = f"{out}/ holds {state.finished + state.foreign} finished trials"
    if resume:
        if found is None or (found.kind == "code" and allow_mixed):
            return NOTHING if state.complete else RESUME  # nothing to run: no byte of the folder changes
        raise SweepRefused(f"--resume refused: {held}, but {found.text}: {REMEDIES[found.kind]}")
    if found is None and state.complete:
        return NOTHING
    if found is None:
        raise SweepRefused(f"{held}: --resume to continue, or --overwrite to start again")
    raise SweepRefused(f"{held} ({found.text}): {REMEDIES[found.kind]}")


def mixed(old: dict[str, Any] | None, new: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The `mixed` list a resumed folder's manifest records: every code version its trials came from."""
    if old is None:
        return None
    versions = list(old.get("mixed") or [code_of(old)])
    same = {k: v for k, v in code_of(new).items() if k != "started"}
    if any({k: v for k, v in c.items() if k != "started"} == same for c in versions):
        return old.get("mixed")
    return [*versions, code_of(new)]
