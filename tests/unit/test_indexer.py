"""Indexing the sample repository: entities, facts, provenance, bad input."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from citeloop.errors import SourceTreeError
from citeloop.knowledge import (
    EntityKind,
    Fact,
    RelationKind,
    SqliteGraphStore,
    Visibility,
    index_tree,
)


@pytest.fixture
def repo(sample_repo: Path, tmp_path: Path) -> Path:
    """A copy of the sample repository plus files git would not keep as they are."""
    root = sample_repo
    (root / "broken.py").write_text("def broken(:\n    pass\n", encoding="utf-8")
    (root / "binary.py").write_bytes(b"x = '\xff\xfe\xfa'\n")
    (root / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\ndef caf\xe9():\n    pass\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def secret():\n    pass\n", encoding="utf-8")
    os.symlink(outside / "secret.py", root / "leak.py")
    os.symlink(outside, root / "elsewhere")
    os.symlink(root / "shapes", root / "shapes" / "loop")
    os.mkfifo(root / "pipe.py")  # reading it would block forever
    (root / "nul.py").write_bytes(b"x = 1\0\n")
    (root / "deep.py").write_text("x = " + "-" * 100_000 + "1\n", encoding="utf-8")
    (root / "docs" / "adr" / "0002-latin.md").write_bytes(b"# Caf\xe9\n")
    return root


def facts(store: SqliteGraphStore, subject: str, relation: RelationKind) -> list[Fact]:
    return [
        fact
        for fact in store.facts_of(subject, [relation])
        if fact.subject == subject and fact.relation is relation
    ]


def objects(store: SqliteGraphStore, subject: str, relation: RelationKind) -> set[str]:
    return {fact.object for fact in facts(store, subject, relation)}


def test_classes_methods_and_visibility(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    shape = store.get_entity("shapes.base.Shape")
    assert shape is not None and shape.kind is EntityKind.CLASS and shape.line == 4
    assert objects(store, "shapes.base.Shape", RelationKind.DEFINES) == {
        "shapes.base.Shape.area",
        "shapes.base.Shape.describe",
        "shapes.base.Shape._cache_key",
    }
    private = store.get_entity("shapes.base.Shape._cache_key")
    assert private is not None and private.kind is EntityKind.METHOD
    assert private.visibility is Visibility.PRIVATE
    assert store.get_entity("shapes.base.format_area").signature == "(value)"
    assert store.get_entity("shapes.helpers._private_helper").visibility is Visibility.PRIVATE


def test_inherits_fact_with_provenance(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    (fact,) = facts(store, "shapes.circle.Circle", RelationKind.INHERITS)
    assert fact.object == "shapes.base.Shape"
    digest = hashlib.sha256((repo / "shapes" / "circle.py").read_bytes()).hexdigest()
    assert fact.provenance is not None
    assert (fact.provenance.path, fact.provenance.start_line, fact.provenance.end_line) == (
        "shapes/circle.py",
        8,
        8,
    )
    assert fact.provenance.digest == digest
    (defines,) = [
        f
        for f in store.facts_of("shapes.circle.Circle", [RelationKind.DEFINES])
        if f.object == "shapes.circle.Circle"
    ]
    assert defines.provenance.marker() == "shapes/circle.py:8-18"


def test_calls_resolved_across_modules_and_unresolved(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    assert objects(store, "shapes.circle.Circle.label", RelationKind.CALLS) == {
        "shapes.base.format_area",  # from x import y
        "shapes.circle.Circle.area",  # self.area
        "?undefined_helper",
    }
    # `helpers.square` via `from shapes import helpers`; `self.area` found in a base.
    assert objects(store, "shapes.circle.Circle.area", RelationKind.CALLS) == {
        "shapes.helpers.square"
    }
    assert objects(store, "shapes.circle.Kreis.größe", RelationKind.CALLS) == {
        "shapes.circle.Circle.area"
    }
    # A generic construction `Circle[float](r)` calls the class.
    assert objects(store, "shapes.circle.typed_circle", RelationKind.CALLS) == {
        "shapes.circle.Circle"
    }
    unresolved = store.get_entity("?undefined_helper")
    assert unresolved is not None and unresolved.resolved is False


def test_tests_and_tested_by(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    test = store.get_entity("tests.test_shapes.TestCircle.test_label")
    assert test is not None and test.kind is EntityKind.TEST
    assert objects(store, "shapes.circle.Circle", RelationKind.TESTED_BY) == {
        "tests.test_shapes.test_circle_area",
        "tests.test_shapes.TestCircle.test_label",
    }
    assert objects(store, "shapes.base.format_area", RelationKind.TESTED_BY) == {
        "tests.test_shapes.test_format_area"
    }


def test_requirements_from_docstring_decorator_and_comments(
    repo: Path, store: SqliteGraphStore
) -> None:
    index_tree(repo, store)
    (docstring,) = facts(store, "shapes.base.Shape", RelationKind.TRACES)
    assert (docstring.object, docstring.provenance.start_line) == ("REQ-001-002", 7)
    traced = {
        fact.object: fact.provenance.start_line
        for fact in facts(store, "shapes.circle.Circle.area", RelationKind.TRACES)
    }
    assert traced == {"REQ-003-001": 12, "REQ-001-003": 14}  # decorator, comment
    assert objects(store, "shapes.helpers", RelationKind.TRACES) == {"REQ-004-001"}
    requirement = store.get_entity("REQ-001-002")
    assert requirement.kind is EntityKind.REQUIREMENT
    assert requirement.signature == "area is never negative"


def test_decision_record(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    decision = store.get_entity("ADR-0001")
    assert decision is not None and decision.kind is EntityKind.DECISION
    assert decision.signature == "Use circles for round shapes"
    # Names of classes and functions only; prose words ("describe", "label") do not link.
    assert objects(store, "ADR-0001", RelationKind.DECIDED) == {
        "shapes.base.Shape",
        "shapes.circle.Circle",
        "shapes.base.format_area",
    }
    assert [e.id for e in store.all_entities() if e.kind is EntityKind.DECISION] == ["ADR-0001"]


def test_unicode_and_coding_cookie(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    assert store.get_entity("shapes.circle.größe_von").kind is EntityKind.FUNCTION
    assert store.get_entity("latin.café") is not None


def test_bad_files_are_skipped_with_reasons(repo: Path, store: SqliteGraphStore) -> None:
    report = index_tree(repo, store)
    reasons = {skipped.path: skipped.reason for skipped in report.skipped}
    assert reasons["broken.py"].startswith("syntax error at line 1")
    assert reasons["binary.py"].startswith("not decodable")
    assert "leaves the source tree" in reasons["leak.py"]
    assert "leaves the source tree" in reasons["elsewhere"]
    assert "not followed" in reasons["shapes/loop"]
    assert reasons["pipe.py"] == "not a regular file; not read"
    assert "null bytes" in reasons["nul.py"] and "None" not in reasons["nul.py"]
    assert reasons["deep.py"] == "syntax tree too deeply nested to parse"
    assert "PEP 263" not in reasons["docs/adr/0002-latin.md"]
    assert store.get_entity("leak.secret") is None
    assert not any(e.id.startswith("shapes.loop") for e in store.all_entities())


def test_huge_files_are_skipped(repo: Path, store: SqliteGraphStore) -> None:
    report = index_tree(repo, store, max_file_bytes=200)
    reasons = {skipped.path: skipped.reason for skipped in report.skipped}
    assert "over max_file_bytes=200" in reasons["shapes/circle.py"]
    assert store.get_entity("shapes.circle.Circle") is None


@pytest.mark.parametrize("name", ["missing", "file.py"])
def test_bad_root_raises_source_tree_error(tmp_path: Path, name: str) -> None:
    (tmp_path / "file.py").write_text("x = 1\n")
    with (
        SqliteGraphStore(":memory:") as store,
        pytest.raises(SourceTreeError, match=name) as raised,
    ):
        index_tree(tmp_path / name, store)
    assert "directory" in str(raised.value)


def test_an_empty_root_is_refused_not_read_as_the_current_folder(tmp_path: Path) -> None:
    """``citeloop index "$(python -c ...)"`` whose command failed passes ``""``, which
    ``Path`` reads as the current folder: it is refused, and nothing is indexed."""
    with SqliteGraphStore(":memory:") as store:
        for root in ("", "  "):
            with pytest.raises(SourceTreeError, match="empty path"):
                index_tree(root, store)
        assert not store.all_entities()


def test_progress_callback(repo: Path, store: SqliteGraphStore) -> None:
    calls: list[tuple[int, int, str]] = []
    report = index_tree(repo, store, progress=lambda *args: calls.append(args))
    assert [done for done, _, _ in calls] == list(range(1, report.files_seen + 1))
    assert {total for _, total, _ in calls} == {report.files_seen}


def test_report_counts(repo: Path, store: SqliteGraphStore) -> None:
    report = index_tree(repo, store)
    stats = store.stats()
    # broken.py, binary.py, nul.py, deep.py, 0002-latin.md (the FIFO is not "seen")
    assert report.files_indexed == report.files_seen - 5
    assert (report.entities, report.relations) == (stats["entities"], stats["facts"])
    assert report.snapshot == store.snapshot()


def test_names_that_are_not_utf8_are_skipped_with_the_fix(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    folder = os.fsdecode(bytes(root / "pkg") + b"/d\xff")
    os.mkdir(folder)
    Path(folder, "m.py").write_text("x = 1\n")
    Path(os.fsdecode(bytes(root / "pkg") + b"/f\xfe.py")).write_text("x = 1\n")
    (root / "pkg" / "ok.py").write_text("def ok():\n    pass\n")
    with SqliteGraphStore(tmp_path / "g.db") as store:
        report = index_tree(root, store)
        assert store.get_entity("pkg.ok.ok") is not None
    assert [(s.path, s.reason) for s in report.skipped] == [
        ("pkg/d\\xff", "folder name is not valid UTF-8; rename it to index it"),
        ("pkg/f\\xfe.py", "file name is not valid UTF-8; rename it to index it"),
    ]


def test_a_folder_that_cannot_be_read_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tree"
    (root / "locked").mkdir(parents=True)
    (root / "locked" / "a.py").write_text("x = 1\n")
    (root / "b.py").write_text("x = 1\n")
    scandir = os.scandir

    def refuse(path):  # chmod 000 does not stop root: refuse the way the OS would
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    with SqliteGraphStore(tmp_path / "g.db") as store:
        report = index_tree(root, store)
    assert [(s.path, s.reason) for s in report.skipped] == [
        ("locked", "cannot read folder: Permission denied")
    ]
    assert report.files_indexed == 1


def test_the_warning_stands_on_an_unchanged_tree(tmp_path: Path) -> None:
    root = tmp_path / "code" / "langgraph"
    (root / "graph").mkdir(parents=True)
    (root / "pregel").mkdir()
    (root / "graph" / "__init__.py").write_text(
        "".join(f"from langgraph.pregel import P{i}\n" for i in range(6))
    )
    (root / "pregel" / "__init__.py").write_text("".join(f"class P{i}: ...\n" for i in range(6)))
    with SqliteGraphStore(tmp_path / "g.db") as store:
        first = index_tree(root, store).warnings
        again = index_tree(root, store)
    assert first and again.warnings == first and again.files_indexed == 0


def test_a_file_the_indexer_fails_on_is_skipped_with_the_error(
    repo: Path, store: SqliteGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citeloop.knowledge.indexing import indexer

    real = indexer.index_python

    def failing(path: str, *args: object, **kwargs: object) -> object:
        if path == "shapes/circle.py":
            raise IndexError("list index out of range")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(indexer, "index_python", failing)
    report = index_tree(repo, store)
    reasons = {skipped.path: skipped.reason for skipped in report.skipped}
    assert "IndexError: list index out of range" in reasons["shapes/circle.py"]
    assert "please report it" in reasons["shapes/circle.py"]
    assert store.get_entity("shapes.circle.Circle") is None
    assert store.get_entity("shapes.base.Shape") is not None  # the rest is indexed


@pytest.mark.parametrize("codec", ["rot13", "undefined", "no-such-codec"])
def test_a_coding_cookie_naming_no_text_codec_is_skipped_with_the_fix(
    tmp_path: Path, codec: str
) -> None:
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "bad.py").write_text(f"# -*- coding: {codec} -*-\nx = 1\n", encoding="ascii")
    (root / "pkg" / "good.py").write_text("def f():\n    pass\n", encoding="utf-8")
    with SqliteGraphStore(tmp_path / "graph.db") as store:
        report = index_tree(root, store)
        reasons = {skipped.path: skipped.reason for skipped in report.skipped}
        assert reasons["pkg/bad.py"].startswith("not decodable")
        assert "PEP 263" in reasons["pkg/bad.py"]
        assert store.get_entity("pkg.good.f") is not None
