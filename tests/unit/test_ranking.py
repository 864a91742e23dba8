"""Personalized PageRank over a context's candidates, and the hub damping."""

from __future__ import annotations

import pytest

from citeloop.knowledge import Fact, RelationKind
from citeloop.knowledge.ranking import HUB_DEGREE, hub_factor, personalized_pagerank


def fact(subject: str, relation: RelationKind, object_: str) -> Fact:
    return Fact(subject, relation, object_)


def test_scores_sum_to_one_and_favour_the_seed() -> None:
    nodes = ["a", "b", "c", "d"]
    facts = [fact("a", RelationKind.CALLS, "b"), fact("b", RelationKind.CALLS, "c")]
    scores = personalized_pagerank(nodes, facts, {"a": 1.0})
    assert sum(scores.values()) == pytest.approx(1.0)
    assert min(scores["a"], scores["b"]) > scores["c"] > 0  # b gets a's flow and c's
    assert scores["d"] == 0  # unreachable from the seed


def test_a_callee_and_a_base_outrank_a_member() -> None:
    nodes = ["Hub", "callee", "Base", "member"]
    facts = [
        fact("Hub", RelationKind.CALLS, "callee"),
        fact("Hub", RelationKind.INHERITS, "Base"),
        fact("Hub", RelationKind.DEFINES, "member"),
    ]
    scores = personalized_pagerank(nodes, facts, {"Hub": 1.0})
    assert min(scores["callee"], scores["Base"]) > scores["member"]


def test_seed_weights_split_the_restart() -> None:
    scores = personalized_pagerank(["a", "b"], [], {"a": 3.0, "b": 1.0})
    assert scores == pytest.approx({"a": 0.75, "b": 0.25})


def test_no_seed_among_the_nodes_scores_nothing() -> None:
    facts = [fact("a", RelationKind.CALLS, "b")]
    assert personalized_pagerank(["a", "b"], facts, {"z": 1.0}) == {"a": 0.0, "b": 0.0}
    assert personalized_pagerank([], [], {}) == {}


def test_facts_outside_the_nodes_and_self_loops_are_left_out() -> None:
    facts = [fact("a", RelationKind.CALLS, "a"), fact("a", RelationKind.CALLS, "outside")]
    assert personalized_pagerank(["a"], facts, {"a": 1.0}) == pytest.approx({"a": 1.0})


def test_hub_factor() -> None:
    assert hub_factor(0) == hub_factor(HUB_DEGREE) == 1.0
    assert hub_factor(HUB_DEGREE * 2) == pytest.approx(0.5)
    assert 0 < hub_factor(HUB_DEGREE * 64) < hub_factor(HUB_DEGREE * 2)
