"""`multihop`'s document ids: the generator's (never one digit apart) and the policy's misreadings of them."""

from __future__ import annotations

import random


def distinct_ids(rng: random.Random, n: int) -> list[str]:
    """n distinct 4-digit ids, none a misreading (one digit changed, two adjacent swapped) of another."""
    def confusable(a: str, b: str) -> bool:
        diff = [i for i in range(4) if a[i] != b[i]]
        return len(diff) <= 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    ids: list[str] = []
    while len(ids) < n:
        candidate = str(rng.randrange(1000, 10000))
        if not any(confusable(candidate, other) for other in ids):
            ids.append(candidate)
    return [f"doc-{i}" for i in ids]


def misread(doc_id: str, rng: random.Random) -> str:
    digits = list(doc_id.removeprefix("doc-"))
    swaps = [i for i in range(len(digits) - 1) if digits[i] != digits[i + 1]]
    if swaps and rng.random() < 0.5:
        i = rng.choice(swaps)
        digits[i], digits[i + 1] = digits[i + 1], digits[i]
    else:
        i = rng.randrange(len(digits))
        digits[i] = rng.choice([d for d in "0123456789" if d != digits[i]])
    return "doc-" + "".join(digits)


def digit_off(value: str, rng: random.Random) -> str:
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    if not digits:
        return value + "?"
    i = rng.choice(digits)
    return value[:i] + str((int(value[i]) + rng.randrange(1, 10)) % 10) + value[i + 1:]
