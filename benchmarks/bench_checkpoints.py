"""Checkpoint size: bytes the SQLite checkpointer stores per attempt / the attempt's payload.

Run: ``python benchmarks/bench_checkpoints.py``. The demo of the README: the installed
``langgraph`` package indexed with ``citeloop index``, the demo task, and the recorded
answers of ``examples/langgraph_demo.jsonl`` (answers that fail, then a passing retry:
one attempt per answer). The run goes through the checkpointer ``citeloop run`` uses
(:func:`citeloop.checkpoints.open_checkpointer`, a SQLite file) and stops after each
``validate`` (``interrupt_after``), so every attempt's rows are saved when measured.

Bytes stored = the lengths of every column of every row of every table of the
checkpoint file (ids, metadata, values; not SQLite's page overhead), measured after each
attempt; an attempt's bytes are what it added. Payload = the UTF-8 bytes of the
attempt's human prompt and of the answer. The baseline, measured in the same run, is
LangGraph's own ``SqliteSaver`` on the same run. Figures: per attempt, bytes stored /
payload (target: at most TARGET_RATIO for each). Exits 1 when a target is missed, 2 when
the recorded answers no longer match the prompts (see DEVELOPERS.md).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from _common import report_result
from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.sqlite import SqliteSaver

from citeloop import build_grounded_answer_graph
from citeloop.checkpoints import open_checkpointer
from citeloop.models import ModelError, ReplayChatModel

TARGET_RATIO = 3.0
ROOT = Path(__file__).resolve().parents[1]
REPLAY = ROOT / "examples" / "langgraph_demo.jsonl"
TASK = (
    "How does StateGraph.compile produce a CompiledStateGraph, and where do add_node and "
    "add_edge fit in?"
)  # DEMO_TASK of the Makefile


class _Prompts(BaseCallbackHandler):
    """Records the human prompt of every chat-model call."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.prompts.append(messages[0][-1].text)


def stored_bytes(path: Path) -> int:
    """The length of every column of every row of every table of the file."""
    with sqlite3.connect(path) as conn:
        tables = [
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        total = 0
        for table in tables:
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            lengths = " + ".join(f"coalesce(length({column}), 0)" for column in columns)
            total += conn.execute(f"SELECT coalesce(sum({lengths}), 0) FROM {table}").fetchone()[0]
    return total


@contextmanager
def plain_saver(path: Path) -> Iterator[SqliteSaver]:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()


def ratios(
    graph_db: Path, file: Path, open_saver: Callable[[Path], AbstractContextManager[Any]]
) -> list[float]:
    """Bytes stored / payload of each attempt of the demo run."""
    prompts = _Prompts()
    model = ReplayChatModel.from_file(REPLAY)
    figures: list[float] = []
    with open_saver(file) as saver:
        graph = build_grounded_answer_graph(model, checkpointer=saver)
        config = {"configurable": {"thread_id": "bench"}, "callbacks": [prompts]}
        run_input: Any = {"task": TASK}
        before = stored_bytes(file)
        while True:
            for _ in graph.stream(
                run_input,
                config,
                context={"db_path": str(graph_db)},
                interrupt_after=["validate"],
                durability="sync",
            ):
                pass
            state = graph.get_state(config)
            answer = state.values["answer"]
            after = stored_bytes(file)
            payload = len(prompts.prompts[-1].encode()) + len(answer.encode())
            figures.append((after - before) / payload)
            print(f"  attempt {len(figures)}: {after - before} bytes, payload {payload} bytes")
            before, run_input = after, None
            if not state.next:
                return figures


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        graph_db = Path(tmp) / "langgraph.db"
        import langgraph.graph

        source = Path(langgraph.graph.__file__).parents[1]
        citeloop = Path(sys.executable).with_name("citeloop")
        subprocess.run(
            [str(citeloop), "index", str(source), "--db", str(graph_db)],
            check=True,
            capture_output=True,
        )
        try:
            print("LangGraph's SqliteSaver (baseline):")
            baseline = ratios(graph_db, Path(tmp) / "plain.db", plain_saver)
            print("citeloop's checkpointer:")
            ours = ratios(graph_db, Path(tmp) / "ours.db", lambda p: open_checkpointer(str(p)))
        except ModelError as exc:
            print(f"cannot measure: {exc}", file=sys.stderr)
            return 2
    met = True
    for attempt, (base, figure) in enumerate(zip(baseline, ours, strict=True), start=1):
        print(f"attempt {attempt}: {base:.2f}x with SqliteSaver, {figure:.2f}x now")
        met &= report_result(f"checkpoint bytes / payload, attempt {attempt}", figure, TARGET_RATIO)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
