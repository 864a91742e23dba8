"""Default contexts reused (knowledge/reuse.py): the same task again gives the context
built before, only while the graph file and the source lines it read are unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citeloop.errors import ConfigurationError
from citeloop.knowledge import (
    ContextExpansion,
    ContextInjector,
    MemoryGraphStore,
    SqliteGraphStore,
    index_tree,
)

SAMPLE_REPO = Path(__file__).parent.parent / "fixtures" / "sample_repo"
TASK = "How does `Circle` compute its area with `Shape`?"
OTHER = "What does `Square` return?"


@pytest.fixture
def indexed(tmp_path: Path):
    """(source folder, writable store, read-only store) of a copy of the sample repo."""
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE_REPO, root)
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(root, graph)
        with SqliteGraphStore(tmp_path / "graph.db", read_only=True) as reads:
            yield root, graph, reads


def circle_file(root: Path) -> Path:
    return next(path for path in root.rglob("*.py") if "class Circle" in path.read_text())


def test_the_same_task_again_is_the_context_built_before(indexed) -> None:
    _, _, reads = indexed
    injector = ContextInjector(reads)
    first = injector.inject(TASK)
    assert first.excerpts  # it read source lines, and they are checked on reuse
    assert injector.inject(TASK) is first
    assert ContextInjector(reads, reuse_contexts=0).inject(TASK) == first


def test_another_task_or_task_type_is_built(indexed) -> None:
    _, _, reads = indexed
    injector = ContextInjector(reads)
    first = injector.inject(TASK)
    assert injector.inject(OTHER) is not first
    assert injector.inject(TASK, task_type="test") is not first
    assert injector.inject(TASK) is first


def test_a_widened_context_is_never_reused(indexed) -> None:
    _, _, reads = indexed
    injector = ContextInjector(reads)
    widening = ContextExpansion(extra_hops=1, limit_multiplier=2)
    wide = injector.inject(TASK, expansion=widening)
    assert injector.inject(TASK, expansion=widening) is not wide
    assert injector.inject(TASK, expansion=widening) == wide


def test_a_reindex_builds_the_context_again_though_no_file_it_read_changed(indexed) -> None:
    root, graph, reads = indexed
    injector = ContextInjector(reads)
    first = injector.inject(TASK)
    assert "Ring" not in {entity.name for entity in first.entities}
    ring = 'from shapes.circle import Circle\n\n\nclass Ring(Circle):\n    """A thin circle."""\n'
    (root / "shapes" / "ring.py").write_text(ring, encoding="utf-8")
    index_tree(root, graph)  # another connection commits: the file's version changes
    again = injector.inject(TASK)
    assert "Ring" in {entity.name for entity in again.entities}
    assert again == ContextInjector(reads, reuse_contexts=0).inject(TASK)


def test_a_source_file_edited_since_indexing_is_not_shown_from_before(indexed) -> None:
    root, _, reads = indexed
    injector = ContextInjector(reads)
    first = injector.inject(TASK)
    assert " | " in first.text  # numbered source lines
    path = circle_file(root)
    path.write_text("# moved\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    again = injector.inject(TASK)
    assert again is not first
    assert again == ContextInjector(reads, reuse_contexts=0).inject(TASK)
    assert again.text != first.text


@pytest.mark.parametrize("store", ["writable", "memory"])
def test_a_store_that_does_not_say_its_version_reuses_nothing(indexed, store) -> None:
    _, graph, _ = indexed
    if store == "memory":
        entities = graph.all_entities()
        facts = graph.facts_of_many([entity.id for entity in entities])
        graph = MemoryGraphStore(entities, {f for found in facts.values() for f in found})
    injector = ContextInjector(graph)
    first = injector.inject(TASK)
    assert injector.inject(TASK) is not first
    assert injector.inject(TASK) == first


def test_only_the_most_recent_contexts_are_kept(indexed) -> None:
    _, _, reads = indexed
    injector = ContextInjector(reads, reuse_contexts=1)
    first = injector.inject(TASK)
    injector.inject(OTHER)
    assert injector.inject(TASK) is not first


@pytest.mark.parametrize("value", [-1, True, 1.5, "8"])
def test_reuse_contexts_out_of_range_is_a_configuration_error(indexed, value) -> None:
    _, _, reads = indexed
    with pytest.raises(ConfigurationError, match="reuse_contexts"):
        ContextInjector(reads, reuse_contexts=value)


def test_a_source_folder_gone_or_back_since_is_seen(indexed, tmp_path) -> None:
    root, _, reads = indexed
    injector = ContextInjector(reads)
    first = injector.inject(TASK)
    assert " | " in first.text
    root.rename(tmp_path / "moved")
    gone = injector.inject(TASK)
    assert " | " not in gone.text and not gone.excerpts
    (tmp_path / "moved").rename(root)
    assert injector.inject(TASK).text == first.text  # its source shown again


@pytest.mark.parametrize(
    ("setting", "value"),
    [("max_context_tokens", 120), ("hops", 0), ("count_tokens", len), ("excerpt_share", 0.0)],
)
def test_a_setting_changed_since_builds_the_context_again(indexed, setting, value) -> None:
    _, _, reads = indexed
    injector = ContextInjector(reads)
    first = injector.inject(TASK)
    setattr(injector, setting, value)
    fresh = ContextInjector(reads, reuse_contexts=0)
    setattr(fresh, setting, value)
    again = injector.inject(TASK)
    assert again is not first and again == fresh.inject(TASK)
