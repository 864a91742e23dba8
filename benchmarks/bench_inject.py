"""Injection speed on the langchain_core graph, and how it grows with extra hops.

Run: ``python benchmarks/bench_inject.py``. Tasks each name three real classes, picked
with a fixed seed; prints the median ``inject`` time with the default walk and with
1, 2 and 3 extra hops, and each hop count's ratio to 1 extra hop.
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from _common import corpus_root, median_seconds

from citeloop.knowledge import (
    ContextExpansion,
    ContextInjector,
    EntityKind,
    SqliteGraphStore,
    index_tree,
)

SEED = 20_240_601
CLASSES = 21
REPEATS = 5


def pick_tasks(store: SqliteGraphStore) -> list[str]:
    """Tasks naming three public classes each, picked with a fixed seed."""
    names = sorted(
        {
            entity.name
            for entity in store.all_entities()
            if entity.kind is EntityKind.CLASS
            and entity.resolved
            and not entity.name.startswith("_")
        }
    )
    picked = random.Random(SEED).sample(names, CLASSES)
    return [
        f"How does {a} interact with {b} and {c}?"
        for a, b, c in zip(picked[0::3], picked[1::3], picked[2::3], strict=True)
    ]


def measure(
    injector: ContextInjector, tasks: list[str], extra_hops: int | None
) -> tuple[float, float]:
    """(median seconds per inject, mean entities per context) for one walk setting."""
    expansion = None if extra_hops is None else ContextExpansion(extra_hops=extra_hops)
    seconds = median_seconds(
        lambda: [injector.inject(task, expansion=expansion) for task in tasks], REPEATS
    )
    sizes = [len(injector.inject(task, expansion=expansion).entities) for task in tasks]
    return seconds / len(tasks), sum(sizes) / len(sizes)


def main() -> int:
    with (
        tempfile.TemporaryDirectory() as scratch,
        SqliteGraphStore(Path(scratch) / "graph.db") as store,
    ):
        index_tree(corpus_root(), store)
        tasks = pick_tasks(store)
        injector = ContextInjector(store, reuse_contexts=0)  # every repeat builds
        default, default_size = measure(injector, tasks, None)
        per_hop = {hops: measure(injector, tasks, hops) for hops in (1, 2, 3)}

    print(f"{len(tasks)} tasks naming {CLASSES} classes (seed {SEED}), median of {REPEATS}")
    print(f"default walk:  {default * 1000:7.2f} ms/inject, {default_size:5.1f} entities")
    base = per_hop[1][0]
    for hops, (seconds, size) in per_hop.items():
        print(
            f"extra_hops={hops}:  {seconds * 1000:7.2f} ms/inject, {size:5.1f} entities,"
            f" {seconds / base:.2f}x vs extra_hops=1"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
