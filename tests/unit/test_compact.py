"""Small copies of kept expressions: the same chains and call references as the parser's
nodes, and the same index, with no call arguments or literal tables kept."""

from __future__ import annotations

import ast
import hashlib
import sysconfig
from pathlib import Path

import pytest

from citeloop.knowledge.indexing.blocks import iter_blocks
from citeloop.knowledge.indexing.chains import dotted, expression_chain
from citeloop.knowledge.indexing.compact import UNKNOWN, Compactor
from citeloop.knowledge.indexing.python_index import index_python
from citeloop.knowledge.indexing.references import call_reference
from citeloop.knowledge.indexing.scopes import Bindings, Scope

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SAMPLE = [
    "argparse.py",
    "typing.py",
    "dataclasses.py",
    "email/_header_value_parser.py",
    "asyncio/base_events.py",
    "unittest/mock.py",
    "tarfile.py",
    "pydoc.py",
]
"""Standard-library files of many shapes (large literal tables, fluent calls, casts)."""

SHAPES = ["m.{}()", "*m.{}()", "#0:m.{}()|#1:m.B()", "m.{}", "m.A()|m.{}()", None]
"""What a name may resolve to: an instance, an iterable, a pair, a class, a union, unknown."""


def lookup_for(seed: int):
    """A deterministic lookup giving each name one of :data:`SHAPES` by its digest."""

    def lookup(name: str) -> str | None:
        digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()[0]
        shape = SHAPES[digest % len(SHAPES)]
        return None if shape is None else shape.format(name)

    return lookup


def annotate(node: ast.expr) -> str | None:
    parts = dotted(node)
    return ".".join(parts) + "()" if parts else None


def sample_trees():
    for name in SAMPLE:
        path = STDLIB / name
        if path.exists():
            yield name, path.read_text(encoding="utf-8")


def test_a_literal_table_is_kept_as_unknown():
    table = ast.parse("[(1, 'a', 1.5, None), (2, 'b', 2.5, None)]", mode="eval").body
    mapping = ast.parse("{'a': 1, 'b': (2, 3)}", mode="eval").body
    compactor = Compactor()
    assert compactor.value(table) is UNKNOWN
    assert compactor.value(mapping) is UNKNOWN
    assert compactor.value(ast.parse("1 if x else 'a'", mode="eval").body) is UNKNOWN


def test_a_call_keeps_no_arguments_except_those_of_cast_and_super():
    compactor = Compactor()
    call = ast.parse("Client(*range(10**6), key=[1, 2, 3])", mode="eval").body
    copy = compactor.value(call)
    assert isinstance(copy, ast.Call) and copy.args == [] and copy.keywords == []
    cast = compactor.value(ast.parse("cast(Dict[str, Foo], load())", mode="eval").body)
    assert isinstance(cast, ast.Call) and len(cast.args) == 2
    assert ast.dump(cast.args[0]) == ast.dump(ast.parse("Dict[str, Foo]", mode="eval").body)
    callee = compactor.callee(ast.parse("super(Base, self).run(1, 2)", mode="eval").body)
    assert ast.dump(callee) == (
        "Attribute(value=Call(func=Name(id='super'), args=[Name(id='Base')], keywords=[]), "
        "attr='run')"
    )


def test_a_method_chain_shares_one_copy_of_its_spine():
    compactor = Compactor()
    outer = ast.parse("a().b().c()", mode="eval").body
    inner = outer.func.value  # a().b()
    copy = compactor.callee(outer)
    assert compactor.callee(inner) is copy.value.func
    compactor.forget()
    assert compactor.callee(inner) is not copy.value.func


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_copies_have_the_chains_of_the_originals(seed):
    lookup = lookup_for(seed)
    compared = 0
    for name, source in sample_trees():
        compactor = Compactor()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.expr):
                continue
            for depth in (0, 2, 4):
                copy = compactor.value(node, depth)
                expected = expression_chain(node, lookup, annotate, depth)
                assert expression_chain(copy, lookup, annotate, depth) == expected, (
                    name,
                    ast.unparse(node)[:200],
                )
                compared += 1
    assert compared > 100_000


def test_copies_give_the_call_references_of_the_originals():
    bindings = Bindings("m")
    method = Scope("function", "m.C.f", bindings.module, "m.C")
    bindings.bind(method, "self", 1, "chain", "m.C()")
    lookup = lookup_for(3)
    compared = 0
    for name, source in sample_trees():
        tree = ast.parse(source)
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        bindings.imports = {n: chain for n in names if (chain := lookup(n)) is not None}
        compactor = Compactor()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                line, end = node.lineno, node.end_lineno or node.lineno
                for shadow in (frozenset(), frozenset({"x", "self"})):
                    copy = compactor.callee(node)
                    got = call_reference(bindings, "m.C.f", method, copy, line, end, shadow)
                    want = call_reference(bindings, "m.C.f", method, node.func, line, end, shadow)
                    assert got == want, (name, ast.unparse(node)[:200])
                    compared += 1
    assert compared > 5_000


def test_the_index_is_the_same_as_with_the_parsers_nodes(monkeypatch):
    """The index of each sample file, walked whole and in blocks, with small copies, is
    the index made from the parser's own nodes."""
    indexes = {}
    for name, source in sample_trees():
        indexes[name] = [
            index_python(name, "d", source, "m"),
            index_python(name, "d", source, "m", tree=iter_blocks(source, name, 4096)),
        ]
    monkeypatch.setattr(Compactor, "value", lambda self, node, depth=0: node)
    monkeypatch.setattr(Compactor, "callee", lambda self, node: node.func)
    assert len(indexes) >= 6
    for name, source in sample_trees():
        original = index_python(name, "d", source, "m")
        for index in indexes[name]:
            assert index.entities == original.entities, name
            assert index.facts == original.facts, name
            assert index.references == original.references, name
            assert index.types == original.types and index.aliases == original.aliases, name
