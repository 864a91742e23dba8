"""Evidence from the knowledge graph and from JSONL documents; contract files."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from citeloop.contract import audit_payload, codes, graph_evidence
from citeloop.contract.evidence_files import (
    evidence_from_jsonl,
    file_version,
    load_index,
    load_model,
)
from citeloop.contract.graph_evidence import (
    MAX_SIGNATURE_CHARS,
    MAX_SOURCE_LINE_CHARS,
    MAX_SOURCE_LINES,
    MAX_UNIT_DOCSTRING_CHARS,
    MAX_UNIT_TEXT_CHARS,
    SOURCE_CHANGED,
    SOURCE_MISSING,
    SOURCE_OUTSIDE_ROOT,
    SOURCE_UNREADABLE,
    evidence_from_graph,
    fact_unit,
    read_source,
)
from citeloop.contract.mechanical import mechanical_checks
from citeloop.contract.schemas import AnswerResult, EvidenceIndex, EvidenceUnit, Plan
from citeloop.errors import ConfigurationError
from citeloop.knowledge import (
    Entity,
    EntityKind,
    EntityRef,
    Fact,
    MemoryGraphStore,
    Provenance,
    RelationKind,
    SqliteGraphStore,
    index_tree,
)
from tests.reindex import indexed_module, re_indexed_on_first_call

DEFINES, CALLS = RelationKind.DEFINES, RelationKind.CALLS
DIGEST = "ab" * 32


def provenance(start: int, end: int) -> Provenance:
    return Provenance("shop/checkout.py", start, end, DIGEST)


ENTITIES = [
    Entity("shop.checkout", EntityKind.MODULE, "checkout", "shop/checkout.py", 1),
    Entity("shop.checkout.Checkout", EntityKind.CLASS, "Checkout", "shop/checkout.py", 3),
    Entity("shop.checkout.Checkout.pay", EntityKind.METHOD, "pay", "shop/checkout.py", 5),
    Entity("shop.checkout.charge", EntityKind.FUNCTION, "charge", "shop/checkout.py", 9),
    Entity("?len", EntityKind.FUNCTION, "len", resolved=False),
]
MODULE_DEFINES = Fact("shop.checkout", DEFINES, "shop.checkout.Checkout", provenance(3, 7))
CLASS_DEFINES = Fact(
    "shop.checkout.Checkout", DEFINES, "shop.checkout.Checkout.pay", provenance(5, 6)
)
PAY_CALLS = Fact("shop.checkout.Checkout.pay", CALLS, "shop.checkout.charge", provenance(6, 6))
CHARGE_CALLS = Fact("shop.checkout.charge", CALLS, "?len")  # no provenance
GHOST = Fact("shop.checkout.charge", CALLS, "shop.gone.refund")  # an object not in the store
FACTS = [MODULE_DEFINES, CLASS_DEFINES, PAY_CALLS, CHARGE_CALLS, GHOST]


@pytest.fixture
def shop() -> MemoryGraphStore:
    return MemoryGraphStore(ENTITIES, FACTS)


class CountingStore:
    """A GraphStore that counts the calls that walk the graph."""

    def __init__(self, store: MemoryGraphStore) -> None:
        self.store = store
        self.facts_of_calls: list[str] = []
        self.all_entities_calls = 0

    def get_entity(self, entity_id):
        return self.store.get_entity(entity_id)

    def facts_of(self, entity_id, relations=None):
        self.facts_of_calls.append(entity_id)
        return self.store.facts_of(entity_id, relations)

    def all_entities(self):
        self.all_entities_calls += 1
        return self.store.all_entities()

    def snapshot(self):
        return self.store.snapshot()


# --- the knowledge graph ------------------------------------------------------------------


def test_every_fact_becomes_a_unit(shop):
    index = evidence_from_graph(shop)
    assert index.version == shop.snapshot()
    assert list(index.units) == sorted(fact.fact_id for fact in FACTS)
    unit = index.units[CLASS_DEFINES.fact_id]
    assert unit == EvidenceUnit(
        id=CLASS_DEFINES.fact_id,
        source="shop/checkout.py:5-6",
        text="class Checkout defines method Checkout.pay",
        attributes={
            "subject": "Checkout",
            "subject_id": "shop.checkout.Checkout",
            "relation": "defines",
            "object": "pay",
            "object_id": "shop.checkout.Checkout.pay",
            "path": "shop/checkout.py",
            "lines": "5-6",
            "digest": DIGEST,
        },
    )


def test_units_read_like_the_path_narratives(shop):
    index = evidence_from_graph(shop)
    texts = {fact_id: unit.text for fact_id, unit in index.units.items()}
    assert texts[MODULE_DEFINES.fact_id] == "module checkout defines class Checkout"
    assert texts[PAY_CALLS.fact_id] == "method Checkout.pay calls function charge"
    assert texts[CHARGE_CALLS.fact_id] == "function charge calls len"  # unresolved: no kind guessed
    assert texts[GHOST.fact_id] == "function charge calls shop.gone.refund"


def test_one_line_provenance_and_no_provenance(shop):
    index = evidence_from_graph(shop)
    one_line = index.units[PAY_CALLS.fact_id]
    assert one_line.source == "shop/checkout.py:6"
    assert one_line.attributes["lines"] == "6"
    bare = index.units[CHARGE_CALLS.fact_id]
    assert bare.source == "shop.checkout.charge"  # the subject's id
    assert not {"path", "lines", "digest"} & set(bare.attributes)
    assert bare.attributes["object"] == "len"


def test_restricted_to_facts_touching_entities(shop):
    counting = CountingStore(shop)
    index = evidence_from_graph(counting, entity_ids=["shop.checkout.charge"])  # type: ignore[arg-type]
    assert set(index.units) == {PAY_CALLS.fact_id, CHARGE_CALLS.fact_id, GHOST.fact_id}
    assert counting.all_entities_calls == 0
    assert counting.facts_of_calls == ["shop.checkout.charge"]
    assert index.version == shop.snapshot()


def test_a_re_index_while_the_facts_are_read_gives_one_version(tmp_path, monkeypatch):
    """Another process re-indexes the graph file (a function added) between the reads of
    the facts and of their ends: the index is read again, of the graph as it is now."""
    tree, db = indexed_module(tmp_path, "def helper():\n    return 1\n")
    with SqliteGraphStore(db, read_only=True) as store:
        edits: list[bool] = []
        code = "def helper():\n    return 1\n\n\ndef caller():\n    return helper()\n"
        re_index_first = re_indexed_on_first_call(store.get_entities, tree, db, code, edits)
        monkeypatch.setattr(store, "get_entities", re_index_first)
        index = evidence_from_graph(store, source_root=tree)
    assert edits, "the re-index ran while the facts were read"
    with SqliteGraphStore(db, read_only=True) as now:
        assert index == evidence_from_graph(now, source_root=tree)
        assert index.version == now.snapshot()
    assert any("caller" in unit.text for unit in index.units.values())


def test_restricted_to_fact_ids(shop):
    index = evidence_from_graph(shop, [PAY_CALLS.fact_id, MODULE_DEFINES.fact_id])
    assert list(index.units) == sorted([PAY_CALLS.fact_id, MODULE_DEFINES.fact_id])
    assert evidence_from_graph(shop, []).units == {}


def test_fact_ids_stop_the_walk_once_found(shop):
    counting = CountingStore(shop)
    evidence_from_graph(counting, [MODULE_DEFINES.fact_id])  # type: ignore[arg-type]
    # Entities in id order: "?len" first, then the module, whose facts hold the fact.
    assert counting.facts_of_calls == ["?len", "shop.checkout"]


def test_fact_ids_and_entity_ids_together(shop):
    index = evidence_from_graph(
        shop, [PAY_CALLS.fact_id], entity_ids=["shop.checkout.Checkout.pay"]
    )
    assert list(index.units) == [PAY_CALLS.fact_id]
    with pytest.raises(ConfigurationError, match="among the facts of entity_ids"):
        evidence_from_graph(shop, [MODULE_DEFINES.fact_id], entity_ids=["shop.checkout.charge"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fact_ids": ["f-0000000000000000"]}, "no fact with id 'f-0000000000000000' in the graph"),
        ({"entity_ids": ["shop.nothing"]}, "no entity with id 'shop.nothing'"),
        ({"fact_ids": "f-0000000000000000"}, "a list of ids, not the string"),
        ({"entity_ids": ["ok", ""]}, "non-empty strings"),
    ],
    ids=["unknown-fact", "unknown-entity", "string", "empty-id"],
)
def test_graph_errors(shop, kwargs, message):
    with pytest.raises(ConfigurationError, match=message):
        evidence_from_graph(shop, **kwargs)


def test_fact_unit_directly():
    unit = fact_unit(
        Fact("a.A", RelationKind.INHERITS, "b.B"),
        EntityRef("class", "A", "a.A"),
        EntityRef("class", "B", "b.B"),
    )
    assert (unit.source, unit.text) == ("a.A", "class A inherits class B")


def test_graph_evidence_from_the_sample_repository(sample_repo, store):
    index_tree(sample_repo, store)
    index = evidence_from_graph(store)
    assert index.version == store.snapshot()
    assert len(index.units) == store.stats()["facts"]
    circle = store.entities_named("Circle")[0]
    own = evidence_from_graph(store, entity_ids=[circle.id])
    assert own.units and set(own.units) <= set(index.units)
    defines = [
        unit
        for unit in own.units.values()
        if unit.attributes["relation"] == "defines" and unit.attributes["subject"] == "Circle"
    ]
    assert {unit.attributes["object"] for unit in defines} >= {"area", "label"}
    area = next(unit for unit in defines if unit.attributes["object"] == "area")
    assert area.text.splitlines()[0] == "class Circle defines method Circle.area"
    assert "- class Circle\n  signature: (Shape)\n" in area.text
    assert "- method Circle.area\n  signature: (self)" in area.text
    assert "- source" not in area.text  # no source_root: no source lines
    assert area.source.startswith("shapes/circle.py:")
    digest = hashlib.sha256((sample_repo / "shapes" / "circle.py").read_bytes()).hexdigest()
    assert area.attributes["digest"] == digest

    # A result made from this graph passes; after the graph changes it is a mixed snapshot.
    result = AnswerResult(
        answer=f"Circle defines area ({area.source}).",
        evidence=[area],
        claims=[],
        source_urls=[area.source],
        index_version=index.version,
    )
    plan = Plan(question="What does Circle define?", resolved_question="Circle?")
    assert mechanical_checks(result, plan, own) == []
    (sample_repo / "shapes" / "extra.py").write_text("def extra():\n    return 1\n")
    index_tree(sample_repo, store)
    changed = evidence_from_graph(store, entity_ids=[circle.id])
    assert changed.version != index.version
    assert [(f.layer, f.code) for f in mechanical_checks(result, plan, changed)] == [
        codes.MIXED_SNAPSHOT
    ]


# --- substance: signatures, docstrings, source lines ------------------------------------

BILLING = '''"""Billing."""


def charge(amount: int, currency: str = "EUR") -> bool:
    """Charge the card.

    Refuses a negative amount.
    """
    if amount < 0:
        raise ValueError("negative amount")
    return True
'''


def long_function(steps: int) -> str:
    """A function of ``steps + 5`` lines; its third line is 400 characters wide."""
    body = "".join(f"    total += {i}  # step {i}\n" for i in range(steps))
    wide = "    note = " + repr("x" * 400) + "\n"
    return f'def tally():\n    """Add it all up."""\n{wide}    total = 0\n{body}    return total\n'


@pytest.fixture
def billing(tmp_path):
    """A small source tree, indexed with the project's indexer: ``(root, store)``."""
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "billing.py").write_text(BILLING)
    (root / "pkg" / "tally.py").write_text(long_function(200))
    wide = "".join(f"    w{i} = {'y' * 290!r}\n" for i in range(50))
    (root / "pkg" / "wide.py").write_text(f"def wide():\n{wide}    return w0\n")
    with SqliteGraphStore(tmp_path / "graph.db") as store:
        index_tree(root, store)
        yield root, store


def defines_unit(index: EvidenceIndex, object_id: str) -> EvidenceUnit:
    return next(
        unit
        for unit in index.units.values()
        if unit.attributes["relation"] == "defines" and unit.attributes["object_id"] == object_id
    )


def test_graph_units_show_signature_docstring_and_body(billing):
    root, store = billing
    index = evidence_from_graph(store, entity_ids=["pkg.billing.charge"], source_root=root)
    charge = defines_unit(index, "pkg.billing.charge")
    assert charge.source == "pkg/billing.py:4-11"
    assert charge.text == "\n".join(
        [
            "module billing defines function charge",
            "- module billing",
            "  docstring: Billing.",
            "- function charge",
            '  signature: (amount: int, currency: str = "EUR") -> bool',
            "  docstring: Charge the card.",
            "",
            "    Refuses a negative amount.",
            "- source pkg/billing.py:4-11",
            '   4 | def charge(amount: int, currency: str = "EUR") -> bool:',
            '   5 |     """Charge the card.',
            "   6 |",
            "   7 |     Refuses a negative amount.",
            '   8 |     """',
            "   9 |     if amount < 0:",
            '  10 |         raise ValueError("negative amount")',
            "  11 |     return True",
        ]
    )
    # A call shows its own line (the behaviour), with the caller's signature.
    calls = next(u for u in index.units.values() if u.attributes["relation"] == "calls")
    assert calls.text.endswith(
        '- source pkg/billing.py:10\n  10 |         raise ValueError("negative amount")'
    )
    # Ids, attributes and version do not depend on the source root.
    bare = evidence_from_graph(store, entity_ids=["pkg.billing.charge"])
    assert bare.version == index.version and list(bare.units) == list(index.units)
    assert all(bare.units[i].attributes == u.attributes for i, u in index.units.items())
    assert "- source" not in bare.units[charge.id].text
    assert "signature: (amount: int" in bare.units[charge.id].text
    assert evidence_from_graph(store, entity_ids=["pkg.billing.charge"], source_root=root) == index


def test_graph_unit_source_lines_are_bounded(billing):
    root, store = billing
    index = evidence_from_graph(store, entity_ids=["pkg.tally.tally"], source_root=root)
    tally = defines_unit(index, "pkg.tally.tally")
    lines = tally.text.splitlines()
    numbered = [line for line in lines if " | " in line]
    total = 200 + 5  # def, docstring, note, total = 0, 200 steps, return
    assert 0 < len(numbered) <= MAX_SOURCE_LINES
    assert lines[-1] == f"  … ({total - len(numbered)} more lines)"
    assert numbered[0] == "    1 | def tally():"
    wide = numbered[2]
    assert wide.endswith("…") and len(wide) == len("    3 | ") + MAX_SOURCE_LINE_CHARS
    assert len(tally.text) <= MAX_UNIT_TEXT_CHARS <= audit_payload.MAX_TEXT_CHARS
    # Wide lines: the character budget stops them before the line count does.
    index = evidence_from_graph(store, entity_ids=["pkg.wide.wide"], source_root=root)
    wide = defines_unit(index, "pkg.wide.wide").text
    numbered = [line for line in wide.splitlines() if " | " in line]
    assert 0 < len(numbered) < MAX_SOURCE_LINES
    assert wide.endswith(f"  … ({52 - len(numbered)} more lines)")
    assert MAX_UNIT_TEXT_CHARS - 200 < len(wide) <= MAX_UNIT_TEXT_CHARS


def test_graph_unit_docstrings_and_signatures_are_bounded():
    docstring = "\n".join(f"Line {i} of a long story." for i in range(100))
    function = Entity(
        "m.f", EntityKind.FUNCTION, "f", signature="(" + "a, " * 200 + ")", docstring=docstring
    )
    store = MemoryGraphStore(
        [Entity("m", EntityKind.MODULE, "m"), function], [Fact("m", DEFINES, "m.f")]
    )
    text = next(iter(evidence_from_graph(store).units.values())).text
    signature = next(line for line in text.splitlines() if "signature:" in line)
    assert signature.endswith("…")
    assert len(signature) == len("  signature: ") + MAX_SIGNATURE_CHARS
    shown = [line.split(": ", 1)[-1].strip() for line in text.splitlines() if "Line " in line]
    assert 0 < len(shown) < 100
    assert sum(len(line) + 1 for line in shown) <= MAX_UNIT_DOCSTRING_CHARS
    assert text.endswith(f"    … ({100 - len(shown)} more lines)")


def test_graph_units_give_no_lines_when_the_file_changed_after_indexing(billing):
    root, store = billing
    path = root / "pkg" / "billing.py"
    path.write_text(BILLING.replace("return True", "return False"))  # same lines, new bytes
    index = evidence_from_graph(store, entity_ids=["pkg.billing.charge"], source_root=root)
    charge = defines_unit(index, "pkg.billing.charge")
    assert charge.text.endswith(f"- source pkg/billing.py:4-11 {SOURCE_CHANGED}")
    assert " | " not in charge.text and "return" not in charge.text
    assert "signature: (amount: int" in charge.text  # what the graph holds stays
    path.unlink()
    gone = evidence_from_graph(store, entity_ids=["pkg.billing.charge"], source_root=root)
    assert defines_unit(gone, "pkg.billing.charge").text.endswith(f"4-11 {SOURCE_MISSING}")


def test_graph_units_read_each_file_once(billing, monkeypatch):
    root, store = billing
    read: list[str] = []

    def counting(root_path, path):
        read.append(path)
        return read_source(root_path, path)

    monkeypatch.setattr(graph_evidence, "read_source", counting)
    index = evidence_from_graph(store, source_root=root)
    assert len(index.units) == 4  # two of them from pkg/billing.py
    assert sorted(read) == ["pkg/billing.py", "pkg/tally.py", "pkg/wide.py"]


def test_graph_units_never_read_outside_the_root(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 'sk-outside'\n")
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    (root / "link.py").symlink_to(secret)
    paths = ["../secret.py", str(secret), "link.py", "sub/../../secret.py"]
    facts = [
        Fact("m", DEFINES, f"m.x{i}", Provenance(path, 1, 1, digest))
        for i, path in enumerate(paths)
    ]
    store = MemoryGraphStore([Entity("m", EntityKind.MODULE, "m")], facts)
    index = evidence_from_graph(store, source_root=root)
    assert len(index.units) == len(paths)
    for unit in index.units.values():
        assert unit.text.endswith(SOURCE_OUTSIDE_ROOT), unit.text
        assert "sk-outside" not in unit.text


def test_graph_source_root_must_be_a_directory(shop, tmp_path):
    with pytest.raises(ConfigurationError, match=r"source_root .* does not exist"):
        evidence_from_graph(shop, source_root=tmp_path / "nowhere")
    (tmp_path / "file.py").write_text("")
    with pytest.raises(ConfigurationError, match=r"source_root .* is not a directory"):
        evidence_from_graph(shop, source_root=tmp_path / "file.py")


def test_read_source_refuses_what_is_not_a_regular_file(tmp_path):
    root = tmp_path.resolve()
    (root / "folder.py").mkdir()
    assert read_source(root, "folder.py").problem == SOURCE_MISSING
    assert read_source(root, "absent.py").problem == SOURCE_MISSING
    os.mkfifo(root / "pipe.py")  # opened without blocking, then refused
    assert read_source(root, "pipe.py").problem == SOURCE_MISSING
    (root / "bad.py").write_bytes(b"# -*- coding: nonexistent -*-\nx = 1\n")
    bad = read_source(root, "bad.py")
    assert (bad.problem, bad.lines) == (SOURCE_UNREADABLE, ())
    (root / "crlf.py").write_bytes(b"a = 1\r\nb = 2\rc = 3\n")
    assert read_source(root, "crlf.py").lines == ("a = 1", "b = 2", "c = 3", "")


# --- JSONL documents ----------------------------------------------------------------------

DOCUMENTS = [
    {"id": "d1", "source": "https://a.org/1", "text": "One.", "attributes": {"subject": "A"}},
    {"id": "d2", "source": "https://a.org/2", "text": ""},
    {"id": "d3", "source": "notes.txt:4", "text": "Three.", "attributes": None},
]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_jsonl_documents(tmp_path):
    path = write_lines(
        tmp_path / "docs.jsonl",
        [json.dumps(DOCUMENTS[0]), "", "   ", json.dumps(DOCUMENTS[1]), json.dumps(DOCUMENTS[2])],
    )
    index = evidence_from_jsonl(path)
    assert list(index.units) == ["d1", "d2", "d3"]
    assert index.units["d1"].attributes == {"subject": "A"}
    assert index.units["d2"].text == ""
    assert index.units["d3"].attributes == {}
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert index.version == f"d-{digest[:16]}" == file_version(path.read_bytes())
    assert evidence_from_jsonl(str(path)) == index


def test_jsonl_version_follows_the_bytes(tmp_path):
    one = write_lines(tmp_path / "one.jsonl", [json.dumps(DOCUMENTS[0])])
    two = write_lines(tmp_path / "two.jsonl", [json.dumps(DOCUMENTS[0], indent=None) + " "])
    assert evidence_from_jsonl(one).version != evidence_from_jsonl(two).version
    assert evidence_from_jsonl(one).units == evidence_from_jsonl(two).units


def test_jsonl_with_a_byte_order_mark_and_crlf(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(DOCUMENTS[0]).encode() + b"\r\n")
    assert list(evidence_from_jsonl(path).units) == ["d1"]


@pytest.mark.parametrize("data", [b"", b"\n  \r\n\n", b"\xef\xbb\xbf\n"])
def test_a_jsonl_file_without_documents_is_refused(tmp_path, data):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(data)
    message = r"the evidence file '.*empty\.jsonl' holds no documents .*one JSON object per line"
    with pytest.raises(ConfigurationError, match=message):
        evidence_from_jsonl(path)
    with pytest.raises(ConfigurationError, match=message):
        load_index(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"docs\.jsonl:2: not valid JSON \(.*column 2\)"),
        ("[1, 2]", r"docs\.jsonl:2: a document must be a JSON object"),
        ('{"source": "s", "text": "t"}', r"docs\.jsonl:2: field 'id' is missing"),
        ('{"id": "x", "text": "t"}', r"docs\.jsonl:2: field 'source' is missing"),
        ('{"id": "x", "source": "s"}', r"docs\.jsonl:2: field 'text' is missing"),
        ('{"id": 7, "source": "s", "text": "t"}', r"docs\.jsonl:2: field 'id' must be a string"),
        ('{"id": " ", "source": "s", "text": "t"}', r"docs\.jsonl:2: field 'id' must not be"),
        ('{"id": "x", "source": "", "text": "t"}', r"docs\.jsonl:2: field 'source' must not"),
        ('{"id": "x", "source": "s", "text": null}', r"docs\.jsonl:2: field 'text' must be"),
        (
            '{"id": "x", "source": "s", "text": "t", "attributes": ["a"]}',
            r"docs\.jsonl:2: field 'attributes' must be an object of strings",
        ),
        (
            '{"id": "x", "source": "s", "text": "t", "attributes": {"date": 2020}}',
            r"docs\.jsonl:2: field 'attributes\.date' must be a string, got 2020",
        ),
        (
            '{"id": "x", "source": "s", "text": "t", "title": "T"}',
            r"docs\.jsonl:2: unknown field 'title'",
        ),
        (
            '{"id": "d1", "source": "s", "text": "t"}',
            r"docs\.jsonl:2: field 'id' repeats 'd1', already used on line 1",
        ),
    ],
    ids=[
        "json",
        "not-object",
        "no-id",
        "no-source",
        "no-text",
        "id-type",
        "blank-id",
        "empty-source",
        "text-null",
        "attributes-type",
        "attribute-value",
        "unknown-field",
        "duplicate-id",
    ],
)
def test_jsonl_errors_name_the_file_line_and_field(tmp_path, line, message):
    path = write_lines(tmp_path / "docs.jsonl", [json.dumps(DOCUMENTS[0]), line])
    with pytest.raises(ConfigurationError, match=message):
        evidence_from_jsonl(path)


def test_jsonl_line_numbers_count_blank_lines(tmp_path):
    path = write_lines(tmp_path / "docs.jsonl", [json.dumps(DOCUMENTS[0]), "", "", "oops"])
    with pytest.raises(ConfigurationError, match=r"docs\.jsonl:4: not valid JSON"):
        evidence_from_jsonl(path)


def test_jsonl_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes(json.dumps(DOCUMENTS[0]).encode() + b'\n{"id": "caf\xe9"}\n')
    with pytest.raises(ConfigurationError, match=r"latin\.jsonl:2: not UTF-8"):
        evidence_from_jsonl(path)


def test_a_missing_or_unreadable_file_is_named(tmp_path):
    with pytest.raises(ConfigurationError, match=r"the evidence file '.*nothing\.jsonl' does not"):
        evidence_from_jsonl(tmp_path / "nothing.jsonl")
    with pytest.raises(ConfigurationError, match="is a directory"):
        evidence_from_jsonl(tmp_path)


def test_deeply_nested_json_is_an_error_not_a_crash(tmp_path):
    path = write_lines(tmp_path / "deep.jsonl", ["[" * 100_000 + "]" * 100_000])
    with pytest.raises(ConfigurationError, match=r"deep\.jsonl:1: not valid JSON"):
        evidence_from_jsonl(path)


# --- contract files -----------------------------------------------------------------------


def test_load_model_reads_a_plan_a_result_and_an_index(tmp_path):
    plan = Plan(question="Q?", resolved_question="Q?", required_subjects=["A"])
    result = AnswerResult(answer="A.", index_version="v1")
    index = EvidenceIndex(
        version="v1", units={"e1": EvidenceUnit(id="e1", source="https://a.org", text="A.")}
    )
    for name, model in (("plan.json", plan), ("result.json", result), ("index.json", index)):
        (tmp_path / name).write_text(model.model_dump_json(indent=2), encoding="utf-8")
    assert load_model(tmp_path / "plan.json", Plan) == plan
    assert load_model(str(tmp_path / "result.json"), AnswerResult) == result
    assert load_model(tmp_path / "index.json", EvidenceIndex) == index
    assert load_index(tmp_path / "index.json") == index


@pytest.mark.parametrize("model_cls", [Plan, AnswerResult, EvidenceIndex])
def test_an_empty_json_file_is_refused_as_empty(tmp_path, model_cls):
    path = tmp_path / "file.json"
    path.write_text(" \n", encoding="utf-8")
    message = rf"the {model_cls.__name__} file '.*file\.json' is empty; write the"
    with pytest.raises(ConfigurationError, match=message):
        load_model(path, model_cls)


def test_load_index_reads_jsonl_documents(tmp_path):
    path = write_lines(tmp_path / "docs.JSONL", [json.dumps(DOCUMENTS[0])])
    assert load_index(path) == evidence_from_jsonl(path)
    assert load_model(path, EvidenceIndex) == evidence_from_jsonl(path)


def test_load_model_names_the_file_and_every_error_location(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(
        json.dumps(
            {
                "answer": 3,
                "evidence": [{"id": "e1", "source": "s", "text": "t", "attributes": {"d": 1}}],
                "claims": [{"text": "x", "extra": True}],
            }
        )
    )
    with pytest.raises(ConfigurationError) as caught:
        load_model(path, AnswerResult)
    message = str(caught.value)
    assert message.startswith(f"{path}: not a valid AnswerResult (3 errors):")
    assert "  answer: Input should be a valid string" in message
    assert "  evidence[0].attributes.d: Input should be a valid string" in message
    assert "  claims[0].extra: Extra inputs are not permitted" in message


def test_load_model_reports_model_level_errors(tmp_path):
    path = tmp_path / "index.json"
    path.write_text(
        json.dumps({"version": "v", "units": {"x": {"id": "y", "source": "s", "text": ""}}})
    )
    with pytest.raises(ConfigurationError, match=r"\(top level\): Value error, units\['x'\]"):
        load_model(path, EvidenceIndex)
    path.write_text("[]")
    with pytest.raises(ConfigurationError, match=r"\(top level\): Input should be"):
        load_model(path, EvidenceIndex)


def test_load_model_reports_invalid_json_with_its_line(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text('{\n  "question": "Q?",\n  oops\n}')
    with pytest.raises(ConfigurationError, match=r"plan\.json:3: not valid JSON \(.*column 3\)"):
        load_model(path, Plan)


def test_load_model_limits_the_errors_shown(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"evidence": [{"id": i} for i in range(12)]}))
    with pytest.raises(ConfigurationError, match=r"\.\.\. and \d+ more"):
        load_model(path, AnswerResult)


def test_load_model_missing_file(tmp_path):
    with pytest.raises(ConfigurationError, match=r"the Plan file '.*plan\.json' does not exist"):
        load_model(tmp_path / "plan.json", Plan)


def test_a_file_that_repeats_a_key_is_refused_not_read_by_its_last_copy(tmp_path):
    """JSON keeps the last of two copies of a key; an audit must not guess which one
    was meant, so a repeated key is named."""
    plan = tmp_path / "plan.json"
    plan.write_text('{"question": "a", "question": "b"}', encoding="utf-8")
    with pytest.raises(ConfigurationError, match="repeats the key 'question'"):
        load_model(plan, Plan)
    documents = tmp_path / "index.jsonl"
    documents.write_text('{"id": "d1", "id": "d2", "text": "t"}\n', encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"index.jsonl.*repeats the key 'id'"):
        load_model(documents, EvidenceIndex)
