"""Seeded bugs: single-line AST mutations of a real module's source, the rest of the file left byte for byte.

A candidate is one node on one line, changed by one of `KINDS`; the line is rewritten with the changed node
unparsed in place of its own text, so the diff is that line alone, and the true fix is the original line."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from dataclasses import dataclass

FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
        ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
OPERATOR = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
            ast.Mod: ast.FloorDiv, ast.LShift: ast.RShift, ast.RShift: ast.LShift, ast.BitAnd: ast.BitOr,
            ast.BitOr: ast.BitAnd}
KINDS = ("comparison", "constant", "negation", "operator", "boolean", "swap")


@dataclass(frozen=True)
class Mutation:
    file: str  # relative to the project's root, e.g. "email/utils.py"
    line: int  # 1-based
    kind: str
    original: str  # the line as the stdlib has it (no newline)
    mutated: str


def _variants(node: ast.AST) -> Iterator[tuple[str, ast.AST, ast.AST]]:
    """(kind, the node changed, its replacement) for each mutation this node admits."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in FLIP:
        yield "comparison", node, ast.Compare(node.left, [FLIP[type(node.ops[0])]()], node.comparators)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield "constant", node, ast.Constant(node.value + 1)
    elif isinstance(node, ast.If | ast.While | ast.IfExp):
        test = node.test
        yield "negation", test, test.operand if isinstance(test, ast.UnaryOp) and isinstance(
            test.op, ast.Not) else ast.UnaryOp(ast.Not(), test)
    elif isinstance(node, ast.BinOp) and type(node.op) in OPERATOR:
        yield "operator", node, ast.BinOp(node.left, OPERATOR[type(node.op)](), node.right)
    elif isinstance(node, ast.BoolOp):
        yield "boolean", node, ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)
    elif isinstance(node, ast.Call) and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args):
        yield "swap", node, ast.Call(node.func, [node.args[1], node.args[0], *node.args[2:]], node.keywords)


def candidates(path: str, source: str, rng: random.Random) -> Iterator[Mutation]:
    """Single-line mutations of `source` in a seeded order that takes the kinds in turn, each with its line new to
    the file (so that one search-and-replace edit fixes it); whether it parses is `parses`' to say."""
    lines = source.splitlines()
    by_kind: dict[str, list[tuple[ast.AST, ast.AST]]] = {}
    for parent in ast.walk(ast.parse(source)):
        for kind, node, new in _variants(parent):
            if node.lineno == node.end_lineno and node.lineno <= len(lines):
                by_kind.setdefault(kind, []).append((node, new))
    for group in by_kind.values():
        rng.shuffle(group)
    turns = [(kind, pair) for k in range(max(map(len, by_kind.values()), default=0))
             for kind, group in sorted(by_kind.items()) if k < len(group) for pair in [group[k]]]
    for kind, (node, new) in turns:
        raw = lines[node.lineno - 1].encode()
        segment = raw[node.col_offset:node.end_col_offset].decode(errors="replace")
        try:  # positions inside f-strings are unreliable: the segment must be the node itself
            if ast.dump(ast.parse(segment.strip(), mode="eval").body) != ast.dump(node):
                continue
        except SyntaxError:
            continue
        mutated = (raw[:node.col_offset].decode(errors="replace") + ast.unparse(ast.fix_missing_locations(new))
                   + raw[node.end_col_offset:].decode(errors="replace"))
        if mutated not in source and not mutated.strip().startswith("#") and len(mutated) <= 110:
            yield Mutation(path, node.lineno, kind, lines[node.lineno - 1], mutated)


def parses(source: str, m: Mutation) -> bool:
    """The mutated file parses, to another program than the original."""
    try:
        return ast.dump(ast.parse(apply(source, m))) != ast.dump(ast.parse(source))
    except SyntaxError:
        return False


def apply(source: str, m: Mutation) -> str:
    """The source with the mutation's line changed (line endings and the rest untouched)."""
    lines = source.splitlines(keepends=True)
    ending = lines[m.line - 1][len(m.original):]
    lines[m.line - 1] = m.mutated + ending
    return "".join(lines)
