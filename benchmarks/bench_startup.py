"""Start-up: ``citeloop context`` and ``citeloop check`` end to end vs ``python -c pass``.

Run: ``python benchmarks/bench_startup.py``. Builds the demo graph (the installed
``langgraph`` package, as ``make demo`` does) in a temporary folder, then times, in
ROUNDS interleaved rounds, a fresh interpreter (this one, ``sys.executable``) running
``pass``, the ``context`` command on the demo task and the ``check`` command on that
context and an answer citing its core entities, each as the console script runs it.
Bytecode is cached in the temporary folder (``PYTHONPYCACHEPREFIX``) and every command
runs once before timing, as an installed package has its ``.pyc`` files.

Figures: each command's wall time in a round over the median ``pass`` time, judged on
the median of the rounds (target: at most TARGET_RATIO), with min and max; then the
largest cumulative imports of each command (``-X importtime``), for where time goes.
Exits 1 when a target is missed.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report_result

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 15.0
ROUNDS = 15
TOP_IMPORTS = 8
DEMO_TASK = (
    "How does StateGraph.compile produce a CompiledStateGraph, and where do add_node and "
    "add_edge fit in?"
)
CONSOLE_SCRIPT = "import sys; from citeloop.cli import main; sys.exit(main())"
"""What the ``citeloop`` console script runs."""


def environment(scratch: Path) -> dict[str, str]:
    """This tree first on the path; bytecode cached in ``scratch``, never in the tree."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    return env


def run(argv: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in ok:
        raise SystemExit(f"{argv[3:]} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def seconds(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=False)
    return time.perf_counter() - start


def top_imports(argv: list[str], env: dict[str, str]) -> list[str]:
    """The largest cumulative imports of one run, outermost first, as ``ms module``."""
    done = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]], env=env, capture_output=True, text=True
    )
    entries = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            entries.append((int(cumulative), name.rstrip()))
    entries.sort(reverse=True)
    return [f"{micros / 1000:7.1f} ms {name}" for micros, name in entries[:TOP_IMPORTS]]


def main() -> int:
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        env = environment(scratch)
        citeloop = [python, "-c", CONSOLE_SCRIPT]
        db, context, answer = scratch / "demo.db", scratch / "context.json", scratch / "answer.md"
        source = run([python, "-c", "import langgraph.graph as g; print(g.__path__[0])"], env)
        run([*citeloop, "index", str(Path(source.strip()).parent), "--db", str(db), "--quiet"], env)
        commands = {
            "context": [*citeloop, "context", "--db", str(db), "--task", DEMO_TASK],
            "check": [*citeloop, "check", "--context", str(context), "--response", str(answer)],
        }
        context.write_text(run([*commands["context"], "--json"], env), encoding="utf-8")
        core = run([*commands["context"], "--explain"], env).count("\ncore ")
        answer.write_text(
            "`StateGraph.compile` returns a `CompiledStateGraph`; `add_node` and `add_edge` "
            "build the graph first.\n\n## Entities used\n- StateGraph.compile\n"
            "- CompiledStateGraph\n- StateGraph.add_node\n- StateGraph.add_edge\n",
            encoding="utf-8",
        )
        run(commands["check"], env, ok=(0, 1))  # warm-up; the verdict is not timed
        baseline = [python, "-c", "pass"]
        times: dict[str, list[float]] = {"pass": [], "context": [], "check": []}
        for _ in range(ROUNDS):
            times["pass"].append(seconds(baseline, env))
            for name, argv in commands.items():
                times[name].append(seconds(argv, env))
        imports = {name: top_imports(argv, env) for name, argv in commands.items()}

    floor = statistics.median(times["pass"])
    print(f"python: {python}; demo graph of langgraph, task {DEMO_TASK!r} ({core} core entities)")
    for name, values in times.items():
        ms = sorted(value * 1000 for value in values)
        print(
            f"{name:8s} {statistics.median(ms):7.1f} ms median "
            f"(min {ms[0]:.1f}, max {ms[-1]:.1f}, {ROUNDS} rounds)"
        )
    met = True
    for name in commands:
        ratios = [value / floor for value in times[name]]
        met &= report_result(f"{name} start-up / python -c pass", ratios, TARGET_RATIO)
    for name, lines in imports.items():
        print(f"largest imports of `citeloop {name}` (-X importtime, cumulative):")
        print("\n".join(f"  {line}" for line in lines))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
