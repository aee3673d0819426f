"""The batches a sweep created, kept in its results folder (`batches.jsonl`), so `--resume` never pays twice.

One JSON line per batch, appended, flushed and fsynced as soon as the API has answered the create call and
before the batch is polled: `{"batch": id, "created_at": RFC 3339, "requests": [[custom_id, key], ...]}`. The
key is a request's identity (`content_key`: its stream, which names the trial, and its whole params, the model
included). On `--resume` a call whose key a recorded batch holds is answered from that batch's results
(`BatchedModel`), in the order the keys were recorded, so a trial that asks the same thing twice takes its two
answers in turn. A last line torn by a kill is cut off (that batch is then unknown: a kill in the
milliseconds between the API's answer and the write loses it, and its requests are sent again).

Only `--overwrite` removes the file. A sweep killed before any trial finished leaves a folder the next run
starts afresh (`resume.decide`), and that run still answers its calls from the batches already paid for: a
key matches only the very same request of the very same trial. A finished sweep keeps the file, a list of
the batches its bill came from.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict, deque
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.harness import journal

NAME = "batches.jsonl"


def content_key(stream: str | None, params: dict[str, Any]) -> str:
    """A request's identity across sessions: its stream and its params (sorted JSON, hashed)."""
    text = json.dumps({"stream": stream, "params": params}, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:40]


class BatchRecord:
    """The folder's `batches.jsonl`: `add` a batch as it is created, `claim` a recorded request for a call."""

    def __init__(self, out: Path) -> None:
        self.path = out / NAME
        self._unclaimed: dict[str, deque[tuple[str, str]]] = defaultdict(deque)  # key -> (batch id, custom_id)
        self.recorded = 0
        journal.repair(self.path)  # a torn last line is cut off before we append after it
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                    pairs = [(str(c), str(k)) for c, k in entry["requests"]]
                    batch = str(entry["batch"])
                except (ValueError, KeyError, TypeError):
                    continue  # not a batch's line: its requests, if any, are sent again
                self.recorded += 1
                for custom_id, key in pairs:
                    self._unclaimed[key].append((batch, custom_id))

    def claim(self, key: str) -> tuple[str, str] | None:
        """(batch id, custom_id) of a recorded request with this key not yet claimed, or None."""
        waiting = self._unclaimed.get(key)
        if not waiting:
            return None
        found = waiting.popleft()
        if not waiting:
            del self._unclaimed[key]
        return found

    def add(self, batch_id: str, requests: list[tuple[str, str]]) -> None:
        """Record a batch just created (before anything waits for it): durable once this returns."""
        line = json.dumps({"batch": batch_id, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                           "requests": [list(r) for r in requests]}) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())  # a batch is money spent: its record survives a crash of the machine too
