"""The README's main job: index the installed langgraph source and replay the demo."""

from __future__ import annotations

import json
from pathlib import Path

import langgraph.graph

from citeloop.cli import EXIT_OK, main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "langgraph_demo.jsonl"
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
TASK = next(
    line.split("?=", 1)[1].strip() for line in MAKEFILE.splitlines() if line.startswith("DEMO_TASK")
)


def test_demo_replays_the_recorded_answer_that_passes(tmp_path, capsys):
    source = Path(langgraph.graph.__file__).parents[1]
    db = tmp_path / "langgraph.db"
    assert main(["index", str(source), "--db", str(db), "--quiet"]) == EXIT_OK
    capsys.readouterr()
    code = main(["run", "--db", str(db), "--task", TASK, "--model", f"replay:{DEMO}", "--json"])
    final = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK
    recorded = len(DEMO.read_text(encoding="utf-8").splitlines())
    # One recorded answer per prompt: every prompt the run sent was answered from the file.
    assert (final["outcome"], final["attempts"]) == ("passed", recorded)
    assert final["expanded"] == (recorded > 1)
    assert final["report"]["passed"] and not final["report"]["invalid_citations"]
    # As `make demo` prints it: the answer, the outcome, and a note when the last answer
    # still says what its context lacks (reported on the last attempt, not failed).
    code = main(["run", "--db", str(db), "--task", TASK, "--model", f"replay:{DEMO}"])
    out = capsys.readouterr().out
    assert code == EXIT_OK and f"outcome: passed; attempts: {recorded}" in out
    noted = "note: the answer says its context lacks something" in out
    assert noted == final["report"]["insufficient_context"]
