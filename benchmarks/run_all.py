"""Run every ``benchmarks/bench_*.py``, print a summary table, exit 1 if a target is missed.

Run: ``python benchmarks/run_all.py [NAME ...]`` (``make bench``); NAMEs pick benchmarks
by file name (``startup`` or ``bench_startup.py``), the default is all of them, in file
name order. Each runs in its own interpreter, its output shown as it comes; its result
lines (``bench-result: {JSON}``, see ``_common.report_result``) become the rows of the
table: figure (the median of the runs), min and max, target, met. A benchmark without
result lines is one row judged by its exit code. Exit code: 0 when every target is met;
1 when a target is missed or a benchmark fails (exits non-zero, e.g. 2 for a missing
input), the missed and failed ones named last.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from _common import RESULT_PREFIX

HERE = Path(__file__).resolve().parent


@dataclass
class Row:
    benchmark: str
    name: str
    figure: str
    spread: str
    target: str
    met: bool


def _number(value: float, unit: str) -> str:
    """Three significant digits, but a number of 1,000 or more whole (``1995``, not
    ``2e+03``: a median of 1,995 tokens against a target of 2,000 must read so)."""
    if abs(value) >= 1000:
        return f"{value:.0f}{unit}"
    return f"{value:.3g}{unit}"


def rows_of(benchmark: str, lines: list[str], code: int) -> list[Row]:
    """The table rows of one benchmark's result lines and exit code."""
    rows = []
    for line in lines:
        result = json.loads(line[len(RESULT_PREFIX) :])
        unit = result.get("unit", "")
        spread = (
            f"{_number(result['min'], unit)} .. {_number(result['max'], unit)} "
            f"({result['runs']} runs)"
            if result.get("runs", 1) > 1
            else ""
        )
        bound = "<=" if result.get("better", "lower") == "lower" else ">="
        rows.append(
            Row(
                benchmark,
                result["name"],
                _number(result["figure"], unit),
                spread,
                f"{bound} {_number(result['target'], unit)}",
                bool(result["met"]),
            )
        )
    if code not in (0, 1) or not rows:
        what = "exit 0" if code == 0 else f"failed: exit {code}"
        rows.append(Row(benchmark, "(exit code)", what, "", "exit 0", code == 0))
    elif code == 1 and all(row.met for row in rows):
        rows.append(Row(benchmark, "(exit code)", "exit 1", "", "exit 0", False))
    return rows


def run(path: Path) -> tuple[list[str], int, float]:
    """Run one benchmark, echoing its output; (result lines, exit code, seconds)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(path)],
        cwd=HERE.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    results = []
    assert process.stdout is not None
    for line in process.stdout:
        print(line, end="", flush=True)
        if line.startswith(RESULT_PREFIX):
            results.append(line.strip())
    return results, process.wait(), time.perf_counter() - started


def table(rows: list[Row]) -> str:
    cells = [("benchmark", "figure", "median", "min .. max", "target", "met")] + [
        (r.benchmark, r.name, r.figure, r.spread, r.target, "met" if r.met else "MISSED")
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(6)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    args = parser.parse_args()
    found = sorted(HERE.glob("bench_*.py"))
    wanted = {name.removeprefix("bench_").removesuffix(".py") for name in args.names}
    unknown = wanted - {path.stem.removeprefix("bench_") for path in found}
    if unknown:
        known = ", ".join(path.stem.removeprefix("bench_") for path in found)
        print(f"run_all: no benchmark named {', '.join(sorted(unknown))}; known: {known}")
        return 2
    chosen = [path for path in found if not wanted or path.stem.removeprefix("bench_") in wanted]
    rows: list[Row] = []
    for path in chosen:
        print(f"== {path.name}", flush=True)
        results, code, seconds = run(path)
        print(f"== {path.name}: exit {code} after {seconds:.0f} s\n", flush=True)
        rows += rows_of(path.name, results, code)
    print(table(rows))
    missed = sorted({row.benchmark for row in rows if not row.met})
    if missed:
        print(f"\ntargets missed or benchmarks failed: {', '.join(missed)}")
        return 1
    print(f"\nall {len(rows)} targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
