"""ContextInjector: seeds and tiers, widening, caps, and the documented text format."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from citeloop.errors import ConfigurationError
from citeloop.knowledge import (
    DECISIONS_HEADING,
    ContextExpansion,
    ContextInjector,
    Entity,
    EntityKind,
    Fact,
    MemoryGraphStore,
    RelationKind,
    SqliteGraphStore,
    Tier,
    index_tree,
)

SAMPLE_REPO = Path(__file__).parent.parent / "fixtures" / "sample_repo"

LINE_SHAPES = [
    re.compile(r"class \w+(\(\w+(, \w+)*\))?(: \w+(, \w+)*)?"),
    re.compile(r"def \w+\([^)]*\)"),
    re.compile(r"\w+ inherits from \w+"),
    re.compile(r"\w+\(\) calls \w+\(\)"),
    re.compile(r"\w+\.\w+\(\)"),
    re.compile(r"REQ-\w+(-\w+)*( .+)?"),
    re.compile(re.escape(DECISIONS_HEADING)),
    re.compile(r"  [\w-]+: .+"),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("injector") / "repo"
    shutil.copytree(SAMPLE_REPO, root)
    with SqliteGraphStore(root.parent / "graph.db") as graph:
        index_tree(root, graph)
        yield graph


def names(context, tier: Tier | None = None) -> set[str]:
    return {e.name for e in context.entities if tier is None or e.tier is tier}


def test_seeds_are_core_and_the_rest_supporting(store: SqliteGraphStore) -> None:
    context = ContextInjector(store).inject("Why does Circle.area differ from Shape?")
    assert {e.id for e in context.core} == {
        "shapes.circle.Circle",
        "shapes.circle.Circle.area",
        "shapes.base.Shape",
    }
    supporting = names(context, Tier.SUPPORTING)
    assert {"label", "square", "Kreis", "REQ-001-003"} <= supporting
    assert context.snapshot == store.snapshot()


def test_common_and_short_names_are_not_seeds(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store)
    assert injector.seeds("run the main test, get it, set it, call init and __init__") == []
    # Qualified, a common name counts.
    assert [e.id for e in injector.seeds("Circle.__init__")] == [
        "shapes.circle.Circle.__init__",
        "shapes.circle.Circle",
    ]


def test_ambiguous_names_prefer_public_resolved_definitions(store: SqliteGraphStore) -> None:
    seeds = ContextInjector(store).seeds("what is area?")
    assert [e.id for e in seeds] == ["shapes.base.Shape.area", "shapes.circle.Circle.area"]


def test_unicode_names(store: SqliteGraphStore) -> None:
    context = ContextInjector(store).inject("Explain größe and größe_von")
    assert names(context, Tier.CORE) == {"größe", "größe_von"}
    assert "Kreis.größe()" in context.text.splitlines()


def test_payload_shapes(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store)
    expected = injector.inject("Circle and square").text
    assert injector.inject({"task": "Circle", "payload": "square", "n": 3}).text == expected
    assert injector.inject(["Circle", "square"]).text == expected
    with pytest.raises(TypeError, match="payload must be"):
        injector.inject(42)  # type: ignore[arg-type]


@pytest.mark.parametrize("attempt", [0, 1, 2])
def test_widening_adds_only_supporting_entities(store: SqliteGraphStore, attempt: int) -> None:
    injector = ContextInjector(store, max_entities=6)
    task = "Fix Circle.label and REQ-004-001"
    default = injector.inject(task)
    wider = injector.inject(task, expansion=ContextExpansion.for_attempt(attempt))
    assert {e.id for e in wider.core} == {e.id for e in default.core}
    assert {e.id for e in default.entities} <= {e.id for e in wider.entities}
    assert len(wider.entities) > len(default.entities)


def test_tests_only_with_tested_by(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store)
    default = injector.inject("Circle")
    assert not any(e.kind is EntityKind.TEST for e in default.entities)
    wider = injector.inject("Circle", expansion=ContextExpansion(include_tested_by=True))
    assert {"test_circle_area", "test_label"} <= names(wider, Tier.SUPPORTING)
    assert "TestCircle.test_label()" in wider.text.splitlines()
    assert "def test_circle_area()" in wider.text.splitlines()
    assert injector.inject("Circle", task_type="test").text == wider.text


def test_requirement_closure(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store, hops=0)
    assert names(injector.inject("REQ-003-001")) == {"REQ-003-001"}
    closed = injector.inject(
        "REQ-003-001", expansion=ContextExpansion(include_requirement_closure=True)
    )
    # Circle comes with its method: the text names it in `Circle.area()`.
    assert {e.id for e in closed.entities} == {
        "REQ-003-001",
        "shapes.circle.Circle.area",
        "shapes.circle.Circle",
    }


def test_decisions_section(store: SqliteGraphStore) -> None:
    context = ContextInjector(store).inject("Revisit ADR-0001")
    lines = context.text.splitlines()
    heading = lines.index(DECISIONS_HEADING)
    assert lines[heading + 1] == "  ADR-0001: Use circles for round shapes"
    assert {"Shape", "Circle", "format_area"} <= names(context, Tier.SUPPORTING)


def test_text_lines_and_entities_match(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store, hops=2)
    context = injector.inject(
        "Circle, Shape.describe, REQ-001-002 and ADR-0001",
        expansion=ContextExpansion.for_attempt(1),
    )
    lines = context.text.splitlines()
    for line in lines:
        assert any(shape.fullmatch(line) for shape in LINE_SHAPES), line
    words = set(re.findall(r"[\w-]+", context.text))
    assert all(entity.name in words for entity in context.entities)
    assert "class Circle(Shape): __init__, area, label" in lines
    assert "class Shape: describe, _cache_key, area" in lines
    assert "def format_area(value)" in lines
    assert "Shape._cache_key()" in lines
    assert "Circle inherits from Shape" in lines
    assert "describe() calls format_area()" in lines
    assert "REQ-001-002 area is never negative" in lines
    # Unresolved call targets are neither entities nor rendered.
    assert "undefined_helper" not in context.text


def test_deterministic(store: SqliteGraphStore, tmp_path: Path) -> None:
    task = "Circle.label, Shape and REQ-001-003"
    expansion = ContextExpansion.for_attempt(0)
    first = ContextInjector(store).inject(task, expansion=expansion)
    shutil.copytree(SAMPLE_REPO, tmp_path / "repo")
    with SqliteGraphStore(tmp_path / "other.db") as other:
        index_tree(tmp_path / "repo", other)
        second = ContextInjector(other).inject(task, expansion=expansion)
    assert (first.text, first.entities, first.facts) == (second.text, second.entities, second.facts)


def _chain_store(length: int) -> MemoryGraphStore:
    entities = [Entity(f"m.Node{i}", EntityKind.CLASS, f"Node{i}") for i in range(length)]
    facts = [Fact(f"m.Node{i}", RelationKind.CALLS, f"m.Node{i + 1}") for i in range(length - 1)]
    return MemoryGraphStore(entities, facts)


def test_caps() -> None:
    store = _chain_store(20)
    injector = ContextInjector(store, hops=10, max_entities=4)
    task = " ".join(f"Node{i}" for i in range(0, 20, 2))
    context = injector.inject(task)
    assert len(context.entities) == 4
    assert len(context.core) == 4
    wider = injector.inject(task, expansion=ContextExpansion(limit_multiplier=3))
    assert len(wider.entities) == 12
    assert {e.id for e in wider.core} == {e.id for e in context.core}


def test_hops() -> None:
    injector = ContextInjector(_chain_store(10), hops=1)
    assert names(injector.inject("Node0")) == {"Node0", "Node1"}
    widened = injector.inject("Node0", expansion=ContextExpansion(extra_hops=2))
    assert names(widened) == {"Node0", "Node1", "Node2", "Node3"}
    assert "Node1() calls Node2()" in widened.text.splitlines()


@pytest.mark.parametrize("settings", [{"hops": -1}, {"max_entities": 0}])
def test_bad_settings(settings: dict[str, int]) -> None:
    with pytest.raises(ConfigurationError):
        ContextInjector(MemoryGraphStore([], []), **settings)


def test_ambiguous_name_prefers_the_candidate_beside_an_unambiguous_mention():
    entities = [
        Entity("pkg.state.Graph", EntityKind.CLASS, "Graph"),
        Entity("pkg.state.Graph.add_edge", EntityKind.METHOD, "add_edge"),
        Entity("pkg.draw.add_edge", EntityKind.FUNCTION, "add_edge"),
    ]
    store = MemoryGraphStore(entities, [])
    injector = ContextInjector(store)
    assert [e.id for e in injector.seeds("How does Graph use add_edge?")] == [
        "pkg.state.Graph",
        "pkg.state.Graph.add_edge",
    ]
    # With no anchor, the usual rank applies: a function before a method.
    assert [e.id for e in injector.seeds("What does add_edge do?")] == ["pkg.draw.add_edge"]


def test_a_name_after_thousands_of_other_words_still_seeds():
    store = MemoryGraphStore([Entity("pkg.GraphStore", EntityKind.CLASS, "GraphStore")], [])
    text = " ".join(f"word{i}" for i in range(50_000)) + " GraphStore"
    assert [e.id for e in ContextInjector(store).seeds(text)] == ["pkg.GraphStore"]


def test_long_dotted_mentions_stay_linear():
    # 400 KB of one dotted token: quadratic suffix matching would take many minutes.
    store = MemoryGraphStore([Entity("a.b.C", EntityKind.CLASS, "C")], [])
    assert [e.id for e in ContextInjector(store).seeds("x." * 200_000 + "b.C")] == ["a.b.C"]


@pytest.mark.parametrize(
    "task",
    ["Circle.area", "How does Kreis use größe?", "REQ-001-003", "Revisit ADR-0001", "square"],
)
@pytest.mark.parametrize("attempt", [None, 0, 1])
def test_text_and_entities_name_the_same_entities(store, task, attempt):
    from citeloop.validation import parse_context_entities

    expansion = None if attempt is None else ContextExpansion.for_attempt(attempt)
    context = ContextInjector(store).inject(task, expansion=expansion)
    assert {e.name for e in parse_context_entities(context.text)} == names(context)


def test_a_decomposed_accent_in_the_task_names_the_composed_entity():
    store = MemoryGraphStore([Entity("m.CaféStore", EntityKind.CLASS, "CaféStore")], [])
    assert [e.id for e in ContextInjector(store).seeds("Use Cafe\u0301Store")] == ["m.CaféStore"]
