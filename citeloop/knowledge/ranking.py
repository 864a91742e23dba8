"""One score per entity around a task: personalized PageRank from what the task names.

The candidates are the seeds (the entities the task names as code, its lexical hits,
the names a previous answer used) and their neighbourhood in the graph. A random walk
restarts at the seeds in proportion to their weights (personalized PageRank; Haveliwala,
"Topic-Sensitive PageRank", WWW 2002; the way aider ranks its repository map) and moves
along facts with these weights, so that what a seed calls or inherits from, and what
calls it, rank ahead of the members a class merely defines, and the types a signature
names (``uses_type``: the data a function takes or gives, a looser tie than a call) at
half a call's weight:

============  ===================  ===================
relation      subject -> object    object -> subject
============  ===================  ===================
calls         1.0                  0.6
inherits      1.0                  0.8
defines       0.3 (a class's)      0.8 (a member's)
tested_by     0.4                  0.4
traces        0.6                  0.6
decided       0.6                  0.6
references    1.0                  0.6
uses_type     0.5                  0.3
overrides     0.5                  1.0
============  ===================  ===================

Each entity's score is then damped
(:func:`~citeloop.knowledge.candidate_order.rank_scores`) for a hub (beyond
:data:`HUB_DEGREE` facts among the candidates, by the logarithm of its degree), for a
private name, for a definition nested inside another that no seed names, and, unless
the task is about tests, for test code.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping

from citeloop.knowledge.model import Fact, RelationKind

RESTART = 0.3
"""Probability that the walk jumps back to a seed at each step (1 - damping)."""

ITERATIONS = 30
"""Power iterations; the scores of a few hundred candidates settle well before."""

PRIVATE_FACTOR = 0.6
"""Score factor of a private (``_``-prefixed) entity."""

TEST_CODE_FACTOR = 0.5
"""Score factor of an entity in test code (a class or helper under ``tests/``), unless
the task is about tests: a question about what a library does is about its own code."""

EXAMPLE_CODE_FACTOR = 0.5
"""Score factor of an entity in an example or documentation script
(:func:`~citeloop.knowledge.model.is_example_path`: ``examples/``, ``doc/conf.py``),
and weight factor of such a seed: a script's ``github_token = os.getenv(...)`` or
``exclude_patterns`` had matched a played question's "token" and "pattern", and a
question about a library is about its own code. On the SWE-QA context benchmark it
held the four repositories' recall and raised scikit-learn's by 0.8 points (matplotlib
0.2 less, six more repositories unchanged)."""

NESTED_FACTOR = 0.5
"""Score factor of a function or class defined inside another (a closure, a helper
inside a method; :func:`~citeloop.knowledge.model.enclosing`) that no seed names: a
detail of what encloses it, which the context shows first."""

WEIGHTS: Mapping[RelationKind, tuple[float, float]] = {
    RelationKind.CALLS: (1.0, 0.6),
    RelationKind.INHERITS: (1.0, 0.8),
    RelationKind.DEFINES: (0.3, 0.8),
    RelationKind.TESTED_BY: (0.4, 0.4),
    RelationKind.TRACES: (0.6, 0.6),
    RelationKind.DECIDED: (0.6, 0.6),
    RelationKind.REFERENCES: (1.0, 0.6),
    RelationKind.USES_TYPE: (0.5, 0.3),
    RelationKind.OVERRIDES: (0.5, 1.0),
}
"""Edge weights of a fact (forward, backward), see the module docstring."""


def personalized_pagerank(
    nodes: Iterable[str], facts: Iterable[Fact], seeds: Mapping[str, float]
) -> dict[str, float]:
    """Scores of ``nodes`` for a walk that restarts at ``seeds`` (weights, any scale).

    Args:
        nodes: The candidate entity ids.
        facts: Facts; those with an end outside ``nodes`` are left out.
        seeds: Restart weight by entity id (ids outside ``nodes`` are left out).

    Returns:
        Score by node id, summing to 1 (all 0 when no seed is a node).
    """
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
    edges: list[list[tuple[int, float]]] = [[] for _ in range(size)]
    for fact in facts:
        source, target = index.get(fact.subject), index.get(fact.object)
        if source is None or target is None or source == target:
            continue
        forward, backward = WEIGHTS.get(fact.relation, (0.5, 0.5))
        edges[source].append((target, forward))
        edges[target].append((source, backward))
    walked = [
        (source, tuple(targets), sum(weight for _, weight in targets))
        for source, targets in enumerate(edges)
        if targets
    ]
    sinks = [source for source, targets in enumerate(edges) if not targets]
    starts = [(position, start) for position, start in enumerate(restart) if start]
    edge_count = sum(len(targets) for _, targets, _ in walked)
    if edge_count >= ARRAY_EDGES and _arrays_pay(edge_count):
        score = _iterate_arrays(restart, walked, sinks, starts)
    else:
        score = _iterate(restart, walked, sinks, starts)
    return {node: score[position] for node, position in index.items()}


def _iterate(
    restart: list[float],
    walked: list[tuple[int, tuple[tuple[int, float], ...], float]],
    sinks: list[int],
    starts: list[tuple[int, float]],
) -> list[float]:
    """The power iterations, one node and edge at a time.

    The same sums in the same order as a plain loop over every node, so scores (and
    ties) do not change: a node without mass adds exact zeros (not tested for), and
    only the seeds add a restart term (another node's is zero; ``x + 0.0 == x``).
    """
    keep = 1.0 - RESTART
    score = list(restart)
    for _ in range(ITERATIONS):
        flow = [0.0] * len(score)
        for source, targets, out in walked:
            share = keep * score[source] / out
            for target, weight in targets:
                flow[target] += share * weight
        dangling = 0.0
        for source in sinks:
            dangling += score[source]
        spread = RESTART + keep * dangling
        for position, start in starts:
            flow[position] += spread * start
        score = flow
    return score


def _iterate_arrays(
    restart: list[float],
    walked: list[tuple[int, tuple[tuple[int, float], ...], float]],
    sinks: list[int],
    starts: list[tuple[int, float]],
) -> list[float]:
    """:func:`_iterate` over numpy arrays, bit for bit: each product and quotient is the
    same IEEE operation on the same operands, ``np.add.at`` adds the edges' shares into
    ``flow`` one at a time in edge order (unbuffered), and ``np.cumsum`` adds the
    dangling mass in sink order, so every sum is taken in the same order."""
    import numpy as np  # here: importing it costs more than a small walk

    keep = 1.0 - RESTART
    out = np.ones(len(restart))
    for source, _, total in walked:
        out[source] = total
    sources = np.array([source for source, targets, _ in walked for _ in targets], np.intp)
    targets = np.array([target for _, pairs, _ in walked for target, _ in pairs], np.intp)
    weights = np.array([weight for _, pairs, _ in walked for _, weight in pairs])
    sink_ids = np.array(sinks, np.intp)
    seed_ids = np.array([position for position, _ in starts], np.intp)
    seed_starts = np.array([start for _, start in starts])
    score = np.array(restart)
    for _ in range(ITERATIONS):
        flow = np.zeros(len(restart))
        np.add.at(flow, targets, (keep * score / out)[sources] * weights)
        dangling = np.cumsum(score[sink_ids])[-1] if len(sinks) else 0.0
        flow[seed_ids] += (RESTART + keep * dangling) * seed_starts
        score = flow
    return [float(part) for part in score]


ARRAY_EDGES = 160
"""Edges (two per fact among the candidates) from which the walk runs on numpy arrays
(:func:`_iterate_arrays`, the same scores) once numpy is loaded; below, the plain loop
is faster."""

IMPORT_EDGES = 20_000
"""Edges, over the walks of this process, from which a walk imports numpy itself:
importing it costs about 0.1 s, which one smaller walk never wins back (a one-shot
command such as ``citeloop context``), while a process that keeps walking (a server, a
batch) wins it back within a few walks (on a 5,000-edge walk the arrays save about
15 ms)."""

_walked = [0]
"""Edges of this process's walks of at least :data:`ARRAY_EDGES` (a list: updated in
place, without a ``global``; a race between threads only miscounts a walk)."""


def _arrays_pay(edge_count: int) -> bool:
    """Whether a walk of ``edge_count`` edges (at least :data:`ARRAY_EDGES`) runs on
    numpy arrays: numpy is loaded, or this process's walks have reached
    :data:`IMPORT_EDGES` edges with this one."""
    _walked[0] += edge_count
    return "numpy" in sys.modules or _walked[0] >= IMPORT_EDGES


HUB_DEGREE = 32
"""Degree among the candidates above which an entity counts as a hub."""


def hub_factor(degree: int) -> float:
    """Damping of a candidate with ``degree`` facts among the candidates: 1 up to
    :data:`HUB_DEGREE`, then ``1 / log2(degree / HUB_DEGREE * 2)``, so that a class
    everything touches does not crowd out the rest."""
    return 1.0 if degree <= HUB_DEGREE else 1.0 / math.log2(2 * degree / HUB_DEGREE)
