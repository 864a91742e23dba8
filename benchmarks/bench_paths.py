"""Path search's tail on the site-packages graph: worst case against the median.

Run: ``python benchmarks/bench_paths.py`` (the first run indexes the dev venv's
site-packages, a few minutes, into ``~/.cache/citeloop-bench/paths/site-packages.db``,
env ``CITELOOP_BENCH_CACHE``; later runs reuse it). Picks PAIRS random pairs of
classes, functions and methods connected within MAX_HOPS facts (a fixed seed: a random
endpoint, then a random entity at a random distance 1..MAX_HOPS from it, by a
breadth-first search of the graph ``recall_paths`` walks) and times
``recall_paths(store, a, b, max_hops=MAX_HOPS)`` (default ``limit=5``; ids, so no name
is ambiguous), each the best of REPEATS runs on a store opened once (its read cache
warm, as in a long-lived process). Prints min/median/max ms, the worst/median ratio
and the slowest pairs. Exits 1 when a connected pair has no path, when the worst
exceeds TARGET_RATIO times the median, or when it takes TARGET_MS or more.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

from _common import site_packages

from citeloop.knowledge import EntityKind, SqliteGraphStore, index_tree, recall_paths
from citeloop.knowledge.model import UNWALKED_RELATIONS

SEED = 20_240_601
PAIRS = 50
MAX_HOPS = 5
REPEATS = 3
TARGET_RATIO = 20.0
TARGET_MS = 100.0
ENDPOINT_KINDS = {EntityKind.CLASS, EntityKind.FUNCTION, EntityKind.METHOD}


def graph_file() -> Path:
    """The cached graph of site-packages (indexed, or brought up to date, here)."""
    default = Path.home() / ".cache" / "citeloop-bench" / "paths"
    cache = Path(os.environ.get("CITELOOP_BENCH_CACHE", default))
    cache.mkdir(parents=True, exist_ok=True)
    db = cache / "site-packages.db"
    started = time.perf_counter()
    with SqliteGraphStore(db) as store:
        report = index_tree(site_packages(), store)
    print(
        f"graph of {site_packages()}: {report.entities} entities, {report.relations} facts "
        f"({report.files_indexed} files indexed in {time.perf_counter() - started:.0f} s)"
    )
    return db


def neighbours(store: SqliteGraphStore) -> dict[str, set[str]]:
    """The undirected graph ``recall_paths`` walks: resolved entities, no self-loops, no
    facts of ``UNWALKED_RELATIONS``."""
    entities = store.all_entities()
    resolved = {entity.id for entity in entities if entity.resolved}
    graph: dict[str, set[str]] = {entity_id: set() for entity_id in resolved}
    for entity_id, facts in store.facts_of_many(sorted(resolved)).items():
        for fact in facts:
            if fact.relation in UNWALKED_RELATIONS:
                continue
            other = fact.object if fact.subject == entity_id else fact.subject
            if other != entity_id and other in resolved:
                graph[entity_id].add(other)
    return graph


def pick_pairs(store: SqliteGraphStore) -> list[tuple[str, str, int]]:
    """(source id, target id, distance): PAIRS endpoint pairs, a random distance each."""
    graph = neighbours(store)
    endpoints = sorted(
        entity.id
        for entity in store.all_entities()
        if entity.resolved and entity.kind in ENDPOINT_KINDS and graph.get(entity.id)
    )
    endpoint_set = set(endpoints)
    rng = random.Random(SEED)
    pairs: list[tuple[str, str, int]] = []
    while len(pairs) < PAIRS:
        source, wanted = rng.choice(endpoints), rng.randint(1, MAX_HOPS)
        distance, frontier = {source: 0}, [source]
        for level in range(1, wanted + 1):
            frontier = [
                other
                for entity_id in frontier
                for other in sorted(graph[entity_id])
                if other not in distance and not distance.__setitem__(other, level)
            ]
        targets = sorted(other for other in frontier if other in endpoint_set)
        if targets:
            pairs.append((source, rng.choice(targets), wanted))
    return pairs


def main() -> int:
    db = graph_file()
    with SqliteGraphStore(db, read_only=True) as store:
        pairs = pick_pairs(store)
        timed = []
        for source, target, distance in pairs:
            seconds = []
            for _ in range(REPEATS):
                started = time.perf_counter()
                paths = recall_paths(store, source, target, max_hops=MAX_HOPS)
                seconds.append(time.perf_counter() - started)
            timed.append((min(seconds) * 1000, source, target, distance, len(paths)))
    milliseconds = sorted(item[0] for item in timed)
    median, worst = statistics.median(milliseconds), milliseconds[-1]
    mix = ", ".join(
        f"{sum(1 for *_, d, _ in timed if d == hops)} at {hops}" for hops in range(1, MAX_HOPS + 1)
    )
    print(
        f"{PAIRS} connected pairs (seed {SEED}; distance {mix}), max_hops={MAX_HOPS}, "
        f"limit=5, best of {REPEATS}"
    )
    print(
        f"ms per search: min {milliseconds[0]:.2f}  median {median:.2f}  max {worst:.2f}; "
        f"worst/median {worst / median:.1f}x (target <= {TARGET_RATIO:.0f}x, "
        f"< {TARGET_MS:.0f} ms)"
    )
    for ms, source, target, distance, found in sorted(timed, reverse=True)[:3]:
        print(f"  {ms:7.2f} ms  {source} -> {target} (distance {distance}, {found} paths)")
    missing = [item for item in timed if item[4] == 0]
    for _, source, target, distance, _ in missing:
        print(f"FAIL: no path for {source} -> {target}, {distance} hops apart")
    if missing or worst > TARGET_RATIO * median or worst >= TARGET_MS:
        print("FAIL: path search misses its target")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
