"""recall_paths: shortest-first and strongest paths, names, ranking, and path records.

Expected paths are worked out by hand from small graphs. Strengths follow the PathRAG
flow of the module docstring: a hop leaving an entity with ``d`` traversable facts
multiplies the flow by ``FLOW_DECAY / d``.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.errors import ConfigurationError
from citeloop.knowledge import (
    Entity,
    EntityKind,
    Fact,
    MemoryGraphStore,
    Provenance,
    RelationKind,
    RetrievalPath,
    SqliteGraphStore,
    UnknownEntityError,
    index_tree,
    recall_paths,
    render_hops,
    resolve_entities,
)
from citeloop.knowledge.paths import FLOW_DECAY, EntityRef, PathHop, coerce_path

CALLS, DEFINES, INHERITS = RelationKind.CALLS, RelationKind.DEFINES, RelationKind.INHERITS
D = FLOW_DECAY

Edge = tuple[str, RelationKind, str]


def entity(name: str, kind: EntityKind = EntityKind.FUNCTION) -> Entity:
    return Entity(f"m.{name}", kind, name)


def fact(subject: str, relation: RelationKind, object_: str, **kwargs) -> Fact:
    return Fact(f"m.{subject}", relation, f"m.{object_}", **kwargs)


def graph(edges: Iterable[Edge], extra: Iterable[Entity] = ()) -> MemoryGraphStore:
    """Functions ``m.<name>`` for every name in ``edges`` (plus ``extra``), one fact per
    edge."""
    edges = list(edges)
    names = sorted({name for subject, _, object_ in edges for name in (subject, object_)})
    return MemoryGraphStore(
        [*(entity(name) for name in names), *extra], [fact(*edge) for edge in edges]
    )


def route(path: RetrievalPath) -> str:
    """The entity names along the path: ``"s a t"``."""
    return " ".join([path.source.name, *(hop.entity.name for hop in path.hops)])


def routes(paths: Iterable[RetrievalPath]) -> list[str]:
    return [route(path) for path in paths]


# -- shortest paths ------------------------------------------------------------------

# s reaches t directly, through m, and through n1 and n2.
THREE_ROUTES = [
    ("s", CALLS, "t"),
    ("s", CALLS, "m"),
    ("m", CALLS, "t"),
    ("s", CALLS, "n1"),
    ("n1", CALLS, "n2"),
    ("n2", CALLS, "t"),
]


def test_shortest_paths_come_first() -> None:
    paths = recall_paths(graph(THREE_ROUTES), "s", "t", max_hops=3, limit=5)
    assert routes(paths) == ["s t", "s m t", "s n1 n2 t"]
    assert [len(path) for path in paths] == [1, 2, 3]
    assert all(path.source.id == "m.s" and path.target.id == "m.t" for path in paths)


@pytest.mark.parametrize(
    ("max_hops", "expected"),
    [
        (1, ["s t"]),
        (2, ["s t", "s m t"]),
        (3, ["s t", "s m t", "s n1 n2 t"]),
        (4, ["s t", "s m t", "s n1 n2 t"]),
    ],
)
def test_max_hops_cuts_longer_routes(max_hops: int, expected: list[str]) -> None:
    assert routes(recall_paths(graph(THREE_ROUTES), "s", "t", max_hops=max_hops)) == expected


CHAIN = [("a", CALLS, "b"), ("b", CALLS, "c"), ("c", CALLS, "d")]


@pytest.mark.parametrize(("target", "max_hops"), [("c", 1), ("d", 1), ("d", 2)])
def test_too_far_is_no_path(target: str, max_hops: int) -> None:
    assert recall_paths(graph(CHAIN), "a", target, max_hops=max_hops) == []


@pytest.mark.parametrize(("target", "max_hops"), [("b", 1), ("c", 2), ("d", 3)])
def test_pair_exactly_max_hops_apart(target: str, max_hops: int) -> None:
    paths = recall_paths(graph(CHAIN), "a", target, max_hops=max_hops)
    assert [len(path) for path in paths] == [max_hops]


def test_pair_within_max_hops_of_a_chain() -> None:
    assert routes(recall_paths(graph(CHAIN), "a", "c", max_hops=3)) == ["a b c"]
    assert routes(recall_paths(graph(CHAIN), "a", "d", max_hops=4)) == ["a b c d"]


# s reaches t directly and through m1..m4, all of degree 2: the two-hop paths tie.
FAN = [("s", CALLS, "t"), *(("s", CALLS, f"m{i}") for i in range(1, 5))] + [
    (f"m{i}", CALLS, "t") for i in range(1, 5)
]


def test_limit_keeps_the_best_paths() -> None:
    store = graph(FAN)
    assert routes(recall_paths(store, "s", "t", limit=1)) == ["s t"]
    # Ties follow the store's fact order: (relation, subject, object).
    assert routes(recall_paths(store, "s", "t", limit=3)) == ["s t", "s m1 t", "s m2 t"]
    assert len(recall_paths(store, "s", "t", limit=100)) == 5


def test_tie_order_is_stable_across_calls_and_fact_order() -> None:
    edges = [*FAN, ("m1", CALLS, "m2"), ("m3", CALLS, "x"), ("x", CALLS, "t")]
    expected = recall_paths(graph(edges), "s", "t", max_hops=4, limit=20)
    assert len(expected) > 5
    assert recall_paths(graph(edges), "s", "t", max_hops=4, limit=20) == expected
    entities = graph(edges).all_entities()
    facts = [fact(*edge) for edge in edges]
    for seed in range(5):
        rng = random.Random(seed)
        rng.shuffle(entities)
        rng.shuffle(facts)
        shuffled = MemoryGraphStore(entities, facts)
        assert recall_paths(shuffled, "s", "t", max_hops=4, limit=20) == expected


def test_equal_lengths_rank_by_strength_not_store_order() -> None:
    # a_hub sorts before z_low in the store, but has six facts to z_low's two.
    edges = [
        ("s", CALLS, "a_hub"),
        ("a_hub", CALLS, "t"),
        ("s", CALLS, "z_low"),
        ("z_low", CALLS, "t"),
        *(("a_hub", CALLS, f"h{i}") for i in range(4)),
    ]
    paths = recall_paths(graph(edges), "s", "t")
    assert routes(paths) == ["s z_low t", "s a_hub t"]
    assert paths[0].strength == pytest.approx(D / 2 * D / 2)
    assert paths[1].strength == pytest.approx(D / 2 * D / 6)


def test_facts_followed_backwards_are_marked() -> None:
    # a calls b, c calls b: from a to c the second fact is read backwards.
    store = graph([("a", CALLS, "b"), ("c", CALLS, "b")])
    (path,) = recall_paths(store, "a", "c")
    assert [(hop.entity.name, hop.relation, hop.forward) for hop in path.hops] == [
        ("b", "calls", True),
        ("c", "calls", False),
    ]
    first, second = path.fact_ids
    assert render_hops(path) == (
        f"1. [{first}] function a calls function b\n2. [{second}] function c calls function b"
    )
    (back,) = recall_paths(store, "c", "a")
    assert [hop.forward for hop in back.hops] == [True, False]


def test_paths_are_simple() -> None:
    # Two facts between a and b; s-a-b-a-t would be a (non-simple) 4-hop path.
    edges = [("s", CALLS, "a"), ("a", CALLS, "b"), ("b", CALLS, "a"), ("a", CALLS, "t")]
    assert routes(recall_paths(graph(edges), "s", "t", max_hops=4, limit=10)) == ["s a t"]
    for path in recall_paths(graph(edges), "s", max_hops=4, limit=10):
        ids = [path.source.id, *(hop.entity.id for hop in path.hops)]
        assert len(ids) == len(set(ids))


def test_two_facts_between_the_same_entities_are_two_paths() -> None:
    store = MemoryGraphStore(
        [entity("A", EntityKind.CLASS), entity("B", EntityKind.CLASS)],
        [fact("A", INHERITS, "B"), fact("B", CALLS, "A")],
    )
    paths = recall_paths(store, "A", "B")
    # Same strength: fact order (calls before inherits).
    assert [(hop.relation, hop.forward) for path in paths for hop in path.hops] == [
        ("calls", False),
        ("inherits", True),
    ]


def test_unresolved_names_are_never_passed_through() -> None:
    unresolved = Entity("?len", EntityKind.FUNCTION, "len", resolved=False)
    store = MemoryGraphStore(
        [entity("a"), entity("b"), unresolved],
        [Fact("m.a", CALLS, "?len"), Fact("m.b", CALLS, "?len")],
    )
    assert recall_paths(store, "a", "b", max_hops=5) == []
    assert recall_paths(store, "a") == []
    with pytest.raises(UnknownEntityError):
        recall_paths(store, "len")
    with pytest.raises(UnknownEntityError):
        recall_paths(store, "?len")


def test_facts_to_unknown_ids_and_self_loops_are_skipped() -> None:
    store = MemoryGraphStore(
        [entity("a"), entity("b")],
        [fact("a", CALLS, "a"), fact("a", CALLS, "ghost"), fact("a", CALLS, "b")],
    )
    (path,) = recall_paths(store, "a", "b")
    assert path.strength == pytest.approx(D / 1)  # a has one traversable fact
    assert routes(recall_paths(store, "a")) == ["a b"]


def test_types_used_and_classes_named_in_strings_are_not_walked() -> None:
    """They tie nearly every function to the few types it handles (hubs on any path)."""
    edges = [
        ("a", RelationKind.USES_TYPE, "t"),
        ("b", RelationKind.USES_TYPE, "t"),
        ("a", RelationKind.REFERENCES, "r"),
        ("b", RelationKind.REFERENCES, "r"),
        ("a", CALLS, "c"),
        ("c", CALLS, "b"),
    ]
    store = graph(edges)
    assert routes(recall_paths(store, "a", "b", max_hops=3)) == ["a c b"]
    assert recall_paths(store, "a", "t", max_hops=3) == []


def test_a_graph_file_walks_neither_either(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "m.py").write_text(
        "class Kind:\n    pass\n\n\ndef a(x: Kind):\n    return 'Kind'\n", encoding="utf-8"
    )
    with SqliteGraphStore(tmp_path / "g.db") as store:
        index_tree(root, store)
        relations = {fact.relation for fact in store.facts_of("m.a")}
        assert {RelationKind.USES_TYPE, RelationKind.REFERENCES} <= relations
        assert recall_paths(store, "a", "Kind", max_hops=1) == []  # only through m: 2 hops
        assert routes(recall_paths(store, "a", "Kind", max_hops=2)) == ["a m Kind"]


# -- names ---------------------------------------------------------------------------


@pytest.fixture
def methods() -> MemoryGraphStore:
    """Two classes with a method ``run`` each; A.run calls shared, B.run reaches it via
    mid; B.run also calls A.run."""
    ids = {
        "pkg.mod.A": EntityKind.CLASS,
        "pkg.mod.B": EntityKind.CLASS,
        "pkg.mod.A.run": EntityKind.METHOD,
        "pkg.mod.B.run": EntityKind.METHOD,
        "pkg.mod.shared": EntityKind.FUNCTION,
        "pkg.mod.mid": EntityKind.FUNCTION,
    }
    entities = [Entity(id_, kind, id_.rpartition(".")[2]) for id_, kind in ids.items()]
    facts = [
        Fact("pkg.mod.A", DEFINES, "pkg.mod.A.run"),
        Fact("pkg.mod.B", DEFINES, "pkg.mod.B.run"),
        Fact("pkg.mod.A.run", CALLS, "pkg.mod.shared"),
        Fact("pkg.mod.B.run", CALLS, "pkg.mod.mid"),
        Fact("pkg.mod.mid", CALLS, "pkg.mod.shared"),
        Fact("pkg.mod.B.run", CALLS, "pkg.mod.A.run"),
    ]
    return MemoryGraphStore(entities, facts)


def test_ambiguous_names_search_from_every_match(methods: MemoryGraphStore) -> None:
    paths = recall_paths(methods, "run", "shared")
    # From A.run directly; from B.run through mid. Paths never pass through another
    # match of the source name (B.run -> A.run -> shared contains A.run's own path).
    assert [(path.source.id, route(path)) for path in paths] == [
        ("pkg.mod.A.run", "run shared"),
        ("pkg.mod.B.run", "run mid shared"),
    ]
    assert [path.source.label() for path in paths] == ["method A.run", "method B.run"]
    # An ambiguous target: every match is a target.
    to_run = recall_paths(methods, "shared", "run")
    assert [path.target.id for path in to_run] == ["pkg.mod.A.run", "pkg.mod.B.run"]


@pytest.mark.parametrize(
    ("name", "ids"),
    [
        ("run", ["pkg.mod.A.run", "pkg.mod.B.run"]),
        ("A.run", ["pkg.mod.A.run"]),
        ("mod.B.run", ["pkg.mod.B.run"]),
        ("pkg.mod.B.run", ["pkg.mod.B.run"]),
        ("  shared ", ["pkg.mod.shared"]),
    ],
)
def test_names_resolve(methods: MemoryGraphStore, name: str, ids: list[str]) -> None:
    assert [found.id for found in resolve_entities(methods, name)] == ids


def test_dotted_and_qualified_names_pick_one_source(methods: MemoryGraphStore) -> None:
    assert routes(recall_paths(methods, "A.run", "shared")) == ["run shared", "run run mid shared"]
    assert recall_paths(methods, "pkg.mod.B.run", "shared", limit=1) == recall_paths(
        methods, "B.run", "shared", limit=1
    )
    assert [path.source.id for path in recall_paths(methods, "B.run", "shared")] == [
        "pkg.mod.B.run"
    ] * 2


@pytest.mark.parametrize(("name", "close"), [("rnu", "run"), ("A.rnu", "run"), ("shard", "shared")])
def test_unknown_names_suggest_close_ones(methods: MemoryGraphStore, name: str, close: str) -> None:
    with pytest.raises(UnknownEntityError) as raised:
        recall_paths(methods, name)
    assert close in raised.value.suggestions
    assert repr(close) in str(raised.value)
    assert raised.value.name == name
    with pytest.raises(UnknownEntityError, match="shard"):
        recall_paths(methods, "run", "shard")


def test_unknown_name_without_close_matches(methods: MemoryGraphStore) -> None:
    with pytest.raises(UnknownEntityError) as raised:
        recall_paths(methods, "zzzzzzzz")
    assert raised.value.suggestions == ()
    assert "zzzzzzzz" in str(raised.value)


def test_unknown_name_message_without_suggestions_reads_well(methods: MemoryGraphStore) -> None:
    with pytest.raises(UnknownEntityError) as raised:
        recall_paths(methods, "zzzzzzzz")
    assert "graph. Give" in str(raised.value)


def test_suggestions_name_only_resolvable_entities() -> None:
    store = MemoryGraphStore(
        [entity("a"), Entity("?lenght", EntityKind.FUNCTION, "lenght", resolved=False)],
        [Fact("m.a", CALLS, "?lenght")],
    )
    with pytest.raises(UnknownEntityError) as raised:
        recall_paths(store, "length")
    assert "lenght" not in raised.value.suggestions


def test_an_ambiguous_source_sharing_the_target_searches_from_the_others(
    methods: MemoryGraphStore,
) -> None:
    # "run" is A.run and B.run; the target is A.run, so the search starts at B.run.
    paths = recall_paths(methods, "run", "A.run")
    assert paths and all(path.source.id == "pkg.mod.B.run" for path in paths)
    assert all(path.target.id == "pkg.mod.A.run" for path in paths)
    assert len(paths[0]) == 1  # B.run calls A.run


@pytest.mark.parametrize(
    ("source", "target"), [("A.run", "pkg.mod.A.run"), ("shared", "shared"), ("mid", " mid")]
)
def test_same_source_and_target_is_an_error(
    methods: MemoryGraphStore, source: str, target: str
) -> None:
    with pytest.raises(ConfigurationError, match="same entity"):
        recall_paths(methods, source, target)


@pytest.mark.parametrize("name", ["", "   ", None, 3])
def test_empty_or_non_string_names_are_errors(methods: MemoryGraphStore, name: object) -> None:
    with pytest.raises(ConfigurationError, match="non-empty string"):
        recall_paths(methods, name)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="non-empty string"):
        recall_paths(methods, "run", name if name is not None else "")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, 11, -1, True, "3", 2.0, None])
def test_max_hops_out_of_range(methods: MemoryGraphStore, value: object) -> None:
    with pytest.raises(ConfigurationError, match="max_hops"):
        recall_paths(methods, "run", "shared", max_hops=value)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="max_hops"):
        recall_paths(methods, "run", max_hops=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, 101, True, "3", 5.0])
def test_limit_out_of_range(methods: MemoryGraphStore, value: object) -> None:
    with pytest.raises(ConfigurationError, match="limit"):
        recall_paths(methods, "run", "shared", limit=value)  # type: ignore[arg-type]


def test_bounds_are_inclusive(methods: MemoryGraphStore) -> None:
    assert recall_paths(methods, "A.run", "shared", max_hops=10, limit=100)
    assert recall_paths(methods, "A.run", max_hops=10, limit=1)


def test_bounds_are_checked_before_names(methods: MemoryGraphStore) -> None:
    with pytest.raises(ConfigurationError, match="max_hops"):
        recall_paths(methods, "no such name", max_hops=0)


# -- strongest paths (no target) -----------------------------------------------------


def test_without_target_full_length_paths_come_before_dead_ends() -> None:
    # From s: a-b-c is three hops long; d ends after one hop, e-f after two.
    edges = [
        ("s", CALLS, "a"),
        ("a", CALLS, "b"),
        ("b", CALLS, "c"),
        ("s", CALLS, "d"),
        ("s", CALLS, "e"),
        ("e", CALLS, "f"),
    ]
    store = graph(edges)
    paths = recall_paths(store, "s", max_hops=3)
    assert routes(paths) == ["s a b c", "s d", "s e f"]
    assert [path.strength for path in paths] == pytest.approx(
        [D / 3 * D / 2 * D / 2, D / 3, D / 3 * D / 2]
    )
    assert routes(recall_paths(store, "s", max_hops=3, limit=1)) == ["s a b c"]
    # With max_hops=2 both a-b and e-f are full length; they tie, so fact order decides.
    assert routes(recall_paths(store, "s", max_hops=2)) == ["s a b", "s e f", "s d"]


def test_without_target_strongest_first() -> None:
    edges = [
        ("s", CALLS, "a_hub"),
        ("s", CALLS, "z_low"),
        ("z_low", CALLS, "y"),
        *(("a_hub", CALLS, f"h{i}") for i in range(4)),
    ]
    paths = recall_paths(graph(edges), "s", max_hops=2, limit=10)
    assert routes(paths) == ["s z_low y", *(f"s a_hub h{i}" for i in range(4))]
    assert paths[0].strength == pytest.approx(D / 2 * D / 2)
    assert paths[1].strength == pytest.approx(D / 2 * D / 5)
    strengths = [path.strength for path in paths]
    assert strengths == sorted(strengths, reverse=True)


def test_without_target_isolated_source_has_no_paths() -> None:
    store = MemoryGraphStore([entity("alone")], [])
    assert recall_paths(store, "alone") == []


# -- provenance, rendering, records --------------------------------------------------

WHERE = Provenance("pkg/mod.py", 3, 4, "0" * 64)


@pytest.fixture
def mixed() -> MemoryGraphStore:
    """a -calls-> b (with provenance, lines 3-4) -calls-> c (no provenance)."""
    return MemoryGraphStore(
        [entity("a"), entity("b"), entity("c")],
        [fact("a", CALLS, "b", provenance=WHERE), fact("b", CALLS, "c")],
    )


def test_provenance_is_carried(mixed: MemoryGraphStore) -> None:
    (path,) = recall_paths(mixed, "a", "c")
    assert [hop.provenance for hop in path.hops] == [WHERE, None]
    assert path.fact_ids == (
        Fact("m.a", CALLS, "m.b").fact_id,
        Fact("m.b", CALLS, "m.c").fact_id,
    )
    assert path.hops[0].entity == EntityRef("function", "b", "m.b")


def test_render_hops_marks_provenance_only_when_present(mixed: MemoryGraphStore) -> None:
    (path,) = recall_paths(mixed, "a", "c")
    first, second = path.fact_ids
    assert render_hops(path) == (
        f"1. [{first}] function a calls function b (pkg/mod.py:3-4)\n"
        f"2. [{second}] function b calls function c"
    )
    assert render_hops(path, 1) == f"1. [{first}] function a calls function b (pkg/mod.py:3-4)"
    assert render_hops(RetrievalPath(path.source)) == ""


def test_render_hops_names_methods_with_their_class() -> None:
    path = RetrievalPath(
        EntityRef("class", "Circle", "shapes.circle.Circle"),
        (
            PathHop(
                EntityRef("method", "area", "shapes.circle.Circle.area"),
                "f-1",
                Provenance("shapes/circle.py", 12, 12, ""),
                "defines",
            ),
            PathHop(EntityRef("", "x"), "f-2"),
        ),
    )
    assert render_hops(path) == (
        "1. [f-1] class Circle defines method Circle.area (shapes/circle.py:12)\n2. [f-2] x"
    )


def test_to_dict_round_trips(mixed: MemoryGraphStore) -> None:
    paths = (
        recall_paths(mixed, "a", "c")
        + recall_paths(mixed, "c", "a")
        + [RetrievalPath(EntityRef("class", "Lonely"))]
    )
    for path in paths:
        data = json.loads(json.dumps(path.to_dict()))
        assert RetrievalPath.from_dict(data) == path
        assert coerce_path(data) == path
        assert coerce_path(path) is path


def test_from_dict_fills_defaults() -> None:
    path = RetrievalPath.from_dict(
        {"source": "a", "hops": [{"entity": {"name": "b"}, "fact_id": "f-1"}]}
    )
    assert path == RetrievalPath(EntityRef("", "a"), (PathHop(EntityRef("", "b"), "f-1"),), 1.0)
    assert path.target == EntityRef("", "b")
    assert RetrievalPath.from_dict({"source": {"name": "a"}}).hops == ()


def _good_hop() -> dict:
    return {
        "entity": {"kind": "function", "name": "b", "id": "m.b"},
        "fact_id": "f-1",
        "relation": "calls",
        "forward": True,
        "provenance": {"path": "m.py", "start_line": 1, "end_line": 2, "digest": ""},
    }


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["hops"][0].pop("fact_id"), "path.hops[0].fact_id"),
        (lambda d: d["hops"][0].update(fact_id="  "), "path.hops[0].fact_id"),
        (lambda d: d["hops"][0].update(fact_id=7), "path.hops[0].fact_id"),
        (lambda d: d["hops"][1].pop("entity"), "path.hops[1].entity"),
        (lambda d: d["hops"][1]["entity"].pop("name"), "path.hops[1].entity.name"),
        (lambda d: d["hops"][0]["entity"].update(kind=3), "path.hops[0].entity.kind"),
        (lambda d: d["hops"][0].update(forward="yes"), "path.hops[0].forward"),
        (lambda d: d["hops"][0].update(relation=None), "path.hops[0].relation"),
        (
            lambda d: d["hops"][0]["provenance"].pop("start_line"),
            "path.hops[0].provenance.start_line",
        ),
        (
            lambda d: d["hops"][0]["provenance"].update(start_line=True),
            "path.hops[0].provenance.start_line",
        ),
        (
            lambda d: d["hops"][0]["provenance"].update(end_line=1.9),
            "path.hops[0].provenance.end_line",
        ),
        (
            lambda d: d["hops"][0]["provenance"].update(start_line=3),
            "path.hops[0].provenance.end_line",
        ),
        (lambda d: d["hops"][0]["provenance"].update(path=""), "path.hops[0].provenance.path"),
        (
            lambda d: d["hops"][0]["provenance"].update(digest=None),
            "path.hops[0].provenance.digest",
        ),
        (lambda d: d["hops"][0].update(provenance="m.py:1"), "path.hops[0].provenance"),
        (lambda d: d["hops"].__setitem__(1, "f-2"), "path.hops[1]"),
        (lambda d: d.update(hops={}), "path.hops"),
        (lambda d: d.pop("source"), "path.source"),
        (lambda d: d.update(source={"kind": "class"}), "path.source.name"),
        (lambda d: d.update(strength="strong"), "path.strength"),
        (lambda d: d.update(strength=True), "path.strength"),
        (lambda d: d.update(strength=float("nan")), "path.strength"),
        (lambda d: d.update(strength=-3), "path.strength"),
        (lambda d: d.update(strength=0), "path.strength"),
    ],
)
def test_from_dict_names_the_bad_field(change, field: str) -> None:
    data = {"source": {"name": "a"}, "hops": [_good_hop(), _good_hop()], "strength": 0.5}
    RetrievalPath.from_dict(data)  # valid before the change
    change(data)
    with pytest.raises(ConfigurationError) as raised:
        RetrievalPath.from_dict(data)
    message = str(raised.value)
    assert message.startswith(field + " ") or message.startswith(field + ".")


@pytest.mark.parametrize("value", [None, [], "path", 3])
def test_from_dict_needs_an_object(value: object) -> None:
    with pytest.raises(ConfigurationError, match="'source' and 'hops'"):
        coerce_path(value)  # type: ignore[arg-type]


# -- on an indexed repository --------------------------------------------------------


def test_method_form_on_sqlite_matches_function_and_memory_store(
    sample_repo: Path, store: SqliteGraphStore
) -> None:
    index_tree(sample_repo, store)
    paths = store.recall_paths("Circle", "format_area", limit=10)
    assert paths == recall_paths(store, "Circle", "format_area", limit=10)
    facts = {fact.fact_id: fact for e in store.all_entities() for fact in store.facts_of(e.id)}
    memory = MemoryGraphStore(store.all_entities(), facts.values())
    assert memory.recall_paths("Circle", "format_area", limit=10) == paths
    # Worked out from tests/fixtures/sample_repo: Circle has 13 traversable facts;
    # ADR-0001 and label 3 each (tie: "decided" sorts before "defines"); the 3-hop paths
    # rank by the degrees passed: Shape 7 then base 2 -> 1/14, Shape 7 then ADR-0001 3
    # -> 1/21, test_label 4 (two facts each way) then label 5 -> 1/20 four times,
    # Shape 7 then describe 4 -> 1/28, area 6 then label 5 -> 1/30.
    assert routes(paths) == [
        "Circle ADR-0001 format_area",
        "Circle label format_area",
        "Circle Shape base format_area",
        "Circle Shape ADR-0001 format_area",
        *["Circle test_label label format_area"] * 4,
        "Circle Shape describe format_area",
        "Circle area label format_area",
    ]
    assert paths[0].strength == pytest.approx(D / 13 * D / 3)
    assert [(hop.relation, hop.forward) for hop in paths[0].hops] == [
        ("decided", False),
        ("decided", True),
    ]
    assert paths[0].hops[0].provenance == Provenance(
        "docs/adr/0001-use-circles.md", 9, 9, paths[0].hops[0].provenance.digest
    )
    assert paths[9].hops[0].entity.label() == "method Circle.area"
    assert store.recall_paths("Circle") == recall_paths(store, "Circle")


def _facts_by_id(store: SqliteGraphStore) -> dict[str, Fact]:
    return {fact.fact_id: fact for e in store.all_entities() for fact in store.facts_of(e.id)}


def test_fact_ids_survive_reindexing_unchanged_files(
    sample_repo: Path, store: SqliteGraphStore
) -> None:
    index_tree(sample_repo, store)
    before = _facts_by_id(store)
    base = sample_repo / "shapes" / "base.py"
    base.write_bytes(base.read_bytes())
    os.utime(base, (1_000_000_000, 1_000_000_000))
    (sample_repo / "shapes" / "extra.py").write_text("def unrelated_extra():\n    return 1\n")
    report = index_tree(sample_repo, store)
    assert report.files_indexed == 1  # only the new file
    after = _facts_by_id(store)
    assert set(before) < set(after)
    for fact_id, old in before.items():
        new = after[fact_id]
        assert (new.fact_id, new) == (fact_id, old)  # same triple and provenance


def test_fact_ids_survive_line_moves(sample_repo: Path, store: SqliteGraphStore) -> None:
    index_tree(sample_repo, store)
    before = _facts_by_id(store)
    base = sample_repo / "shapes" / "base.py"
    base.write_text("# moved down one line\n" + base.read_text())
    assert index_tree(sample_repo, store).files_indexed == 1
    after = _facts_by_id(store)
    assert set(after) == set(before)
    moved = [
        fact_id
        for fact_id, old in before.items()
        if old.provenance is not None and old.provenance.path == "shapes/base.py"
    ]
    assert moved
    for fact_id in moved:
        old, new = before[fact_id].provenance, after[fact_id].provenance
        assert (new.start_line, new.end_line) == (old.start_line + 1, old.end_line + 1)


def test_fresh_index_of_the_same_tree_has_the_same_fact_ids(
    sample_repo: Path, store: SqliteGraphStore, tmp_path: Path
) -> None:
    index_tree(sample_repo, store)
    with SqliteGraphStore(tmp_path / "other.db") as other:
        index_tree(sample_repo, other)
        assert _facts_by_id(other) == _facts_by_id(store)
        assert other.recall_paths("Kreis", "square", max_hops=5) == store.recall_paths(
            "Kreis", "square", max_hops=5
        )


# -- properties ----------------------------------------------------------------------


def _brute_force(store: MemoryGraphStore, source: str, target: str | None, max_hops: int):
    """Every simple path from ``source`` (to ``target``) of at most ``max_hops`` facts,
    through resolved entities only, as (entity ids, strength)."""
    entities = {e.id: e for e in store.all_entities()}

    def edges(entity_id: str) -> list[tuple[str, str]]:
        found = []
        for item in store.facts_of(entity_id):
            other = item.object if item.subject == entity_id else item.subject
            if other != entity_id and other in entities and entities[other].resolved:
                found.append((item.fact_id, other))
        return found

    results = []

    def walk(ids: list[str], strength: float) -> None:
        end = ids[-1]
        if target is not None and end == target and len(ids) > 1:
            results.append((tuple(ids), strength))
            return
        out = edges(end)
        if len(ids) - 1 == max_hops or (target is None and not out):
            if target is None and len(ids) > 1:
                results.append((tuple(ids), strength))
            return
        step = strength * FLOW_DECAY / len(out) if out else 0.0
        extended = False
        for _, other in out:
            if other not in ids:
                extended = True
                walk([*ids, other], step)
        if target is None and not extended and len(ids) > 1:
            results.append((tuple(ids), strength))

    walk([source], 1.0)
    return results


@st.composite
def graphs(draw):
    size = draw(st.integers(min_value=2, max_value=7))
    names = [f"n{i}" for i in range(size)]
    unresolved = draw(st.sets(st.sampled_from(names[2:]))) if size > 2 else set()
    entities = [
        Entity(f"m.{name}", EntityKind.FUNCTION, name, resolved=name not in unresolved)
        for name in names
    ]
    pairs = draw(
        st.lists(
            st.tuples(
                st.sampled_from(names),
                st.sampled_from([CALLS, DEFINES, INHERITS]),
                st.sampled_from(names),
            ),
            max_size=16,
        )
    )
    return MemoryGraphStore(entities, [Fact(f"m.{a}", rel, f"m.{b}") for a, rel, b in pairs])


@settings(max_examples=300, deadline=None)
@given(graphs(), st.integers(min_value=1, max_value=4), st.integers(min_value=1, max_value=6))
def test_shortest_paths_properties(store: MemoryGraphStore, max_hops: int, limit: int) -> None:
    paths = recall_paths(store, "m.n0", "m.n1", max_hops=max_hops, limit=limit)
    assert len(paths) <= limit
    for path in paths:
        ids = [path.source.id, *(hop.entity.id for hop in path.hops)]
        assert 1 <= len(path) <= max_hops
        assert ids[0] == "m.n0" and ids[-1] == "m.n1"
        assert len(set(ids)) == len(ids)
        assert all(store.get_entity(id_).resolved for id_ in ids)
        for previous, hop in zip(ids, path.hops, strict=False):
            found = [f for f in store.facts_of(previous) if f.fact_id == hop.fact_id]
            assert found and (found[0].subject == previous) == hop.forward
    ranks = [(len(path), -path.strength) for path in paths]
    assert ranks == sorted(ranks)
    # Complete and correctly ranked: the same (length, strength) ranks as brute force.
    expected = sorted(
        (len(ids) - 1, -round(strength, 12))
        for ids, strength in _brute_force(store, "m.n0", "m.n1", max_hops)
    )[:limit]
    assert [(length, round(strength, 12)) for length, strength in ranks] == expected


@settings(max_examples=300, deadline=None)
@given(graphs(), st.integers(min_value=1, max_value=4), st.integers(min_value=1, max_value=6))
def test_strongest_paths_properties(store: MemoryGraphStore, max_hops: int, limit: int) -> None:
    paths = recall_paths(store, "m.n0", max_hops=max_hops, limit=limit)
    assert len(paths) <= limit
    for path in paths:
        ids = [path.source.id, *(hop.entity.id for hop in path.hops)]
        assert 1 <= len(path) <= max_hops and ids[0] == "m.n0"
        assert len(set(ids)) == len(ids)
    full = [len(path) == max_hops for path in paths]
    assert full == sorted(full, reverse=True)  # full-length paths first
    for group in (True, False):
        strengths = [p.strength for p, is_full in zip(paths, full, strict=True) if is_full == group]
        assert strengths == sorted(strengths, reverse=True)
    candidates = _brute_force(store, "m.n0", None, max_hops)
    expected = sorted(
        (len(ids) - 1 != max_hops, -round(strength, 12)) for ids, strength in candidates
    )[:limit]
    assert [(len(p) != max_hops, -round(p.strength, 12)) for p in paths] == expected


def _clique(size: int) -> MemoryGraphStore:
    """Functions that all call each other: simple paths grow as size ** hops."""
    entities = [entity(f"c{i}") for i in range(size)]
    facts = [Fact(f"m.c{i}", CALLS, f"m.c{j}") for i in range(size) for j in range(i + 1, size)]
    return MemoryGraphStore(entities, facts)


def test_the_search_budget_bounds_a_dense_graph(monkeypatch) -> None:
    import citeloop.knowledge.path_search as path_search

    monkeypatch.setattr(path_search, "MAX_SEARCH_STEPS", 2_000)
    store = _clique(10)
    # With a target: the direct call still comes first, within the budget.
    shortest = recall_paths(store, "c0", "c9", max_hops=10, limit=3)
    assert [len(path) for path in shortest][:1] == [1]
    # Without one: out of budget, the longest queued paths stand in, all simple.
    strongest = recall_paths(store, "c0", max_hops=10, limit=5)
    assert len(strongest) == 5
    for path in strongest:
        ids = [path.source.id, *(hop.entity.id for hop in path.hops)]
        assert len(ids) == len(set(ids)) and len(path) >= 3


def test_a_name_that_is_also_an_id_resolves_to_both() -> None:
    store = MemoryGraphStore(
        [Entity("b", EntityKind.FUNCTION, "zz"), entity("b")], [Fact("b", CALLS, "m.b")]
    )
    assert {e.id for e in resolve_entities(store, "b")} == {"b", "m.b"}
    assert [len(path) for path in recall_paths(store, "zz", "m.b")] == [1]


def test_long_names_from_the_graph_are_carried_as_they_are() -> None:
    deep = "pkg." + ".".join("N" * 120 for _ in range(5))
    store = MemoryGraphStore(
        [entity("helper"), Entity(deep, EntityKind.CLASS, "N" * 120)],
        [Fact("m.helper", CALLS, deep)],
    )
    (path,) = recall_paths(store, "helper")
    assert path.target.id == deep
