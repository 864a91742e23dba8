"""Time and peak memory against input size: scanners, indexing one file, path search.

Run: ``python benchmarks/bench_limits.py [--full]`` (about 3-5 minutes; the first run
also indexes the standard library, a few minutes more). Every measurement runs in a
child process of its own (so no run's memory counts in another's) and reports wall time
and peak memory: ``tracemalloc``'s peak for the scanners, and for indexing and path
search the growth of the child's maximum resident set (``resource.getrusage``) over
what it held before the measured call (the parent writes the file to index).

- Scanners: pathological answers (one code name repeated, a citation list of growing
  length) and a context name of growing dotted parts, through the public validators
  (``GraphContextValidator().validate``, ``validate_citations``, ``detect_repetition``)
  at 50k to 800k characters (each size the best of five runs).
- Indexing one generated Python file (classes, functions, long literal tables) of 1, 2,
  4 and 8 MB (``--full``: also 16 MB), INDEX_SERIES times, each a full index. Target:
  at most 40 MB of peak memory per MB of source, at each size (the largest peak of the
  series).
- ``recall_paths`` on the standard library's graph (its Python files, without installed
  packages, indexed once into ``~/.cache/citeloop-bench/stdlib-3.X.db``) at 4 to 10
  hops (the best of three searches), between distant entities
  (``argparse.ArgumentParser`` and ``threading.Thread``) and between
  ``ArgumentParser`` and an entity no path joins to it (found deterministically:
  :func:`child_unconnected`). Targets: each search under 10 s and 1 GB.

The growth of time per doubling of an input (characters, MB, hops) is one result per
series, taken over its whole range (the slope through its two ends, from the first run
of 50 ms or more), at most 2.3x; a scanner's is the median of SCAN_SERIES series, and
indexing's of INDEX_SERIES (min and max reported); each single doubling is printed
beside it. Results are printed with
``_common.report_result`` (the protocol ``run_all.py`` reads); exits 1 when a target is
missed.
"""

from __future__ import annotations

import gc
import json
import math
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

from _common import report_result

GROWTH_TARGET = 2.3
MB_PER_MB_TARGET = 40.0
PATH_SECONDS_TARGET = 10.0
PATH_MB_TARGET = 1000.0
NOISE_SECONDS = 0.05
SCAN_SIZES = (50_000, 100_000, 200_000, 400_000, 800_000)
SCAN_SERIES = 3
"""Series measured for each scanner: its growth is judged on their median (one series
on a busy machine can miss by a tenth)."""
INDEX_MB = (1, 2, 4, 8)
INDEX_SERIES = 3
"""Series of the indexing sizes measured: its time growth is judged on their median (one
series gave from 1.9x to 2.3x over a few runs on one machine)."""
PATH_HOPS = (4, 5, 6, 8, 10)
DISTANT = ("argparse.ArgumentParser", "threading.Thread")
CACHE = Path.home() / ".cache" / "citeloop-bench"


def generated_source(size: int) -> str:
    """Python source of about ``size`` characters: classes with methods, functions that
    call each other, and long literal tables, as in generated or vendored code."""
    parts = ['"""Generated module."""\nimport os\nfrom collections import OrderedDict\n\n']
    total, number = len(parts[0]), 0
    while total < size:
        kind = number % 3
        if kind == 0:
            block = (
                f"class Widget{number}(OrderedDict):\n"
                f'    """Widget number {number}."""\n\n    limit: int = {number}\n\n'
                f"    def __init__(self, size: int = {number}) -> None:\n"
                "        super().__init__()\n        self.size = size\n"
                "        self.name = os.path.join('w', str(size))\n\n"
                "    def grow(self, by: int) -> int:\n        total = self.size + by\n"
                f"        if total > self.limit:\n            return helper_{number + 1}(total)\n"
                "        return total\n\n\n"
            )
        elif kind == 1:
            block = (
                f'def helper_{number}(value: int) -> int:\n    """Helper {number}."""\n'
                "    result = [x * 2 for x in range(value) if x % 3]\n"
                f"    return len(result) + helper_{number - 1}(value - 1)\n\n\n"
            )
        else:
            rows = ",\n".join(f"    ({row}, 'name_{row}', {row}.5, None)" for row in range(40))
            block = (
                f"TABLE_{number} = [\n{rows},\n]\n\n\n"
                f"def helper_{number}(value):\n    return TABLE_{number}[value % 40]\n\n\n"
            )
        parts.append(block)
        total += len(block)
        number += 1
    return "".join(parts)


# -- children -----------------------------------------------------------------------------


def _scan_inputs(kind: str, size: int) -> tuple[object, ...]:
    if kind == "repeated_name":
        answer = "`Circle` " * (size // 9)
        return answer + "\n\n## Entities used\n- Circle\n", "# a.py\nclass Circle  # L1-2\n"
    if kind == "citation_list":
        items = "".join(f"- Name{i}\n" for i in range(size // 10))
        return "Body.\n\n## Entities used\n" + items, "# a.py\nclass Name1  # L1-2\n"
    if kind == "dotted_context_name":
        dotted = ".".join(f"p{i}" for i in range(size // 4000))
        answer = ("p1 uses p2. " * (size // 12)) + "\n\n## Entities used\n- p1\n"
        return answer, f"# a.py\nclass {dotted}  # L1-2\n"
    raise ValueError(kind)


def child_scan(kind: str, size: int) -> dict[str, float]:
    import citeloop

    answer, context = _scan_inputs(kind, size)
    validator = citeloop.GraphContextValidator()

    def scan() -> None:
        validator.validate(answer, context)
        citeloop.validate_citations(answer)
        citeloop.detect_repetition(answer)

    seconds = float("inf")
    gc.disable()  # as timeit does: a collection's pause is the allocator's, not the scan's
    try:
        for _ in range(5):  # the best of five: a busy machine only ever adds time
            start = time.perf_counter()
            scan()
            seconds = min(seconds, time.perf_counter() - start)
    finally:
        gc.enable()
    tracemalloc.start()
    scan()
    peak = tracemalloc.get_traced_memory()[1]
    return {"seconds": seconds, "peak_mb": peak / 1e6}


def _max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def child_index(folder: str) -> dict[str, float]:
    from citeloop import SqliteGraphStore, index_tree

    root = Path(folder)
    before = _max_rss_mb()  # the file was written by the parent: only indexing counts here
    start = time.perf_counter()
    with SqliteGraphStore(root / "graph.db") as store:
        report = index_tree(root / "src", store, max_file_bytes=10**9)
    seconds = time.perf_counter() - start
    assert report.files_indexed == 1, report.skipped
    return {"seconds": seconds, "peak_mb": _max_rss_mb() - before, "entities": report.entities}


def child_paths(db: str, source: str, target: str, hops: int) -> dict[str, float]:
    """The best of three searches, each on a fresh connection (the operating system's file
    cache stays warm), and the growth of the resident set over all three."""
    from citeloop import SqliteGraphStore, recall_paths

    seconds, found, before = float("inf"), [], 0.0
    for run in range(3):
        with SqliteGraphStore(db, read_only=True) as store:
            store.stats()
            if not run:
                before = _max_rss_mb()
            start = time.perf_counter()
            found = recall_paths(store, source, target, max_hops=hops)
            seconds = min(seconds, time.perf_counter() - start)
    return {"seconds": seconds, "peak_mb": _max_rss_mb() - before, "paths": len(found)}


def _python_files_only(folder: str, names: list[str]) -> list[str]:
    """``shutil.copytree``'s ignore: the standard library's Python sources only (no
    installed packages, byte code or data)."""
    return [
        name
        for name in names
        if name in ("site-packages", "dist-packages", "__pycache__")
        or (not name.endswith(".py") and not Path(folder, name).is_dir())
    ]


def child_index_stdlib(db: str) -> dict[str, float]:
    from citeloop import SqliteGraphStore, index_tree

    partial = Path(db + ".partial")  # renamed when complete: a killed run leaves no cache
    partial.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "stdlib"
        shutil.copytree(sysconfig.get_paths()["stdlib"], root, ignore=_python_files_only)
        with SqliteGraphStore(partial) as store:
            report = index_tree(root, store)
    partial.replace(db)
    return {"entities": report.entities}


def child_unconnected(db: str, source: str) -> dict[str, str]:
    """An entity that no path joins to ``source`` (an entity id): the first class (else
    entity) by id of the largest connected component without it. Components are those
    the path search walks: undirected facts between resolved entities, no self-loops."""
    import sqlite3

    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    ids = [row[0] for row in connection.execute("SELECT id FROM entities WHERE resolved = 1")]
    number = {entity_id: position for position, entity_id in enumerate(ids)}
    parent = list(range(len(ids)))

    def root(item: int) -> int:
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    for subject, object_ in connection.execute("SELECT subject, object FROM facts"):
        a, b = number.get(subject), number.get(object_)
        if a is not None and b is not None and a != b:
            parent[root(a)] = root(b)
    kinds = dict(connection.execute("SELECT id, kind FROM entities WHERE resolved = 1"))
    connection.close()
    members: dict[int, list[str]] = {}
    for entity_id, position in number.items():
        members.setdefault(root(position), []).append(entity_id)
    own = root(number[source])
    other = min(
        (group for key, group in members.items() if key != own),
        key=lambda group: (-len(group), min(group)),
    )
    classes = sorted(e for e in other if kinds[e] == "class")
    return {"target": (classes or sorted(other))[0], "component": str(len(other))}


# -- the parent ---------------------------------------------------------------------------


def measure(*args: object) -> dict:
    """Run one child measurement (``python bench_limits.py --child NAME ARGS``)."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"child {args} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    return f"min {ordered[0]:.2f} / median {ordered[len(ordered) // 2]:.2f} / max {ordered[-1]:.2f}"


def report_growth(what: str, sizes: Sequence[object], runs: list[list[dict]]) -> list[bool]:
    """The growth of time per doubling of the input over the whole measured range,
    ``2 ** (log(t_last / t_first) / log2(size_last / size_first))`` (the slope of the
    log-log line through both ends, judged against :data:`GROWTH_TARGET`), from the
    smallest size whose median run takes at least :data:`NOISE_SECONDS` (below, a run is
    mostly noise), for each measured series in ``runs``; judged on their median. Each
    single doubling is printed too: one run of a doubling on a busy machine can be off
    by a third either way, the whole range much less."""
    ratios = []
    for series in runs:
        by_size = dict(zip(sizes, series, strict=True))
        for small, row in by_size.items():
            large = by_size.get(small * 2)  # type: ignore[operator]
            if large is not None:
                ratios.append(large["seconds"] / max(row["seconds"], 1e-6))
    print(f"  {what}: single doublings {summary(ratios)}")
    medians = [
        statistics.median(series[at]["seconds"] for series in runs) for at in range(len(sizes))
    ]
    timed = [at for at, seconds in enumerate(medians) if seconds >= NOISE_SECONDS]
    if len(timed) < 2:
        return []
    first, last = timed[0], timed[-1]
    doublings = math.log2(sizes[last] / sizes[first])  # type: ignore[operator]
    growths = [
        2 ** (math.log2(series[last]["seconds"] / series[first]["seconds"]) / doublings)
        for series in runs
    ]
    name = f"{what}: growth per doubling, {sizes[first]} -> {sizes[last]}"
    return [report_result(name, growths, GROWTH_TARGET)]


def scanners() -> list[bool]:
    print(
        "scanners (GraphContextValidator, validate_citations, detect_repetition), "
        f"{SCAN_SERIES} series each"
    )
    met = []
    for kind in ("repeated_name", "citation_list", "dotted_context_name"):
        runs = [[measure("scan", kind, size) for size in SCAN_SIZES] for _ in range(SCAN_SERIES)]
        for size, *rows in zip(SCAN_SIZES, *runs, strict=True):
            seconds = " ".join(f"{row['seconds']:7.3f}" for row in rows)
            print(f"  {kind:<20} {size:>8} chars  {seconds} s  {rows[0]['peak_mb']:7.1f} MB")
        met += report_growth(f"scanner {kind}, chars", SCAN_SIZES, runs)
    return met


def indexing(sizes: Sequence[int]) -> list[bool]:
    print(f"\nindexing one generated file, {INDEX_SERIES} series")
    with tempfile.TemporaryDirectory() as scratch:
        folders = []
        for size in sizes:  # each file written once, indexed afresh by every series
            folder = Path(scratch) / f"{size}mb"
            (folder / "src").mkdir(parents=True)
            source = generated_source(size * 1_000_000)
            (folder / "src" / "big.py").write_text(source, encoding="utf-8")
            del source
            folders.append(folder)
        runs = []
        for _ in range(INDEX_SERIES):
            series = []
            for folder in folders:
                for old in folder.glob("graph.db*"):  # a full index, never an incremental one
                    old.unlink()
                series.append(measure("index", str(folder)))
            runs.append(series)
    met = []
    per_mb = []
    for at, size in enumerate(sizes):
        rows = [series[at] for series in runs]
        ratio = max(row["peak_mb"] for row in rows) / size  # the largest peak of the series
        per_mb.append(ratio)
        seconds = " ".join(f"{row['seconds']:6.1f}" for row in rows)
        print(
            f"  {size:>3} MB  {seconds} s  peak +{ratio * size:7.1f} MB ({ratio:5.1f} MB/MB)  "
            f"{int(rows[0]['entities'])} entities"
        )
        met.append(
            report_result(
                f"indexing {size} MB: peak memory per MB of source",
                ratio,
                MB_PER_MB_TARGET,
                unit=" MB/MB",
            )
        )
    print(f"  peak memory per MB of source: {summary(per_mb)}")
    return met + report_growth("indexing, MB", sizes, runs)


def _this_format(db: Path) -> bool:
    """Whether the cached graph file is of the graph format this version reads (a
    cache an older citeloop wrote is indexed again)."""
    import sqlite3

    from citeloop.knowledge.sqlite_schema import SCHEMA_VERSION

    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        connection.close()


def path_search() -> list[bool]:
    CACHE.mkdir(parents=True, exist_ok=True)
    db = CACHE / f"stdlib-{sys.version_info.major}.{sys.version_info.minor}.db"
    if not db.exists() or not _this_format(db):
        print(f"\nindexing the standard library into {db} (once, a few minutes) ...")
        measure("stdlib", db)
    unconnected = measure("unconnected", db, DISTANT[0])["target"]
    print("\nrecall_paths on the standard library's graph (the best of three searches)")
    met = []
    for label, (source, target) in (
        ("distant", DISTANT),
        ("unconnected", (DISTANT[0], unconnected)),
    ):
        series = [measure("paths", db, source, target, hops) for hops in PATH_HOPS]
        for hops, row in zip(PATH_HOPS, series, strict=True):
            print(
                f"  {source} -> {target}, max_hops {hops:>2}: {row['seconds']:6.3f} s  "
                f"+{row['peak_mb']:6.1f} MB  {int(row['paths'])} paths"
            )
        if label == "unconnected" and any(row["paths"] for row in series):
            raise SystemExit(f"{source} and {target} are connected: the pair is wrong")
        slowest = max(row["seconds"] for row in series)
        largest = max(row["peak_mb"] for row in series)
        met.append(
            report_result(
                f"recall_paths {label}: slowest search", slowest, PATH_SECONDS_TARGET, unit=" s"
            )
        )
        met.append(
            report_result(
                f"recall_paths {label}: largest memory", largest, PATH_MB_TARGET, unit=" MB"
            )
        )
        met += report_growth(f"recall_paths {label}, max_hops", PATH_HOPS, [series])
    return met


def main() -> int:
    met = scanners()
    met += indexing(INDEX_MB + ((16,) if "--full" in sys.argv else ()))
    met += path_search()
    missed = met.count(False)
    print(f"\n{len(met) - missed} of {len(met)} targets met")
    return 1 if missed else 0


def _child(name: str, args: list[str]) -> dict:
    if name == "scan":
        return child_scan(args[0], int(args[1]))
    if name == "index":
        return child_index(args[0])
    if name == "paths":
        return child_paths(args[0], args[1], args[2], int(args[3]))
    if name == "stdlib":
        return child_index_stdlib(args[0])
    if name == "unconnected":
        return child_unconnected(args[0], args[1])
    raise SystemExit(f"unknown child {name!r}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(_child(sys.argv[2], sys.argv[3:])))
        sys.exit(0)
    sys.exit(main())
