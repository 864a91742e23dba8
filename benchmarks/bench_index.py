"""Indexing speed: ``index_tree`` on langchain_core vs reading and ``ast.parse``-ing it.

Run: ``python benchmarks/bench_index.py``. Exits 1 if indexing into a fresh SQLite file
takes more than TARGET_RATIO times the bare parse of the same files.
"""

from __future__ import annotations

import ast
import sys
import tempfile
from pathlib import Path

from _common import corpus_root, median_seconds

from citeloop.knowledge import SqliteGraphStore, index_tree

TARGET_RATIO = 3.0
REPEATS = 5


def main() -> int:
    root = corpus_root()
    files = sorted(root.rglob("*.py"))
    lines = sum(path.read_bytes().count(b"\n") for path in files)

    def parse_all() -> None:
        for path in files:
            ast.parse(path.read_bytes(), filename=str(path))

    with tempfile.TemporaryDirectory() as scratch:
        runs = iter(range(REPEATS))

        def index_fresh() -> None:
            with SqliteGraphStore(Path(scratch) / f"graph-{next(runs)}.db") as store:
                index_tree(root, store)

        baseline = median_seconds(parse_all, REPEATS)
        indexing = median_seconds(index_fresh, REPEATS)
        with SqliteGraphStore(Path(scratch) / "graph-0.db") as store:
            stats = store.stats()

    ratio = indexing / baseline
    print(f"corpus: {root} ({len(files)} files, {lines} lines)")
    print(f"graph: {stats['entities']} entities, {stats['facts']} facts")
    print(f"read + ast.parse (baseline): {baseline * 1000:8.1f} ms (median of {REPEATS})")
    print(f"index_tree into fresh SQLite: {indexing * 1000:8.1f} ms (median of {REPEATS})")
    print(f"ratio: {ratio:.2f}x (target <= {TARGET_RATIO:.1f}x)")
    if ratio > TARGET_RATIO:
        print("FAIL: indexing is slower than the target", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
