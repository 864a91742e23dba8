"""Personalized PageRank over a context's candidates, and the hub damping."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from citeloop.knowledge import Fact, RelationKind, ranking
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


def _plain_pagerank(nodes, facts, seeds):
    """The textbook loop over every node, as ranking.py computed it before its fast path."""
    from citeloop.knowledge.ranking import ITERATIONS, RESTART, WEIGHTS

    index = {node: position for position, node in enumerate(dict.fromkeys(nodes))}
    size = len(index)
    restart = [0.0] * size
    for node, weight in seeds.items():
        if node in index and weight > 0:
            restart[index[node]] += weight
    total = sum(restart)
    if not total:
        return dict.fromkeys(index, 0.0)
    restart = [weight / total for weight in restart]
    edges = [[] for _ in range(size)]
    for fact in facts:
        source, target = index.get(fact.subject), index.get(fact.object)
        if source is None or target is None or source == target:
            continue
        forward, backward = WEIGHTS.get(fact.relation, (0.5, 0.5))
        edges[source].append((target, forward))
        edges[target].append((source, backward))
    out = [sum(weight for _, weight in targets) for targets in edges]
    score = list(restart)
    for _ in range(ITERATIONS):
        flow = [0.0] * size
        dangling = 0.0
        for source, targets in enumerate(edges):
            mass = score[source]
            if not targets:
                dangling += mass
                continue
            share = (1.0 - RESTART) * mass / out[source]
            for target, weight in targets:
                flow[target] += share * weight
        spread = RESTART + (1.0 - RESTART) * dangling
        score = [flow[i] + spread * restart[i] for i in range(size)]
    return {node: score[position] for node, position in index.items()}


@pytest.mark.parametrize("seed", range(40))
def test_pagerank_scores_are_bit_identical_to_the_plain_loop(seed):
    """Skipping nodes without mass changes no score, not even in the last bit (so ties
    and the rendered context stay the same)."""
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(rng.randint(1, 60))]
    facts = [
        Fact(rng.choice(nodes), rng.choice(list(RelationKind)), rng.choice([*nodes, "outside"]))
        for _ in range(rng.randint(0, 150))
    ]
    seeds = {rng.choice(nodes): rng.random() for _ in range(rng.randint(0, 4))}
    fast = personalized_pagerank(nodes, facts, seeds)
    assert fast == _plain_pagerank(nodes, facts, seeds)
    assert list(fast) == list(dict.fromkeys(nodes))


@pytest.mark.parametrize("path", ["loop", "arrays"])
@pytest.mark.parametrize("seed", range(12))
def test_both_walks_give_the_plain_loops_scores_bit_for_bit(seed, path, monkeypatch):
    """The numpy walk (many edges) and the plain one (few) score alike, to the last bit,
    on graphs with sinks, isolated nodes and parallel facts."""
    monkeypatch.setattr(ranking, "ARRAY_EDGES", 0 if path == "arrays" else 10**9)
    monkeypatch.setattr(ranking, "IMPORT_EDGES", 0)
    rng = random.Random(1000 + seed)
    nodes = [f"n{i}" for i in range(rng.randint(1, 400))]
    facts = [
        Fact(rng.choice(nodes), rng.choice(list(RelationKind)), rng.choice([*nodes, "outside"]))
        for _ in range(rng.randint(0, 5 * len(nodes)))
    ]
    seeds = {rng.choice(nodes): rng.choice([rng.random(), 1.0, 0.0]) for _ in range(30)}
    scores = personalized_pagerank(nodes, facts, seeds)
    assert scores == _plain_pagerank(nodes, facts, seeds)
    assert all(type(score) is float for score in scores.values())


def _numpy_loaded_after_each(walks: int, size: int) -> list[bool]:
    """In a new process: whether numpy is loaded after each of ``walks`` walks over a
    ring of ``size`` calls (``2 * size`` edges)."""
    code = (
        "import json, sys; from citeloop.knowledge.model import Fact, RelationKind;"
        "from citeloop.knowledge.ranking import personalized_pagerank as p;"
        f"nodes = [f'n{{i}}' for i in range({size})];"
        f"facts = [Fact(f'n{{i}}', RelationKind.CALLS, f'n{{(i * 7) % {size}}}')"
        f" for i in range({size})];"
        f"print(json.dumps([bool(p(nodes, facts, {{'n1': 1.0}})) and 'numpy' in sys.modules"
        f" for _ in range({walks})]))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_small_walk_does_not_import_numpy():
    """A one-shot command pays no numpy import for a walk that would not win it back."""
    assert _numpy_loaded_after_each(1, 300) == [False]


def test_a_process_that_keeps_walking_imports_numpy_once_its_walks_add_up():
    """Numpy is imported when this process's walks reach IMPORT_EDGES edges in all (the
    import is then won back), never for one walk below it."""
    assert ranking.IMPORT_EDGES == 20_000
    # 6,000 edges a walk (two per fact): the fourth walk reaches 24,000 >= 20,000.
    assert _numpy_loaded_after_each(4, 3000) == [False, False, False, True]


def test_an_example_script_ranks_below_the_library_it_matches_as_well() -> None:
    """Two lexical hits of the same weight, one in the library and one in a
    documentation script (`doc/conf.py`'s `github_token`): the script's ranks below, and
    a test's only when the task is not about tests."""
    from citeloop.knowledge import Entity, EntityKind
    from citeloop.knowledge.candidate_order import rank_scores
    from citeloop.knowledge.model import Reason
    from citeloop.knowledge.neighbourhood import Candidates

    found = Candidates()
    for entity_id, path in (
        ("pkg.text.token", "pkg/text.py"),
        ("conf.github_token", "doc/conf.py"),
        ("tests.test_text.token", "tests/test_text.py"),
    ):
        entity = Entity(entity_id, EntityKind.FUNCTION, entity_id.rpartition(".")[2], path, 1)
        found.seed(entity, Reason.LEXICAL, 1.0)
    scores = rank_scores(found, follow_tests=True, damp_tests=True)
    assert scores["pkg.text.token"] > scores["conf.github_token"]
    assert scores["pkg.text.token"] > scores["tests.test_text.token"]
    about_tests = rank_scores(found, follow_tests=True, damp_tests=False)
    assert about_tests["tests.test_text.token"] == about_tests["pkg.text.token"]
    assert about_tests["pkg.text.token"] > about_tests["conf.github_token"]
