"""Start-up: a command imports only what it runs, checked in a fresh interpreter.

Timing is the benchmark's job (``benchmarks/bench_startup.py``); these tests pin which
libraries each path loads.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from citeloop.knowledge import SqliteGraphStore, index_tree


@pytest.fixture
def sample_graph_db(sample_repo: Path, tmp_path: Path) -> Path:
    db = tmp_path / "graph.db"
    with SqliteGraphStore(db) as store:
        index_tree(sample_repo, store)
    return db


HEAVY = ("langchain_core", "langgraph", "langsmith", "pydantic", "jsonschema", "tree_sitter")


def modules_after(code: str) -> set[str]:
    """Top-level names of the modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport sys\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(done.stdout.split())


def test_import_citeloop_loads_no_graph_library():
    loaded = modules_after("import citeloop")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize(
    "command",
    [
        "context --db {db} --task 'How does `Circle` compute its area?'",
        "check --context {context} --response {answer}",
    ],
    ids=["context", "check"],
)
def test_light_commands_load_no_graph_library(command, sample_graph_db, tmp_path):
    """``citeloop context`` and ``citeloop check`` run end to end without importing
    LangChain, LangGraph or langsmith (nor the indexer's parser or jsonschema)."""
    context = tmp_path / "context.txt"
    context.write_text("class Circle(Shape): area\n", encoding="utf-8")
    answer = tmp_path / "answer.md"
    answer.write_text("`Circle` computes it.\n\n## Entities used\n- Circle\n", encoding="utf-8")
    argv = shlex.split(command.format(db=sample_graph_db, context=context, answer=answer))
    loaded = modules_after(
        "import contextlib, io\nfrom citeloop.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    code = main({argv!r})\n"
        "assert code in (0, 1), code"
    )
    assert "citeloop" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_graph_commands_still_load_their_graphs():
    """The lazy dispatch reaches the graph commands' module (and so LangGraph)."""
    loaded = modules_after("from citeloop.cli import build_parser\nimport citeloop.cli_graphs")
    assert {"langgraph", "langchain_core"} <= loaded
