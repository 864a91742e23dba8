"""Path recall speed on the langchain_core graph, and how it grows with ``max_hops``.

Run: ``python benchmarks/bench_paths.py``. Picks PAIRS random connected pairs of
classes, functions and methods with a fixed seed (a third each at undirected distance 1,
2 and 3), and prints the median ``recall_paths(store, a, b, max_hops=h)`` time per pair
for h = 1..6 with each one's ratio to h = 3, then the no-target mode at h = 3. Sources
and targets are passed as entity ids, so no search is widened by an ambiguous name.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import corpus_root, median_seconds

from citeloop.knowledge import EntityKind, SqliteGraphStore, index_tree, recall_paths

SEED = 20_240_601
PAIRS = 30
REPEATS = 3
HOPS = (1, 2, 3, 4, 5, 6)
BASELINE_HOPS = 3
ENDPOINT_KINDS = {EntityKind.CLASS, EntityKind.FUNCTION, EntityKind.METHOD}


def neighbours(store: SqliteGraphStore) -> dict[str, set[str]]:
    """The undirected graph ``recall_paths`` walks: resolved entities, no self-loops."""
    resolved = {entity.id for entity in store.all_entities() if entity.resolved}
    graph: dict[str, set[str]] = {entity_id: set() for entity_id in resolved}
    for entity_id in sorted(resolved):
        for fact in store.facts_of(entity_id):
            other = fact.object if fact.subject == entity_id else fact.subject
            if other != entity_id and other in resolved:
                graph[entity_id].add(other)
    return graph


def distances(graph: dict[str, set[str]], source: str, depth: int) -> dict[str, int]:
    """Breadth-first undirected hop distances from ``source``, up to ``depth``."""
    distance = {source: 0}
    frontier = [source]
    for level in range(1, depth + 1):
        following = []
        for entity_id in frontier:
            for other in sorted(graph[entity_id]):
                if other not in distance:
                    distance[other] = level
                    following.append(other)
        frontier = following
    return distance


def pick_pairs(store: SqliteGraphStore) -> list[tuple[str, str, int]]:
    """(source id, target id, distance): PAIRS pairs of endpoint-kind entities, cycling
    through distances 1, 2, 3, picked with a fixed seed."""
    graph = neighbours(store)
    endpoints = sorted(
        entity.id
        for entity in store.all_entities()
        if entity.resolved and entity.kind in ENDPOINT_KINDS and graph.get(entity.id)
    )
    rng = random.Random(SEED)
    pairs: list[tuple[str, str, int]] = []
    while len(pairs) < PAIRS:
        wanted = len(pairs) % BASELINE_HOPS + 1
        source = rng.choice(endpoints)
        reached = distances(graph, source, wanted)
        targets = [
            other
            for other, distance in sorted(reached.items())
            if distance == wanted and other in endpoints
        ]
        if targets:
            pairs.append((source, rng.choice(targets), wanted))
    return pairs


def per_search(searches: list[Callable[[], list]]) -> tuple[float, float, int, float]:
    """(median, 90th percentile) seconds per search over the searches (each the median
    of REPEATS runs), how many found a path, and the mean number of paths."""
    seconds = sorted(median_seconds(search, REPEATS) for search in searches)
    found = [len(search()) for search in searches]
    p90 = seconds[min(len(seconds) - 1, round(0.9 * (len(seconds) - 1)))]
    return statistics.median(seconds), p90, sum(1 for n in found if n), sum(found) / len(found)


def main() -> int:
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as scratch,
        SqliteGraphStore(Path(scratch) / "graph.db") as store,
    ):
        report = index_tree(corpus_root(), store)
        pairs = pick_pairs(store)

        def searches(max_hops: int) -> list[Callable[[], list]]:
            return [
                lambda a=a, b=b: recall_paths(store, a, b, max_hops=max_hops) for a, b, _ in pairs
            ]

        results = {hops: per_search(searches(hops)) for hops in HOPS}
        no_target = per_search(
            [lambda a=a: recall_paths(store, a, max_hops=BASELINE_HOPS) for a, _, _ in pairs]
        )
        # The worst cases: a dense neighbourhood at the largest max_hops, where simple
        # paths grow as degree ** hops and only the search budget bounds the work.
        worst = {
            label: max(median_seconds(search, 1) for _ in range(2))
            for label, search in (
                (
                    "sibling methods, max_hops=10",
                    lambda: recall_paths(
                        store, "BaseChatModel.OutputType", "BaseChatModel._llm_type", max_hops=10
                    ),
                ),
                (
                    "no target from Runnable.ainvoke, max_hops=10",
                    lambda: recall_paths(store, "Runnable.ainvoke", max_hops=10),
                ),
            )
        }

    mix = ", ".join(
        f"{sum(1 for *_, d in pairs if d == distance)} at distance {distance}"
        for distance in range(1, BASELINE_HOPS + 1)
    )
    print(
        f"langchain_core graph: {report.entities} entities, {report.relations} facts; "
        f"{len(pairs)} pairs (seed {SEED}; {mix}), limit=5, median of {REPEATS} per search"
    )
    print("max_hops  median ms  p90 ms  pairs with paths  paths/pair  vs max_hops=3")
    base = results[BASELINE_HOPS][0]
    for hops, (median, p90, found, mean) in results.items():
        print(
            f"{hops:8d}  {median * 1000:9.3f}  {p90 * 1000:6.2f}  {found:10d}/{len(pairs):<5d}"
            f"  {mean:10.2f}  {median / base:12.2f}x"
        )
    median, p90, found, mean = no_target
    print(
        f"no target, max_hops={BASELINE_HOPS}: {median * 1000:.3f} ms median, "
        f"{p90 * 1000:.2f} ms p90, {mean:.2f} paths/source, {median / base:.2f}x"
    )
    for label, seconds in worst.items():
        print(f"worst case, {label}: {seconds * 1000:.0f} ms ({seconds / base:.0f}x)")
    print(f"total {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
