"""Indexing speed: ``index_tree`` on langchain_core vs reading and ``ast.parse``-ing it.

Run: ``python benchmarks/bench_index.py``. Each of REPEATS paired rounds times the bare
parse of the files and then an index into a fresh SQLite file, back to back (so a busy
spell on the machine inflates one round's pair, not one side across every round);
the median of the rounds' ratios is judged, with their min and max
(``_common.report_result``). Exits 1 if it is over TARGET_RATIO.
"""

from __future__ import annotations

import ast
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import corpus_root, report_result

from citeloop.knowledge import SqliteGraphStore, index_tree

TARGET_RATIO = 3.0
REPEATS = 5


def seconds(action) -> float:
    """Wall time of one run of ``action``, after a full garbage collection."""
    gc.collect()
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> int:
    root = corpus_root()
    files = sorted(root.rglob("*.py"))
    lines = sum(path.read_bytes().count(b"\n") for path in files)

    def parse_all() -> None:
        for path in files:
            ast.parse(path.read_bytes(), filename=str(path))

    ratios = []
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(REPEATS):
            baseline = seconds(parse_all)

            def index_fresh(run: int = run) -> None:
                with SqliteGraphStore(Path(scratch) / f"graph-{run}.db") as store:
                    index_tree(root, store)

            indexing = seconds(index_fresh)
            ratios.append(indexing / baseline)
            print(
                f"round {run + 1}: read + ast.parse {baseline * 1000:7.1f} ms, "
                f"index_tree into fresh SQLite {indexing * 1000:7.1f} ms, "
                f"ratio {indexing / baseline:.2f}x"
            )
        with SqliteGraphStore(Path(scratch) / "graph-0.db") as store:
            stats = store.stats()

    print(f"corpus: {root} ({len(files)} files, {lines} lines)")
    print(f"graph: {stats['entities']} entities, {stats['facts']} facts")
    met = report_result("index_tree / read + ast.parse", ratios, TARGET_RATIO)
    print(f"ratio: median {statistics.median(ratios):.2f}x (target <= {TARGET_RATIO:.1f}x)")
    if not met:
        print("FAIL: indexing is slower than the target", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
