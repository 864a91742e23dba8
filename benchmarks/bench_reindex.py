"""Re-indexing after a one-line edit vs re-indexing the unchanged tree, on all site-packages.

Run: ``python benchmarks/bench_reindex.py`` (about 3 minutes). Exits 1 when the median
re-index after a one-line edit inside a function body takes more than TARGET_RATIO times
the median re-index of the unchanged tree.

The venv is never written: the ``.py`` files of its site-packages (``__pycache__`` and
other files left out, folders and ``__init__.py`` files kept) are copied into a temporary
folder, indexed fully once, then re-indexed RUNS times unchanged, RUNS times after a
one-line edit inside the body of EDITED_FUNCTION of EDITED (a 700-line module that 36
modules of langchain_core and langgraph import; ``; _bench_edit = N`` is appended to a
one-line statement, N alternating between 1 and 2 so that each run sees a change), and
ADD_RUNS times after a new top-level function is appended to the same module (reported,
no target).

Each ``index_tree`` runs in a fresh worker process (this script with ``--worker``): its
time covers opening the store, ``index_tree`` and closing the store (not the
interpreter's start-up), and its peak memory is the worker's ``ru_maxrss``, the peak
resident set of the whole process; the worker's RSS just before indexing is printed too
(the interpreter and imports).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import site_packages

TARGET_RATIO = 3.0
RUNS = 5
ADD_RUNS = 3
EDITED = "langchain_core/runnables/config.py"
EDITED_FUNCTION = "ensure_config"


def worker(root: str, db: str) -> None:
    """Index ``root`` into ``db`` once and print the figures as one JSON line."""
    from citeloop.knowledge import SqliteGraphStore, index_tree

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with SqliteGraphStore(db) as store:
        report = index_tree(root, store)
    seconds = time.perf_counter() - started
    figures = {
        "seconds": seconds,
        "files": report.files_seen,
        "indexed": report.files_indexed,
        "entities": report.entities,
        "facts": report.relations,
        "skipped": len(report.skipped),
        "rss_before_kib": before,
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    print(json.dumps(figures))


def index_in_worker(root: Path, db: Path) -> dict[str, float]:
    command = [sys.executable, __file__, "--worker", str(root), str(db)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"worker failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def copy_sources(source: Path, target: Path) -> int:
    """Copy the ``.py`` files below ``source`` into ``target``; returns how many."""

    def ignored(folder: str, names: list[str]) -> list[str]:
        return [
            name
            for name in names
            if name == "__pycache__"
            or (not name.endswith(".py") and not os.path.isdir(os.path.join(folder, name)))
        ]

    shutil.copytree(source, target, ignore=ignored)
    return sum(1 for _ in target.rglob("*.py"))


def edit_point(source: bytes, function: str) -> tuple[int, int]:
    """(0-based line, byte column) just after a one-line statement in ``function``'s body."""
    tree = ast.parse(source)
    found = next(
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function
    )
    statements = [node for node in ast.walk(found) if isinstance(node, ast.stmt)]
    for node in sorted(statements, key=lambda node: node.lineno):
        simple = not hasattr(node, "body")  # compound statements have a body
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if simple and not docstring and node.lineno == node.end_lineno:
            assert node.end_col_offset is not None
            return node.lineno - 1, node.end_col_offset
    raise ValueError(f"no one-line statement in the body of {function}")


def body_edits(source: bytes, function: str) -> list[bytes]:
    """Two versions of ``source``, each with one line of ``function``'s body edited."""
    line, column = edit_point(source, function)
    lines = source.splitlines(keepends=True)
    versions = []
    for value in (1, 2):
        edited = lines[line][:column] + b"; _bench_edit = %d" % value + lines[line][column:]
        versions.append(b"".join([*lines[:line], edited, *lines[line + 1 :]]))
    return versions


def summary(label: str, runs: list[dict[str, float]]) -> float:
    """Print min/median/max seconds and peak RSS of ``runs``; returns the median."""
    seconds = [run["seconds"] for run in runs]
    median = statistics.median(seconds)
    indexed = sorted({int(run["indexed"]) for run in runs})
    print(
        f"{label} ({len(runs)} runs): min {min(seconds):.2f} / median {median:.2f} / "
        f"max {max(seconds):.2f} s; files re-indexed {indexed}; "
        f"peak RSS max {max(run['peak_rss_kib'] for run in runs) / 1024:.0f} MiB"
    )
    return median


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=2, metavar=("ROOT", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_reindex-") as scratch:
        root, db = Path(scratch) / "site-packages", Path(scratch) / "graph.db"
        copying = time.perf_counter()
        files = copy_sources(site_packages(), root)
        print(
            f"copied {files} .py files of {site_packages()} in "
            f"{time.perf_counter() - copying:.1f} s"
        )
        full = index_in_worker(root, db)
        print(
            f"full index: {full['seconds']:.1f} s, {full['files']} files "
            f"({full['skipped']} skipped), {full['entities']} entities, {full['facts']} facts, "
            f"peak RSS {full['peak_rss_kib'] / 1024:.0f} MiB "
            f"(worker before index_tree: {full['rss_before_kib'] / 1024:.0f} MiB), "
            f"graph file {db.stat().st_size / 2**20:.0f} MiB"
        )

        unchanged = summary(
            "re-index, unchanged tree", [index_in_worker(root, db) for _ in range(RUNS)]
        )

        edited = root / EDITED
        versions = body_edits(edited.read_bytes(), EDITED_FUNCTION)
        line, _ = edit_point(edited.read_bytes(), EDITED_FUNCTION)
        runs = []
        for run in range(RUNS):
            edited.write_bytes(versions[run % 2])
            runs.append(index_in_worker(root, db))
        body = summary(f"re-index, body edit of {EDITED}:{line + 1} ({EDITED_FUNCTION})", runs)

        runs = []
        for run in range(ADD_RUNS):
            added = f"\n\ndef _bench_added_{run}() -> int:\n    return {run}\n"
            edited.write_bytes(edited.read_bytes() + added.encode())
            runs.append(index_in_worker(root, db))
        added_median = summary(f"re-index, new top-level function in {EDITED}", runs)

    ratio = body / unchanged
    print(f"ratio of medians, body edit / unchanged: {ratio:.2f}x (target <= {TARGET_RATIO:.1f}x)")
    added_ratio = added_median / unchanged
    print(f"ratio of medians, new function / unchanged: {added_ratio:.2f}x (no target)")
    print(f"total run time: {time.perf_counter() - started:.0f} s")
    if ratio > TARGET_RATIO:
        print("FAIL: re-indexing after a one-line edit is slower than the target", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
