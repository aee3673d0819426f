"""What the simulated model knows how to do with a `pipeline` record, right or with one slip.

Reading a record (`parse_record`), normalising each value (`NORMALISERS`), laying out the line
(`format_line`), re-reading a mis-laid line (`reparse`), and the plausible slip of each step
(`extract`, `normalise`, `lay_out` with `ok=False`); `policy` decides when to slip.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re

from benchmarks.tasks.pipeline.prompts import ALIASES, FIELDS, MONTHS

_ALIAS_FIELD = {alias: f for f, aliases in ALIASES.items() for alias in aliases}
_KEY = re.compile(r"^\s*(?P<key>" + "|".join(re.escape(a) for a in sorted(_ALIAS_FIELD, key=len, reverse=True))
                  + r")\.?\s*[:=]?\s*(?P<value>.*?)\s*$", re.I)
FIELD_LINE = re.compile(r"^(" + "|".join(FIELDS) + r"): ?(.*)$", re.M)


def record_of(text: str) -> str:
    m = re.search(r"^Record: ?(.*)$", text, re.M)
    return m.group(1) if m else ""


def fields_of(text: str) -> list[str]:
    m = re.search(r"^Fields: (.*)$", text, re.M)
    found = [f.strip() for f in m.group(1).split(",")] if m else []
    return [f for f in found if f in FIELDS] or list(FIELDS[:3])


def parse_record(record: str) -> dict[str, str]:
    """The raw value after each label the record uses, as written."""
    values: dict[str, str] = {}
    for segment in re.split(r"\s*(?:;;|;|\|)\s*", record):
        m = _KEY.match(segment)
        if m:
            values.setdefault(_ALIAS_FIELD[m["key"].lower()], m["value"])
    return values


def title(words: str) -> str:
    return " ".join(w[:1].upper() + w[1:].lower() for w in words.split())


def norm_name(raw: str) -> str:
    """`First Last`, from `first last` or `last, first`."""
    raw = " ".join(raw.split())
    if "," in raw:
        last, first = (p.strip() for p in raw.split(",", 1))
    else:
        first, _, last = raw.partition(" ")
    return title(f"{first} {last}")


def date_parts(raw: str) -> tuple[int, int, int] | None:
    s = " ".join(raw.lower().replace(",", " ").split())
    if m := re.fullmatch(r"(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})", s):
        y, mo, d = int(m[1]), int(m[2]), int(m[3])
    elif m := re.fullmatch(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})", s):
        d, mo, y = int(m[1]), int(m[2]), int(m[3])
    elif (m := re.fullmatch(r"(\d{1,2}) ([a-z]{3})[a-z]*\.? (\d{4})", s)) and m[2] in MONTHS:
        d, mo, y = int(m[1]), MONTHS.index(m[2]) + 1, int(m[3])
    else:
        return None
    try:
        dt.date(y, mo, d)
    except ValueError:
        return None
    return y, mo, d


def norm_date(raw: str) -> str:
    parts = date_parts(raw)
    return f"{parts[0]:04}-{parts[1]:02}-{parts[2]:02}" if parts else " ".join(raw.split())


def norm_phone(raw: str) -> str:
    digits = re.sub(r"\D", "", raw)
    if len(digits) == 11 and digits[0] == "1":
        digits = digits[1:]
    return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}" if len(digits) == 10 else raw.strip()


NORMALISERS = {"name": norm_name, "dob": norm_date, "city": title, "phone": norm_phone,
               "email": lambda raw: "".join(raw.split()).lower()}


def format_line(values: dict[str, str], fields: list[str]) -> str:
    return " | ".join(_laid_out(f, values[f]) for f in fields if f in values)


def _laid_out(field: str, value: str) -> str:
    if field != "name" or " " not in value:
        return value
    first, _, last = value.partition(" ")
    return f"{last}, {first}"


def _differs(slip: str, right: str) -> str:
    return slip if slip != right else (right.upper() if right.upper() != right else right + "?")


def _extract_slip(field: str, raw: dict[str, str], rng: random.Random) -> str:
    v = raw.get(field, "")
    if field == "name":
        if "," in v:
            last, first = v.split(",", 1)
            return f"{first.strip()}, {last.strip()}"
        return " ".join(reversed(v.split()))
    if field == "dob":
        m = re.search(r"\d{4}", v)
        if not m:
            return v[::-1]
        y = m.group()
        wrong = y[:2] + y[3] + y[2] if y[2] != y[3] else str(int(y) + 1)
        return v[: m.start()] + wrong + v[m.end():]
    if field == "city":
        words = v.split()
        return " ".join(words[:-1]) if len(words) > 1 else raw.get("name", v)  # the wrong segment
    if field == "phone":
        pos = [i for i, c in enumerate(v) if c.isdigit()][-10:]
        pairs = [(a, b) for a, b in itertools.pairwise(pos) if v[a] != v[b]]
        chars = list(v)
        if pairs:
            a, b = rng.choice(pairs)
            chars[a], chars[b] = chars[b], chars[a]
        elif pos:
            chars[pos[-1]] = str((int(chars[pos[-1]]) + 1) % 10)
        return "".join(chars)
    user, at, domain = v.partition("@")
    for sep in "._":
        if sep in user:
            return user.replace(sep, "", 1) + at + domain
    return user[:-1] + at + domain


def _normalise_slip(field: str, raw: str) -> str:
    if field == "name":
        return norm_name(raw).upper()
    if field == "dob":
        s = " ".join(raw.split())
        m = re.fullmatch(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})", s)
        if m and int(m[1]) != int(m[2]) and int(m[1]) <= 12:
            return f"{int(m[3]):04}-{int(m[1]):02}-{int(m[2]):02}"  # read as month/day
        return s  # left as written
    if field == "city":
        return " ".join(raw.split()).lower()
    return raw.strip()  # phone, email: left as written


def format_slip(values: dict[str, str], fields: list[str], rng: random.Random) -> str:
    present = [f for f in fields if f in values]
    parts = [_laid_out(f, values[f]) for f in present]
    options = (["first_last"] if " " in values.get("name", "") else []) + (["separator"] if len(parts) > 1 else [])
    options += ["order"] if len(parts) > 2 else []
    kind = rng.choice(options) if options else ""
    if kind == "first_last":
        parts[present.index("name")] = values["name"]
    elif kind == "order":
        parts[1], parts[2] = parts[2], parts[1]
    elif kind == "separator":
        return "; ".join(parts)
    return " | ".join(parts) + ("" if kind else " |")


def extract(record: str, fields: list[str], ok: bool, rng: random.Random) -> dict[str, str]:
    raw = parse_record(record)
    out = {f: raw.get(f, "") for f in fields}
    if not ok and out:
        f = rng.choice(fields)
        out[f] = _differs(_extract_slip(f, raw, rng), out[f])
    return out


def normalise(raw: dict[str, str], ok: bool, rng: random.Random) -> dict[str, str]:
    out = {f: NORMALISERS[f](v) for f, v in raw.items()}
    if not ok and out:
        f = rng.choice(list(out))
        out[f] = _differs(_normalise_slip(f, raw[f]), out[f])
    return out


def lay_out(values: dict[str, str], fields: list[str], ok: bool, rng: random.Random) -> str:
    return format_line(values, fields) if ok else format_slip(values, fields, rng)


def whole(prompt: str, outcomes: list[bool], rng: random.Random) -> str:
    """All three steps on the prompt's record, with one outcome per step."""
    fields = fields_of(prompt)
    return lay_out(normalise(extract(record_of(prompt), fields, outcomes[0], rng), outcomes[1], rng), fields,
                   outcomes[2], rng)


def reparse(line: str, fields: list[str]) -> dict[str, str]:
    """Read a mis-laid line back into values by their look (what a fix has to go on)."""
    values: dict[str, str] = {}
    for part in filter(None, re.split(r"\s*[|;]\s*", line.strip())):
        if "@" in part:
            values.setdefault("email", NORMALISERS["email"](part))
        elif date_parts(part):
            values.setdefault("dob", norm_date(part))
        elif len(re.sub(r"\D", "", part)) >= 10:
            values.setdefault("phone", norm_phone(part))
        elif "name" not in values:
            values["name"] = norm_name(part)
        else:
            values.setdefault("city", title(part))
    return {f: values[f] for f in fields if f in values}
