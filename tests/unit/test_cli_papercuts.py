"""Small things that made the commands harder to use than they should be."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from langchain_core.messages import messages_from_dict

from citeloop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from tests.cli import indexed_db, replay_model, run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
TASK = "How does `Circle` compute its area?"


@pytest.fixture
def db(sample_repo: Path, tmp_path: Path, capsys) -> Path:
    return indexed_db(capsys, sample_repo, tmp_path)


@pytest.fixture(autouse=True)
def _threads_in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.setenv("CITELOOP_CHECKPOINTER", f"sqlite:{tmp_path / 'threads.db'}")


def test_run_json_keeps_the_messages_and_check_reads_it_as_context(db, tmp_path, capsys):
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--json")
    names = [e["name"] for e in json.loads(out)["entities"] if e["tier"] == "core"]
    answer = "Uses " + ", ".join(names) + ".\n\n## Entities used\n" + "\n".join(names) + "\n"
    model = replay_model(tmp_path, answer)
    code, out, _ = run(capsys, "run", "--db", str(db), "--task", TASK, "--model", model, "--json")
    assert code == EXIT_OK
    messages = messages_from_dict(json.loads(out)["messages"])
    assert [(m.type, m.content) for m in messages] == [("ai", answer)]
    ran = tmp_path / "run.json"
    ran.write_text(out, "utf-8")
    (tmp_path / "answer.md").write_text(answer, "utf-8")
    code, out, err = run(
        capsys, "check", "--context", str(ran), "--response", str(tmp_path / "answer.md")
    )
    assert code == EXIT_OK, out + err
    (tmp_path / "bad.md").write_text("Nothing cited.", "utf-8")
    code, out, _ = run(
        capsys, "check", "--context", str(ran), "--response", str(tmp_path / "bad.md")
    )
    assert code == EXIT_FAILED and out.startswith("FAILED")
    # The run output as the response too: its answer is checked, and a note says so.
    code, out, err = run(capsys, "check", "--context", str(ran), "--response", str(ran))
    assert code == EXIT_OK, out + err
    assert f"note: checking the answer of the run output {ran}" in err
    # An answer written as JSON is checked as it is written.
    (tmp_path / "json.md").write_text(json.dumps({"answer": answer}), "utf-8")
    code, out, err = run(
        capsys, "check", "--context", str(ran), "--response", str(tmp_path / "json.md")
    )
    assert "note:" not in err
    # A run output without an answer (a run that failed) is said to be one, not judged.
    failed = json.loads(ran.read_text("utf-8")) | {"answer": None, "outcome": "error"}
    (tmp_path / "failed.json").write_text(json.dumps(failed), "utf-8")
    code, out, err = run(
        capsys, "check", "--context", str(ran), "--response", str(tmp_path / "failed.json")
    )
    assert code == EXIT_USAGE and out == "" and "run output without an answer" in err
    # An answer that says its context is not enough fails, unless that is allowed (as a
    # run's last attempt reports it): then it passes with the note in the result.
    short = answer.replace("Uses ", "The context does not show enough. Uses ", 1)
    (tmp_path / "short.md").write_text(short, "utf-8")
    argv = ["check", "--context", str(ran), "--response", str(tmp_path / "short.md")]
    code, out, _ = run(capsys, *argv)
    assert code == EXIT_FAILED and "not enough" in out
    code, out, _ = run(capsys, *argv, "--allow-insufficient", "--json")
    assert code == EXIT_OK and json.loads(out)["insufficient_context"] is True
    # Printed, the pass says so too (it had read as any other pass).
    code, out, _ = run(capsys, *argv, "--allow-insufficient")
    assert code == EXIT_OK and out.startswith("PASSED")
    assert "note: the answer says its context lacks something (reported, not failed)" in out
    code, out, _ = run(capsys, "check", "--context", str(ran), "--response", str(ran))
    assert "lacks something" not in out


def test_an_exhausted_replay_names_the_command_in_use(db, tmp_path, capsys):
    model = replay_model(tmp_path, "No ids here.")
    argv = ["--db", str(db), "--from", "Circle", "--to", "Shape", "--model", model]
    code, _, err = run(capsys, "explain", *argv)
    assert code == EXIT_USAGE
    assert "were all played already" in err
    assert "same citeloop command (run, explain or audit) `--record FILE`" in err
    assert "citeloop run --record" not in err


def test_the_audit_example_files_are_delivered(tmp_path, capsys):
    files, review = EXAMPLES / "audit", tmp_path / "review.jsonl"
    shutil.copy(files / "review.jsonl", review)  # a hand-written turn plays once per process
    argv = ["--result", str(files / "result.json"), "--plan", str(files / "plan.json")]
    argv += ["--index", str(files / "index.json"), "--model", f"replay:{review}"]
    code, out, err = run(capsys, "audit", *argv)
    assert code == EXIT_OK, err
    assert out == "delivered: complete\n"
    shutil.copy(files / "review.jsonl", review)
    code, out, err = run(capsys, "audit", *argv, "--json")
    assert code == EXIT_OK, err
    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"With `--json` the delivered example prints\n`(\{.*\})`", readme)
    assert shown is not None and json.loads(out) == json.loads(shown.group(1))


def test_audit_records_a_replay_file(tmp_path, capsys):
    files = EXAMPLES / "audit"
    record, review = tmp_path / "audit.jsonl", tmp_path / "review.jsonl"
    shutil.copy(files / "review.jsonl", review)  # a hand-written turn plays once per process
    argv = ["--result", str(files / "result.json"), "--plan", str(files / "plan.json")]
    argv += ["--index", str(files / "index.json"), "--model", f"replay:{review}"]
    assert run(capsys, "audit", *argv, "--record", str(record))[0] == EXIT_OK
    turns = [json.loads(line) for line in record.read_text("utf-8").splitlines()]
    assert len(turns) == 1 and turns[0]["prompt_sha256"]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize(
    ("model", "extra"),
    [("openai:gpt-4o", "openai"), ("anthropic:claude-x", "anthropic"), ("replay:x.jsonl", None)],
)
def test_make_demo_installs_the_extra_of_the_chosen_model(model, extra, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    # A stamp newer than pyproject.toml and constraints.txt: the venv counts as built,
    # whatever the checkout's file times, so the plan shows the demo's own installs only.
    stamp = tmp_path / "installed-stamp"
    stamp.touch()
    plan = subprocess.run(
        ["make", "-n", "demo", f"DEMO_MODEL={model}", f"STAMP={stamp}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installs = [line for line in plan.splitlines() if "pip install" in line]
    assert installs == (
        [f"{'.venv/bin/python'} -m pip install --quiet -e '.[{extra}]'"] if extra else []
    )
    assert f"--model {model}" in plan


def test_version_prints_the_installed_version_on_stdout(capsys):
    from importlib.metadata import version

    code, out, err = run(capsys, "--version")
    assert (code, out, err) == (EXIT_OK, f"citeloop {version('citeloop')}\n", "")


def test_a_directory_as_the_graph_file_to_write_is_named(tmp_path, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mod.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    code, out, err = run(capsys, "index", str(tmp_path / "src"), "--db", str(tmp_path / "src"))
    assert code == EXIT_USAGE and out == ""
    assert "is a directory; pass the path of the graph file to write (e.g. --db src.db)" in err


def test_context_says_which_files_changed_since_indexing(tmp_path, capsys):
    """An edited file's source is left out of the context (its lines may have moved):
    `context` says which, and how to index again; an unchanged tree gets no note."""
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "shapes.py").write_text("class Circle:\n    def area(self):\n        return 1\n")
    db = tmp_path / "graph.db"
    assert run(capsys, "index", str(tree), "--db", str(db), "--quiet")[0] == EXIT_OK
    task = "How does `Circle.area` work?"
    code, out, err = run(capsys, "context", "--db", str(db), "--task", task)
    assert code == EXIT_OK and "changed since" not in err and "3 |" in out
    (tree / "shapes.py").write_text("\n\nclass Circle:\n    def area(self):\n        return 2\n")
    code, out, err = run(capsys, "context", "--db", str(db), "--task", task)
    assert code == EXIT_OK and "3 |" not in out
    assert "note: 1 file changed since the graph was indexed (shapes.py)" in err
    assert f"run `citeloop index {tree.resolve()} --db {db}` again" in err


def test_a_mistyped_option_is_named_with_its_commands_usage(capsys):
    code, out, err = run(capsys, "context", "--db", "g.db", "--task", "t", "--explian")
    assert code == EXIT_USAGE and out == ""
    assert err.startswith("usage: citeloop context ")
    assert "citeloop context: error: unrecognized arguments: --explian" in err
