# ruff: noqa: E501 — the table below is one line per module, however long its cases
"""The configuration of `bugfix`: the real stdlib modules it seeds bugs in, and the cases that test them.

`TABLE` is one line per module: the module the tests import (its top-level module or package is copied from the
running interpreter), then its case templates, separated by ` ; `. Adding a module is adding a line. A case is an
expression over the module; each `{name}` in a template is filled by `FILLS[name]` with a generated value (its
repr), drawn from a generator seeded by the module's name alone: the cases are fixed before any mutation is drawn.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from typing import Any

from benchmarks.tasks.codebase.catalogue import Catalogue

TABLE = r"""
textwrap: textwrap.wrap({t}, {p} + 3) ; textwrap.fill({t}, width={p} + 8) ; textwrap.shorten({t}, width={p} + 10) ; textwrap.dedent('  ' + {t} + '\n    ' + {t}) ; textwrap.indent({t} + '\n\n' + {t}, '> ') ; textwrap.wrap({t}, {p}, break_long_words=False)
colorsys: colorsys.rgb_to_hsv({u}, {u}, {u}) ; colorsys.hsv_to_rgb({u}, {u}, {u}) ; colorsys.rgb_to_hls({u}, {u}, {u}) ; colorsys.hls_to_rgb({u}, {u}, {u}) ; colorsys.rgb_to_yiq({u}, {u}, {u}) ; colorsys.yiq_to_rgb({u}, {u}, {u})
fractions: fractions.Fraction({i}, {p}) + fractions.Fraction({i}, {p}) ; fractions.Fraction({i}, {p}) * {i} - fractions.Fraction({i}, {p}) ; fractions.Fraction({dec}) ; fractions.Fraction({x}).limit_denominator({p} * 10) ; round(fractions.Fraction({i}, {p}), {n} % 3) ; fractions.Fraction({i}, {p}) // fractions.Fraction({p}, {i}) ; fractions.Fraction({i}, {p}) ** {i} ; fractions.Fraction({i}, {p}) < {x} ; divmod(fractions.Fraction({i}, {p}), {x})
statistics: statistics.mean({ints}) ; statistics.median({ints}) ; statistics.median_low({ints}) ; statistics.median_high({ints}) ; statistics.mode({ints}) ; statistics.pvariance({ints}) ; statistics.stdev({ints}) ; statistics.multimode({ints}) ; statistics.fmean({ints}) ; statistics.quantiles({ints}, n={p} + 1) ; statistics.harmonic_mean({pos}) ; statistics.median_grouped({ints}, {p}) ; statistics.correlation({pos}, {pos})
difflib: difflib.SequenceMatcher(None, {t}, {t}).ratio() ; difflib.SequenceMatcher(None, {t}, {t}).get_opcodes() ; list(difflib.unified_diff({lines}, {lines})) ; difflib.get_close_matches({w}, [{w}, {w}, {w}], n={p}) ; list(difflib.ndiff({lines}, {lines})) ; list(difflib.context_diff({lines}, {lines}, n={n} % 3)) ; difflib.SequenceMatcher(None, {w}, {w}).get_matching_blocks()
shlex: shlex.split({shell}) ; shlex.quote({w}) ; shlex.join([{w}, {w}, {shell}]) ; list(shlex.shlex({shell}, punctuation_chars=True)) ; shlex.split({shell}, comments=True)
calendar: calendar.monthrange({y}, {m}) ; calendar.leapdays({y}, {y}) ; calendar.weekday({y}, {m}, {d}) ; calendar.monthcalendar({y}, {m}) ; calendar.month({y}, {m}) ; calendar.TextCalendar({n} % 7).formatmonth({y}, {m}, {n} % 4) ; calendar.isleap({y}) ; calendar.timegm(({y}, {m}, {d}, {n}, {n}, {n}))
ipaddress: ipaddress.ip_address({ip4}) ; ipaddress.ip_network({ip4} + '/' + str({bits}), strict=False) ; list(ipaddress.ip_network({ip4} + '/29', strict=False).hosts()) ; ipaddress.ip_address({ip6}).compressed ; ipaddress.ip_interface({ip4} + '/' + str({bits})).network ; [n.is_private for n in ipaddress.ip_network({ip4} + '/' + str({bits}), strict=False).subnets()] ; list(ipaddress.summarize_address_range(ipaddress.ip_address({ip4}), ipaddress.ip_address({ip4}))) ; ipaddress.ip_address({ip6}).exploded
urllib.parse: urllib.parse.urlsplit({url}) ; urllib.parse.urlparse({url}) ; urllib.parse.urljoin({url}, {rel}) ; urllib.parse.quote({t}) ; urllib.parse.unquote({url}) ; urllib.parse.parse_qsl(urllib.parse.urlsplit({url}).query) ; urllib.parse.urlencode([({w}, {t})]) ; urllib.parse.urlunsplit(urllib.parse.urlsplit({url})) ; urllib.parse.quote_plus({t}, safe={w})
email.utils: email.utils.parseaddr({addr}) ; email.utils.getaddresses([{addr}, {addr}]) ; email.utils.parsedate_tz({date}) ; email.utils.formatdate({ts}) ; email.utils.formataddr(({w}, {w} + '@x.org')) ; email.utils.quote({t}) ; email.utils.unquote({w}) ; email.utils.format_datetime(email.utils.parsedate_to_datetime({date}))
_pydecimal: _pydecimal.Decimal({dec}) + _pydecimal.Decimal({dec}) ; _pydecimal.Decimal({dec}) * _pydecimal.Decimal({dec}) ; _pydecimal.Decimal({dec}) / _pydecimal.Decimal({dec}) ; _pydecimal.Decimal({dec}).sqrt() ; _pydecimal.Decimal({dec}).quantize(_pydecimal.Decimal('0.01')) ; str(_pydecimal.Decimal({dec}).normalize()) ; _pydecimal.Decimal({dec}).exp() ; divmod(_pydecimal.Decimal({dec}), _pydecimal.Decimal({dec})) ; _pydecimal.Decimal({x}).ln()
json: json.dumps({json}, indent={n} % 3, sort_keys=True) ; json.dumps({json}, ensure_ascii=False, indent=1) ; json.dumps({json}, separators=(',', ':'), indent=0) ; json.loads(json.dumps({json}))
tomllib: tomllib.loads({toml})
html: html.escape({chars}) ; html.unescape({ent}) ; html.escape({chars}, quote=False)
random: random.Random({n}).sample(range(40), {p}) ; random.Random({n}).randrange({i}, 60, {p}) ; random.Random({n}).choices('abcdef', k={p}) ; random.Random({n}).randint({i}, 40) ; (lambda r, xs: (r.shuffle(xs), xs)[1])(random.Random({n}), {ints}) ; random.Random({n}).gauss({x}, {p}) ; random.Random({n}).triangular({x}, 60) ; random.Random({n}).choice({ints}) ; random.Random({n}).expovariate({p}) ; random.Random({n}).vonmisesvariate({u}, {p})
fnmatch: fnmatch.translate({pat}) ; fnmatch.fnmatchcase({w}, {pat}) ; fnmatch.filter([{w}, {w}, {w}], {pat})
pprint: pprint.pformat({json}, width={p} * 8) ; pprint.pformat({json}, compact=True, width={p} * 6, depth={p}) ; pprint.saferepr({json}) ; pprint.pformat({json}, sort_dicts=False)
graphlib: list(graphlib.TopologicalSorter({graph}).static_order())
base64: base64.b32encode({bytes}) ; base64.b32hexencode({bytes}) ; base64.b85encode({bytes}) ; base64.a85encode({bytes}) ; base64.b16encode({bytes}) ; base64.urlsafe_b64encode({bytes}) ; base64.b32decode(base64.b32encode({bytes})) ; base64.a85decode(base64.a85encode({bytes}))
configparser: (lambda c: (c.read_string({ini}), [(s, list(c[s].items())) for s in c])[1])(configparser.ConfigParser())
"""
CASES = 30  # cases per module, the templates taken in turn
WORDS = ("alpha", "beta", "gamma", "delta", "river", "stone", "a", "to", "be", "x", "internationalization",
         "café", "naïve", "don't", "it's", "end.", "(note)", "well-known", "data", "", "--", "42", "3.14")


def _text(r: random.Random) -> str:
    return " ".join(r.choice(WORDS) for _ in range(r.randint(1, 14))) + r.choice(("", ".", "  ", "\n"))


def _ip6(r: random.Random) -> str:
    groups = [format(r.choice((0, 0, 0, 1, r.randrange(65536))), "x") for _ in range(8)]
    return ":".join(groups)


def _json(r: random.Random, depth: int = 0) -> Any:
    kind = r.randrange(7 if depth < 3 else 4)
    leaf = (r.randint(-99, 999), r.choice(WORDS), round(r.uniform(-9, 9), r.randint(0, 4)), r.choice((True, None)))
    if kind < 4:
        return leaf[kind]
    if kind < 6:
        return {r.choice(WORDS): _json(r, depth + 1) for _ in range(r.randint(0, 4))}
    return [_json(r, depth + 1) for _ in range(r.randint(0, 4))]


def _toml(r: random.Random) -> str:
    def value() -> str:
        return r.choice((str(r.randint(-999, 99999)), f'"{r.choice(WORDS)}"', str(round(r.uniform(-9, 9), 3)),
                         r.choice(("true", "false")), f"{r.randint(1970, 2030)}-0{r.randint(1, 9)}-1{r.randint(0, 9)}",
                         f"[{', '.join(str(r.randint(0, 9)) for _ in range(r.randint(0, 4)))}]", "0x1F", "1_000",
                         f"'{r.choice(WORDS)}'", "inf", "1e3", f'"tab\\t{r.choice(WORDS)}"'))
    lines = [f"k{i} = {value()}" for i in range(r.randint(1, 3))]
    for t in range(r.randint(0, 2)):
        lines += [r.choice((f"[t{t}]", f"[[a{t}]]", f"[t{t}.sub]"))] + [f"v{i} = {value()}" for i in range(2)]
    return "\n".join(lines) + "\n"


def _graph(r: random.Random) -> dict[int, list[int]]:
    return {n: r.sample(range(n), r.randint(0, min(n, 3))) for n in r.sample(range(8), r.randint(1, 8))}


FILLS: dict[str, Callable[[random.Random], Any]] = {
    "u": lambda r: round(r.random(), 2), "x": lambda r: round(r.uniform(-50, 50), 1),
    "i": lambda r: r.randint(-30, 30), "n": lambda r: r.randint(0, 12), "p": lambda r: r.randint(1, 9),
    "w": lambda r: r.choice(WORDS), "t": _text, "y": lambda r: r.randint(1890, 2110),
    "m": lambda r: r.randint(1, 12), "d": lambda r: r.randint(1, 28), "ts": lambda r: r.randint(0, 2 * 10**9),
    "ints": lambda r: [r.randint(-20, 40) for _ in range(r.randint(2, 8))],
    "pos": lambda r: [r.randint(1, 50) for _ in range(r.randint(2, 7))],
    "dec": lambda r: f"{r.randint(-9999, 9999)}.{r.randint(0, 999):03d}" + r.choice(("", "", "E3", "e-5")),
    "ip4": lambda r: ".".join(str(r.choice((0, 10, 127, 192, 255, r.randrange(256)))) for _ in range(4)),
    "ip6": _ip6, "bits": lambda r: r.randint(8, 30), "json": _json, "toml": _toml,
    "url": lambda r: (f"{r.choice(('http', 'https', 'ftp', 'file', ''))}://"
                      f"{r.choice(('ex.com', 'a.b:8080', 'u:p@h', ''))}"
                      f"/{r.choice(WORDS)}/{r.choice(('x;p', 'a%20b', '', '..'))}?{r.choice(('q=1&r=2', 'a=b=c', ''))}"
                      f"{r.choice(('#frag', ''))}"),
    "rel": lambda r: r.choice(("../a/b", "g?y", "#s", "//h/p", "./x/../y", "", "/abs;p?q", "g:h")),
    "pat": lambda r: "".join(r.choice(("*", "?", "[a-c]", "[!x]", "a", ".", "[]]", "\\", "b")) for _ in range(4)),
    "shell": lambda r: " ".join(r.choice(("a", "'b c'", '"d \\" e"', "f\\ g", "#h", "i;j", "'", "k|l", "$m"))
                                for _ in range(r.randint(1, 5))),
    "addr": lambda r: r.choice(("", '"Doe, J." ', "Ann ", "=?utf-8?q?J=C3=B6rg?= ")) + r.choice(
        ("<a@b.c>", "x@y.org", "<@route:u@h>", "bad@", "u.v@[1.2.3.4]", "(c) me@h")),
    "date": lambda r: f"{r.choice(('Mon, ', ''))}{r.randint(1, 31)} {r.choice(('Jan', 'Feb', 'Dec', 'Foo'))} "
                      f"{r.choice(('99', '2024', '1970'))} {r.randint(0, 23)}:{r.randint(0, 59):02d}"
                      f"{r.choice((':07', ''))} {r.choice(('+0100', '-0830', 'GMT', 'EST', ''))}",
    "graph": _graph, "bytes": lambda r: bytes(r.randrange(256) for _ in range(r.randint(0, 12))),
    "lines": lambda r: [r.choice(WORDS[:8]) + "\n" for _ in range(r.randint(0, 6))],
    "ini": lambda r: "".join(f"[{s}]\n" + "".join(f"{r.choice(WORDS[:6])}{r.choice(('=', ': ', ' = '))}"
                             f"{r.choice(WORDS)}\n" for _ in range(r.randint(0, 3))) for s in ("s1", "DEFAULT", "s2")),
    "chars": lambda r: "".join(r.choice(string.printable[:70] + "&<>\"'") for _ in range(r.randint(0, 12))),
    "ent": lambda r: "".join(r.choice(("&amp;", "&lt", "&#62;", "&#x41;", "&notit;", "a", "&#0;", "&eacute"))
                             for _ in range(3)),
}


_FILL = re.compile(r"\{(\w+)\}")


def cases(module: str, templates: list[str], count: int = CASES) -> tuple[str, ...]:
    """A module's cases: its templates in turn, filled from a generator seeded by the module's name."""
    rng = random.Random(f"bugfix-cases:{module}")
    return tuple(_FILL.sub(lambda m: repr(FILLS[m.group(1)](rng)), templates[k % len(templates)]) for k in range(count))


def targets() -> tuple[tuple[str, tuple[str, ...]], ...]:
    rows = [line.split(": ", 1) for line in TABLE.strip().splitlines()]
    return tuple((module, cases(module, templates.split(" ; "))) for module, templates in rows)


CATALOGUE = Catalogue("bugfix", targets(), keep=8, tries=48)
