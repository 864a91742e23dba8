"""The citeloop command: outputs and exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from citeloop import cli_graphs
from citeloop.checkpoints import open_checkpointer
from citeloop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import SqliteGraphStore
from citeloop.state.grounded_answer import OutputState
from tests.cli import run

TASK = "How does `Circle` compute its area?"


@pytest.fixture
def db(sample_repo: Path, tmp_path: Path, capsys) -> Path:
    root = sample_repo
    (root / "shapes" / "broken.py").write_text("def broken(:\n", encoding="utf-8")
    path = tmp_path / "graph.db"
    code, _out, _ = run(capsys, "index", str(root), "--db", str(path), "--quiet")
    assert code == EXIT_OK
    return path


def core_names(capsys, db: Path) -> list[str]:
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--json")
    assert code == EXIT_OK
    return [e["name"] for e in json.loads(out)["entities"] if e["tier"] == "core"]


def answer_citing(names: list[str]) -> str:
    return "Uses " + ", ".join(names) + ".\n\n## Entities used\n" + "\n".join(names) + "\n"


def saved_context(capsys, db: Path, tmp_path: Path, task: str) -> tuple[Path, dict]:
    """``context --json`` of ``task`` saved to a file: the file, and what it holds."""
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", task, "--json")
    assert code == EXIT_OK
    path = tmp_path / "context.json"
    path.write_text(out, encoding="utf-8")
    return path, json.loads(out)


def answer_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "answer.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_index_reports_counts_and_skipped_files(sample_repo, tmp_path, capsys):
    root = sample_repo
    (root / "shapes" / "broken.py").write_text("def broken(:\n", encoding="utf-8")
    code, out, _ = run(capsys, "index", str(root), "--db", str(tmp_path / "g.db"), "--quiet")
    assert code == EXIT_OK
    assert "entities" in out and "relations" in out and "1 skipped" in out
    assert "shapes/broken.py" in out and "syntax" in out.lower()


def test_index_of_a_missing_folder_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(capsys, "index", str(tmp_path / "nope"), "--db", str(tmp_path / "g.db"))
    assert code == EXIT_USAGE
    assert "citeloop: error:" in err and "nope" in err
    assert "Traceback" not in err
    assert not (tmp_path / "g.db").exists()


def test_context_prints_the_documented_format(db, capsys):
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK)
    assert code == EXIT_OK
    assert "class Circle(Shape)" in out


def test_context_shows_source_lines_unless_told_not_to(db, capsys):
    task = "How does `Circle.area` work?"
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", task)
    assert code == EXIT_OK
    assert "        return helpers.square(self.radius) * helpers.PI" in out
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", task, "--json")
    assert "shapes.circle.Circle.area" in json.loads(out)["excerpts"]
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", task, "--no-source")
    assert code == EXIT_OK
    assert "Circle.area()  # L12-15" in out and " | " not in out


def test_context_explain_gives_a_member_list_one_row():
    from types import SimpleNamespace

    from citeloop.cli import _explanation
    from citeloop.knowledge.model import ContextEntity, EntityKind

    def entity(entity_id: str, reason: str, score: float, line: int) -> ContextEntity:
        name = entity_id.rpartition(".")[2]
        return ContextEntity(
            name, EntityKind.METHOD, "supporting", entity_id, "m.py", line, reason=reason,
            score=score,
        )  # fmt: skip

    members = [entity(f"m.Box.{c}", "member", 0.001 * n, n) for n, c in enumerate("abcdef", 1)]
    injected = SimpleNamespace(
        tokens=10,
        budget=2000,
        entities=[
            entity("m.Box", "graph", 0.5, 1),
            *members,
            entity("m.Bag.put", "member", 0.002, 20),  # another owner's list
            entity("m.helper", "lexical", 0.1, 30),
        ],
    )
    table = _explanation(injected).splitlines()[6:]
    assert len(table) == 4
    assert table[1].endswith("m.Box: 6 members (a, b, c, d, ...)")
    assert " 0.0060 " in table[1] and " m.py " in table[1]  # its best score, its file
    assert table[2].endswith("m.Bag.put") and table[3].endswith("m.helper")


def test_context_explain_says_why_each_entity_is_there(db, capsys):
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--explain")
    assert code == EXIT_OK
    text, _, explanation = out.partition("\n\n-- ")
    assert "class Circle(Shape)" in text
    head, _, rows = explanation.partition("\n")
    tokens, _, budget = head.partition(" tokens")[0].partition(" of ")
    assert 0 < int(tokens) <= int(budget) == 2000
    legend = [row for row in rows.splitlines() if row.startswith("--")]
    assert "mention = the task names it as code" in legend[0]
    assert all(len(row) <= 100 for row in legend)  # the legend reads on a terminal
    table = [row for row in rows.splitlines() if not row.startswith("--")][1:]
    assert any(row.startswith("core") and " mention " in row for row in table)
    assert all(
        row.split()[1] in {"mention", "lexical", "named", "graph", "owner", "member"}
        for row in table
    )
    assert any(
        "shapes/circle.py:8" in row and row.endswith("shapes.circle.Circle") for row in table
    )


def test_context_max_tokens_bounds_the_context(db, capsys):
    def tokens(*extra: str) -> tuple[int, int, int]:
        code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--json", *extra)
        assert code == EXIT_OK
        data = json.loads(out)
        return data["tokens"], data["budget"], len(data["entities"])

    small, budget, few = tokens("--max-tokens", "60")
    assert small <= budget == 60
    large, _, many = tokens()
    assert small < large and few < many
    for bad in ("0", "9" * 400):
        code, _, err = run(capsys, "context", "--db", str(db), "--task", TASK, "--max-tokens", bad)
        assert code == EXIT_USAGE and "--max-tokens" in err
    code, _, err = run(capsys, "context", "--db", str(db), "--task", TASK, "--json", "--explain")
    assert code == EXIT_USAGE and "not allowed with" in err


def test_context_json_entities_carry_where_and_why(db, capsys):
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--json")
    assert code == EXIT_OK
    entity = next(e for e in json.loads(out)["entities"] if e["id"] == "shapes.circle.Circle")
    assert (entity["path"], entity["line"], entity["signature"]) == (
        "shapes/circle.py",
        8,
        "(Shape)",
    )
    assert entity["reason"] in {"mention", "lexical", "graph"} and entity["score"] > 0


def test_context_without_a_database_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(capsys, "context", "--db", str(tmp_path / "none.db"), "--task", TASK)
    assert code == EXIT_USAGE
    assert "citeloop index" in err
    assert not (tmp_path / "none.db").exists()


@pytest.mark.parametrize("cited", [True, False], ids=["passes", "fails"])
def test_check_exit_code_follows_the_verdict(db, tmp_path, capsys, cited):
    names = core_names(capsys, db)
    context = tmp_path / "context.json"
    run(capsys, "context", "--db", str(db), "--task", TASK, "--json")
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--json")
    context.write_text(out, encoding="utf-8")
    response = tmp_path / "answer.md"
    response.write_text(answer_citing(names) if cited else "No idea.", encoding="utf-8")
    code, out, _ = run(
        capsys, "check", "--context", str(context), "--response", str(response), "--json"
    )
    result = json.loads(out)
    assert code == (EXIT_OK if cited else EXIT_FAILED)
    assert result["passed"] is cited
    for field in ("missing_core_citations", "invalid_citations", "cited_not_used"):
        assert field in result


def test_check_with_the_graph_tells_the_code_bases_names_from_invented_ones(db, tmp_path, capsys):
    # `test_circle_area` is the sample's test, which the context of TASK does not show.
    context, saved = saved_context(capsys, db, tmp_path, TASK)
    assert "test_circle_area" not in {e["name"] for e in saved["entities"]}
    response = answer_file(
        tmp_path,
        "`Circle.area` squares the radius; `test_circle_area` checks it.\n\n"
        "## Entities used\n- Circle (shapes/circle.py:8)\n",
    )
    argv = ["check", "--context", str(context), "--response", str(response)]
    code, out, _ = run(capsys, *argv)
    assert code == EXIT_FAILED
    assert "test_circle_area" in out and "pass the graph (--db)" in out
    code, out, _ = run(capsys, *argv, "--db", str(db))
    assert code == EXIT_OK, out
    assert "the code base has these names, but the context does not show them" in out
    code, out, _ = run(capsys, *argv, "--db", str(db), "--json")
    result = json.loads(out)
    assert result["ungrounded_in_graph"] == ["test_circle_area"]
    assert result["invented_names"] == [] and result["graph_searched"] is True
    code, _, err = run(capsys, *argv, "--db", str(tmp_path / "nope.db"))
    assert code == EXIT_USAGE and "nope.db" in err and "Traceback" not in err


def test_check_refuses_a_graph_of_another_code_base(db, tmp_path, capsys):
    # A graph that has none of the context's entities is another code base's: its names
    # would spare what the answer invents ("the code base has these names"), a pass.
    context, _ = saved_context(capsys, db, tmp_path, TASK)
    other = tmp_path / "other"
    other.mkdir()
    (other / "tool.py").write_text("def compute_perimeter():\n    return 1\n", encoding="utf-8")
    other_db = tmp_path / "other.db"
    assert run(capsys, "index", str(other), "--db", str(other_db), "--quiet")[0] == EXIT_OK
    response = answer_file(
        tmp_path,
        "`Circle.area` calls `compute_perimeter`.\n\n## Entities used\n"
        "- Circle (shapes/circle.py:8)\n",
    )
    argv = ["check", "--context", str(context), "--response", str(response), "--db"]
    code, out, err = run(capsys, *argv, str(other_db))
    assert code == EXIT_USAGE and out == ""
    assert "has none of the context's entities" in err and "other.db" in err
    code, out, _ = run(capsys, *argv, str(db))
    assert code == EXIT_FAILED and "compute_perimeter" in out


def test_check_names_a_missing_core_citation_as_the_task_writes_it(db, tmp_path, capsys):
    # `format_area` is one function: cited as `format_area`, the task writes it dotted.
    task = "How does `Circle.area` use `base.format_area`?"
    context, _ = saved_context(capsys, db, tmp_path, task)
    response = answer_file(tmp_path, "It multiplies.\n\n## Entities used\n- Circle\n")
    code, out, _ = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_FAILED
    assert "core entities not cited: Circle.area, format_area" in out
    # Only the name the task writes otherwise gets the note.
    assert out.rstrip().endswith("note: format_area (the task writes `base.format_area`)")


def test_check_quotes_where_the_answer_says_its_context_is_not_enough(tmp_path, capsys):
    context = tmp_path / "context.txt"
    context.write_text("class GraphStore(Protocol): add_entity\n", encoding="utf-8")
    response = tmp_path / "answer.md"
    body = (
        "`GraphStore` stores entities. It uses `add_entity`, whose body the context does "
        "not show. Otherwise it is plain."
    )
    response.write_text(body + "\n\n## Entities used\n- GraphStore\n", encoding="utf-8")
    argv = ["check", "--context", str(context), "--response", str(response)]
    code, out, _ = run(capsys, *argv)
    assert code == EXIT_FAILED
    assert 'it says so here: "It uses `add_entity`, whose body the context does not show."' in out
    assert "--allow-insufficient reports this" in out
    code, out, _ = run(capsys, *argv, "--allow-insufficient")
    assert code == EXIT_OK and "it says so here" not in out


def test_check_reads_context_text(tmp_path, capsys):
    context = tmp_path / "context.txt"
    context.write_text("class GraphStore(Protocol): add_entity\n", encoding="utf-8")
    response = tmp_path / "answer.md"
    response.write_text(answer_citing(["GraphStore"]), encoding="utf-8")
    code, out, _ = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_OK
    assert out.startswith("PASSED")


def test_check_with_a_missing_file_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(
        capsys, "check", "--context", str(tmp_path / "c.txt"), "--response", str(tmp_path / "r")
    )
    assert code == EXIT_USAGE
    assert "c.txt" in err and "does not exist; check the path" in err


def test_a_graph_path_that_is_no_regular_file_is_named(tmp_path, capsys):
    for path, problem in (
        ("/dev/null", "'/dev/null' is not a regular file; pass the graph file"),
        (str(tmp_path), "is a directory; pass the graph file"),
        (str(tmp_path / "nope.db"), "does not exist; build it first with `citeloop index"),
    ):
        code, out, err = run(capsys, "context", "--db", path, "--task", TASK)
        assert code == EXIT_USAGE and out == "" and problem in err, err


def test_check_of_an_empty_answer_is_a_usage_error(tmp_path, capsys):
    context = tmp_path / "context.txt"
    context.write_text("class GraphStore(Protocol): add_entity\n", encoding="utf-8")
    response = tmp_path / "answer.md"
    response.write_text(" \n", encoding="utf-8")
    code, out, err = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_USAGE and out == ""
    assert "answer.md' is empty; pass the file that holds the answer" in err
    # A run output whose answer is blank is not an empty file: its answer is empty.
    response.write_text('{"outcome": "exhausted", "answer": " "}', encoding="utf-8")
    code, out, err = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_USAGE and out == ""
    assert "the answer of run output" in err and "answer.md' is empty" in err
    assert "pass the output of a run that answered" in err


def test_bad_threshold_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(capsys, "check", "--context", "c", "--response", "r", "--threshold", "2")
    assert code == EXIT_USAGE
    assert "within 0..1" in err


def test_run_with_a_replay_model(db, tmp_path, capsys):
    names = core_names(capsys, db)
    replay = tmp_path / "turns.jsonl"
    turns = ["I am not sure.", answer_citing(names)]
    replay.write_text("".join(json.dumps({"content": t}) + "\n" for t in turns), encoding="utf-8")
    code, out, err = run(
        capsys, "run", "--db", str(db), "--task", TASK, "--model", f"replay:{replay}", "--json"
    )
    assert code == EXIT_OK
    final = json.loads(out)
    assert (final["outcome"], final["attempts"], final["expanded"]) == ("passed", 2, True)
    # The output state, the context the last attempt was shown, and the task it answered.
    assert set(final) - {"context_text", "task"} <= set(OutputState.__annotations__)
    assert final["context_text"].startswith("# ") and final["task"] == TASK
    # Progress shows each node as it runs, on stderr.
    for node in ("inject_context", "call_model", "validate", "expand_context"):
        assert f"> {node}" in err


def test_run_with_a_missing_replay_file_is_a_usage_error(db, tmp_path, capsys):
    code, out, err = run(
        capsys, "run", "--db", str(db), "--task", TASK, "--model", f"replay:{tmp_path}/x.jsonl"
    )
    assert code == EXIT_USAGE
    assert "x.jsonl" in err and "Traceback" not in err
    assert out == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_as_replay_file_is_refused_without_waiting_for_a_writer(db, tmp_path, capsys):
    fifo = tmp_path / "turns.jsonl"
    os.mkfifo(fifo)
    code, out, err = run(
        capsys, "run", "--db", str(db), "--task", TASK, "--model", f"replay:{fifo}"
    )
    assert code == EXIT_USAGE
    assert "turns.jsonl' is not a regular file" in err and "Traceback" not in err
    assert out == ""


def test_run_that_spends_its_budget_exits_1(db, tmp_path, capsys):
    replay = tmp_path / "turns.jsonl"
    replay.write_text(json.dumps({"content": "No idea."}) + "\n", encoding="utf-8")
    code, out, _ = run(
        capsys,
        "run",
        "--db",
        str(db),
        "--task",
        TASK,
        "--model",
        f"replay:{replay}",
        "--max-retries",
        "0",
    )
    assert code == EXIT_FAILED
    assert "outcome: exhausted" in out


def test_run_with_a_model_error_exits_2_with_the_error_once(db, tmp_path, capsys):
    replay = tmp_path / "turns.jsonl"
    replay.write_text(json.dumps({"content": "No idea."}) + "\n", encoding="utf-8")
    # One scripted turn for a run that needs two: the second call fails permanently.
    code, out, err = run(
        capsys,
        "run",
        "--db",
        str(db),
        "--task",
        TASK,
        "--model",
        f"replay:{replay}",
        "--max-retries",
        "1",
    )
    assert code == EXIT_USAGE
    assert out == ""
    assert err.count("were all played already") == 1


def test_run_refuses_an_unwritable_record_path_before_running(db, tmp_path, capsys):
    code, out, err = run(
        capsys,
        "run",
        "--db",
        str(db),
        "--task",
        TASK,
        "--model",
        "replay:x.jsonl",
        "--record",
        str(tmp_path),  # a directory
    )
    assert code == EXIT_USAGE
    assert "--record" in err and out == ""


@pytest.mark.parametrize(
    "held", [b"def f():\n    return 1\n", b"SQLite format 3\x00\xff\xfe", b"[1, 2]\n"]
)
def test_run_appends_turns_only_to_a_recording(db, tmp_path, capsys, held):
    """--record adds to a recording, or starts one: a source file or a graph file
    named by mistake is refused, and left as it was."""
    other = tmp_path / "named.py"
    other.write_bytes(held)
    argv = ["--db", str(db), "--task", TASK, "--model", _replay(tmp_path, "No idea.")]
    code, out, err = run(capsys, "run", *argv, "--record", str(other))
    assert code == EXIT_USAGE and out == ""
    assert "is not a recording of turns" in err and "name a new file" in err
    assert other.read_bytes() == held
    recording = tmp_path / "turns.jsonl"
    for _ in range(2):  # a new file, then the recording it became
        code, _, err = run(capsys, "run", *argv, "--record", str(recording))
        assert code in (EXIT_OK, EXIT_FAILED), err
    assert len(recording.read_text(encoding="utf-8").splitlines()) >= 2


def test_a_replay_turn_may_carry_keys_of_its_own_but_no_odd_digest(db, tmp_path, capsys):
    turns = tmp_path / "turns.jsonl"
    turn = json.dumps({"content": "No idea.", "usage_metadata": {"input_tokens": 3}})
    turns.write_text(f"{turn}\n" * 3, encoding="utf-8")  # an answer for every attempt
    argv = ["--db", str(db), "--task", TASK, "--model", f"replay:{turns}"]
    code, _, err = run(capsys, "run", *argv)
    assert code in (EXIT_OK, EXIT_FAILED) and "ValidationError" not in err
    turns.write_text(json.dumps({"content": "x", "prompt_sha256": [1]}) + "\n", "utf-8")
    code, out, err = run(capsys, "run", *argv)
    assert code == EXIT_USAGE and out == ""
    assert '1: "prompt_sha256" must be a string' in err


def test_check_names_the_context_file_with_malformed_entities(tmp_path, capsys):
    context = tmp_path / "ctx.json"
    context.write_text(json.dumps({"entities": [{"name": "A", "tier": "gold"}]}), "utf-8")
    response = tmp_path / "answer.md"
    response.write_text("A", encoding="utf-8")
    code, _, err = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_USAGE
    assert "ctx.json" in err and "Traceback" not in err


CART = '{"name": "Cart", "kind": "class", "tier": "core", "path": "shop/cart.py", '


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ('"line": "x"}', "entities[1] ('Cart'): \"line\" must be a line number"),
        ('"line": 5, "end_line": 2}', '"end_line" 2 is before "line" 5; write the last line'),
        ('"line": 1e400}', '"line" must be a line number (a whole number, 1 or more), got Inf'),
        ('"line": NaN}', '"line" must be a line number (a whole number, 1 or more), got NaN'),
        ('"line": true}', '"line" must be a line number (a whole number, 1 or more), got true'),
        ('"line": 1, "end_line": 2.5}', '"end_line" must be a line number'),
        ('"line": 1, "score": NaN}', '"score" must be a finite number, got NaN'),
        ('"line": 1, "path": 5}', '"path" must be a string, got int; write it as'),
    ],
)
def test_check_refuses_a_context_entity_with_a_bad_field(tmp_path, capsys, fields, message):
    context = tmp_path / "ctx.json"
    context.write_text('{"entities": ["Shop", ' + CART + fields + "]}", "utf-8")
    response = tmp_path / "answer.md"
    response.write_text("`Cart` holds items.\n\n## Entities used\n- Cart\n", "utf-8")
    code, out, err = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_USAGE and out == "" and "Traceback" not in err
    assert f"citeloop: error: context file '{context}': " in err and message in err


def test_check_refuses_a_context_text_that_is_no_string(tmp_path, capsys):
    context = tmp_path / "ctx.json"
    context.write_text('{"text": 5, "entities": [' + CART + '"line": 1}]}', "utf-8")
    response = tmp_path / "answer.md"
    response.write_text("`Cart` holds items.\n\n## Entities used\n- Cart\n", "utf-8")
    code, out, err = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_USAGE and out == ""
    assert '"text" must be the context text (a string), got int' in err
    context.write_text('{"text": "class Cart", "entities": [' + CART + '"line": 1}]}', "utf-8")
    code, out, _ = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_OK, out


def test_index_into_an_uncreatable_path_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    code, _, err = run(
        capsys, "index", str(tmp_path), "--db", str(tmp_path / "file" / "g.db"), "--quiet"
    )
    assert code == EXIT_USAGE
    assert "citeloop: error:" in err and "Traceback" not in err


def test_context_on_a_file_that_is_not_a_graph_leaves_it_alone(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("", encoding="utf-8")
    code, _, err = run(capsys, "context", "--db", str(notes), "--task", TASK)
    assert code == EXIT_USAGE
    assert "not a citeloop knowledge graph" in err
    assert notes.read_text(encoding="utf-8") == ""


def test_check_reads_a_json_context_whatever_its_name(db, tmp_path, capsys):
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--json")
    context = tmp_path / "context-without-extension"
    context.write_text(out, encoding="utf-8")
    response = tmp_path / "answer.md"
    response.write_text("I have no idea.", encoding="utf-8")
    code, out, _ = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_FAILED
    assert "note: no entity" not in out


def test_blank_task_is_a_usage_error(db, capsys):
    code, _, err = run(capsys, "context", "--db", str(db), "--task", "   ")
    assert code == EXIT_USAGE
    assert "--task" in err


def test_index_max_file_bytes_option(sample_repo, tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "index",
        str(sample_repo),
        "--db",
        str(tmp_path / "g.db"),
        "--quiet",
        "--max-file-bytes",
        "100",
    )
    assert code == EXIT_OK
    assert "over max_file_bytes=100" in out


def test_check_with_a_context_without_entities_is_a_usage_error(tmp_path, capsys):
    context = tmp_path / "context.txt"
    context.write_text("Just some prose.\n", encoding="utf-8")
    response = tmp_path / "answer.md"
    response.write_text(answer_citing(["GraphStore"]), encoding="utf-8")
    code, out, err = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_USAGE
    assert "no entity found in context file" in err and out == ""


def test_failing_check_on_a_text_context_explains_the_tiers(db, tmp_path, capsys):
    code, text, _ = run(capsys, "context", "--db", str(db), "--task", TASK)
    context = tmp_path / "context.txt"
    context.write_text(text, encoding="utf-8")
    response = tmp_path / "answer.md"
    response.write_text(answer_citing(core_names(capsys, db)), encoding="utf-8")
    code, out, _ = run(capsys, "check", "--context", str(context), "--response", str(response))
    assert code == EXIT_FAILED
    assert "a text context has no tiers" in out


def test_an_empty_graph_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "index", str(tmp_path / "empty"), "--db", str(tmp_path / "g.db"))
    assert code == EXIT_OK and "no Python file" in err
    code, _, err = run(capsys, "context", "--db", str(tmp_path / "g.db"), "--task", TASK)
    assert code == EXIT_USAGE and "is empty" in err


def _replay(tmp_path: Path, *turns: str) -> str:
    replay = tmp_path / "turns.jsonl"
    replay.write_text("".join(json.dumps({"content": t}) + "\n" for t in turns), encoding="utf-8")
    return f"replay:{replay}"


def test_explain_narrates_the_shortest_path_with_a_replay_model(db, tmp_path, capsys):
    with SqliteGraphStore(db, read_only=True) as store:
        best = store.recall_paths("Kreis", "Shape")[0]
    narrative = " ".join(f"[{fact_id}]" for fact_id in best.fact_ids)
    model = _replay(tmp_path, "Kreis is a kind of Shape.", narrative)
    argv = ["explain", "--db", str(db), "--from", "Kreis", "--to", "Shape", "--model", model]
    code, out, err = run(capsys, *argv, "--json")
    assert code == EXIT_OK
    result = json.loads(out)
    assert result["path"] == best.to_dict()
    assert result["narrative"] == narrative
    assert result["verbalization"]["passed"] is True
    assert result["verbalization"]["iterations_used"] == 1
    assert result["verbalization"]["model_calls"] == 2
    for node in ("draft", "critique", "refine"):
        assert f"> {node}" in err


def test_explain_prints_path_narrative_and_verdict(db, tmp_path, capsys):
    model = _replay(tmp_path, "No ids here.", "Still none.")
    code, out, _ = run(
        capsys, "explain", "--db", str(db), "--from", "Circle", "--to", "Shape", "--model", model
    )
    assert code == EXIT_FAILED  # the narrative never mentioned the fact ids
    assert "class Circle inherits class Shape" in out
    assert "Still none." in out
    assert "passed: false; iterations used: 2 of 2; model calls: 2" in out
    assert "missing fact ids: f-" in out


def test_explain_with_an_unknown_name_suggests_close_ones(db, tmp_path, capsys):
    model = _replay(tmp_path, "unused")
    code, out, err = run(capsys, "explain", "--db", str(db), "--from", "Circel", "--model", model)
    assert code == EXIT_USAGE
    assert "'Circle'" in err and "Traceback" not in err
    assert out == ""


def test_explain_without_a_path_exits_1_and_says_why(db, tmp_path, capsys):
    argv = ["--db", str(db), "--from", "Kreis", "--to", "Shape", "--max-hops", "1"]
    code, out, err = run(capsys, "explain", *argv, "--model", _replay(tmp_path, "unused"))
    assert code == EXIT_FAILED
    assert "no path connects 'Kreis' and 'Shape' within 1 hop; they are " in err
    # The advice is the proven distance: that --max-hops finds a path.
    hops = err.split("use --max-hops ")[1].split()[0]
    with SqliteGraphStore(db) as store:
        assert store.recall_paths("Kreis", "Shape", max_hops=int(hops))
        assert not store.recall_paths("Kreis", "Shape", max_hops=int(hops) - 1)
    assert out == ""
    code, out, err = run(capsys, "explain", *argv, "--model", _replay(tmp_path, "unused"), "--json")
    assert (code, json.loads(out)["paths_found"]) == (EXIT_FAILED, 0)


def test_explain_checks_the_model_before_searching(db, tmp_path, capsys):
    argv = ["--db", str(db), "--from", "Circel", "--model", f"replay:{tmp_path}/missing.jsonl"]
    code, _, err = run(capsys, "explain", *argv)
    assert code == EXIT_USAGE
    assert "missing.jsonl" in err  # the model spec, not the unknown name, is reported


@pytest.mark.parametrize("iterations", ["0", "101"])
def test_explain_refuses_max_iterations_out_of_range(db, capsys, iterations):
    argv = ["--db", str(db), "--from", "Circle", "--model", "m", "--max-iterations", iterations]
    code, _, err = run(capsys, "explain", *argv)
    assert code == EXIT_USAGE
    assert "--max-iterations" in err


@pytest.mark.parametrize("hops", ["0", "11", "three"])
def test_explain_refuses_max_hops_out_of_range(db, capsys, hops):
    argv = ["--db", str(db), "--from", "Circle", "--model", "m", "--max-hops", hops]
    code, _, err = run(capsys, "explain", *argv)
    assert code == EXIT_USAGE
    assert "--max-hops" in err


def _audit_files(tmp_path: Path, index_version: str = "d-1") -> list[str]:
    unit = {"id": "f-1", "source": "https://example.org/a", "text": "A was built in 1990."}
    index = {"version": "d-1", "units": {"f-1": unit}}
    result = {"answer": "A was built in 1990.", "evidence": [unit], "index_version": index_version}
    plan = {"question": "When was A built?", "resolved_question": "When was A built?"}
    files = {"result.json": result, "plan.json": plan, "index.json": index}
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    return [
        "--result",
        str(tmp_path / "result.json"),
        "--plan",
        str(tmp_path / "plan.json"),
        "--index",
        str(tmp_path / "index.json"),
    ]


REVIEW = {
    "plan_matches_request": True,
    "all_requirements_identified": True,
    "facts_supported": True,
    "clear": True,
    "requirements": [
        {
            "description": "when A was built",
            "question_segments": ["Q1"],
            "status": "answered",
            "answer_segments": ["A1"],
            "evidence_ids": ["E1"],
        }
    ],
}


def test_audit_delivers_a_fulfilled_result(tmp_path, capsys):
    model = _replay(tmp_path, json.dumps(REVIEW))
    code, out, err = run(capsys, "audit", *_audit_files(tmp_path), "--model", model, "--json")
    assert code == EXIT_OK
    verdict = json.loads(out)
    assert (verdict["delivered"], verdict["delivery_outcome"]) == (True, "complete")
    assert "> mechanical_check: passed" in err and "> verdict: complete" in err


def test_audit_rejects_with_codes_only(tmp_path, capsys):
    model = _replay(tmp_path, "unused")
    argv = _audit_files(tmp_path, index_version="d-old")
    code, out, _ = run(capsys, "audit", *argv, "--model", model)
    assert code == EXIT_FAILED
    assert out.startswith("rejected: scope/mixed_snapshot\nrequest fingerprint: ")


def test_audit_names_a_bad_input_file(tmp_path, capsys):
    argv = _audit_files(tmp_path)
    (tmp_path / "plan.json").write_text('{"question": ""}', encoding="utf-8")
    code, out, err = run(capsys, "audit", *argv, "--model", _replay(tmp_path, "x"))
    assert code == EXIT_USAGE
    assert "plan.json" in err and "question" in err and out == ""


def test_audit_refuses_an_empty_index_file(tmp_path, capsys):
    argv = _audit_files(tmp_path)
    empty = tmp_path / "index.jsonl"
    empty.write_text("", encoding="utf-8")
    argv[argv.index("--index") + 1] = str(empty)
    code, out, err = run(capsys, "audit", *argv, "--model", _replay(tmp_path, "x"))
    assert code == EXIT_USAGE and out == ""
    assert f"citeloop: error: the evidence file '{empty}' holds no documents" in err


# --- threads and checkpointers (run, explain, audit) ---------------------------------


@pytest.fixture(autouse=True)
def _threads_in_tmp_path(tmp_path, monkeypatch):
    """Every run of this module keeps its threads in the test's folder, not the repo's."""
    monkeypatch.setenv("CITELOOP_CHECKPOINTER", f"sqlite:{tmp_path / 'threads.db'}")


def _thread_of(err: str) -> str:
    match = re.search(r"^thread: (\S+)$", err, re.MULTILINE)
    assert match, err
    return match.group(1)


def test_run_prints_a_new_thread_to_resume_by(db, tmp_path, capsys):
    model = _replay(tmp_path, answer_citing(core_names(capsys, db)))
    code, out, err = run(capsys, "run", "--db", str(db), "--task", TASK, "--model", model)
    assert code == EXIT_OK
    uuid.UUID(_thread_of(err))  # a new id each run
    assert "thread" not in out
    assert (tmp_path / "threads.db").is_file()


def test_run_keeps_threads_in_a_sqlite_file_of_the_working_folder_by_default(
    db, tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("CITELOOP_CHECKPOINTER")
    monkeypatch.chdir(tmp_path)
    model = _replay(tmp_path, answer_citing(core_names(capsys, db)))
    code, _, _ = run(capsys, "run", "--db", str(db), "--task", TASK, "--model", model)
    assert code == EXIT_OK
    assert (tmp_path / ".citeloop" / "checkpoints.db").is_file()


def test_a_finished_thread_starts_a_new_run(db, tmp_path, capsys):
    cited = answer_citing(core_names(capsys, db))
    model = _replay(tmp_path, "I am not sure.", cited, cited)
    argv = ["run", "--db", str(db), "--task", TASK, "--model", model, "--thread", "t-1", "--json"]
    code, out, err = run(capsys, *argv)
    assert code == EXIT_OK and json.loads(out)["attempts"] == 2
    assert _thread_of(err) == "t-1"
    code, out, err = run(capsys, *argv)
    assert code == EXIT_OK
    assert (
        "thread t-1: its last run finished (outcome passed: it is not resumed); starting a new run"
    ) in err
    assert "> inject_context" in err
    final = json.loads(out)  # counters start afresh
    assert (final["outcome"], final["attempts"], final["expanded"]) == ("passed", 1, False)


def _interrupt_after_the_first_call(db: Path, tmp_path: Path, model: str) -> None:
    """Leave thread ``t-2`` with a run stopped after its first model call."""
    spec = f"sqlite:{tmp_path / 'threads.db'}"
    with open_checkpointer(spec, default_path="unused.db") as saver:
        graph = build_grounded_answer_graph(checkpointer=saver)
        config = {"configurable": {"thread_id": "t-2"}}
        context = {"model": model, "db_path": str(db)}
        graph.invoke({"task": TASK}, config, context=context, interrupt_after=["call_model"])
        assert graph.get_state(config).next == ("validate",)


def test_run_resumes_an_interrupted_thread_without_asking_again(db, tmp_path, capsys):
    # Two turns, each played once: asking the first prompt again would fail the run.
    model = _replay(tmp_path, "I am not sure.", answer_citing(core_names(capsys, db)))
    _interrupt_after_the_first_call(db, tmp_path, model)
    argv = ["--db", str(db), "--task", f" {TASK} ", "--model", model, "--thread", "t-2"]
    code, out, err = run(capsys, "run", *argv, "--json")
    assert code == EXIT_OK, err
    assert "resuming the interrupted run of thread t-2 at validate" in err
    assert "> inject_context" not in err
    final = json.loads(out)
    assert (final["outcome"], final["attempts"], final["expanded"]) == ("passed", 2, True)


def test_an_interrupted_thread_is_resumed_only_with_its_own_task(db, tmp_path, capsys):
    model = _replay(tmp_path, "I am not sure.", "unused")
    _interrupt_after_the_first_call(db, tmp_path, model)
    argv = ["--db", str(db), "--task", "How is Shape drawn?", "--model", model]
    code, out, err = run(capsys, "run", *argv, "--thread", "t-2")
    assert code == EXIT_USAGE and out == ""
    assert f"thread 't-2' (in sqlite:{tmp_path / 'threads.db'}) holds" in err
    assert "holds an interrupted `citeloop run` with another task" in err
    assert "pass the same inputs to resume it, or omit --thread" in err


def test_explain_and_audit_run_on_threads(db, tmp_path, capsys):
    argv = ["--db", str(db), "--from", "Circle", "--to", "Shape", "--thread", "t-3"]
    model = _replay(tmp_path, "No ids here.", "Still none.", "Nor here.", "Nor there.")
    assert run(capsys, "explain", *argv, "--model", model)[0] == EXIT_FAILED
    code, _, err = run(capsys, "explain", *argv, "--model", model)
    assert code == EXIT_FAILED and "thread t-3: its last run finished" in err
    model = _replay(tmp_path, json.dumps(REVIEW))
    code, _, err = run(capsys, "audit", *_audit_files(tmp_path), "--model", model, "--thread", "a")
    assert code == EXIT_OK and _thread_of(err) == "a"


def test_an_unknown_postgres_host_exits_2_quickly_without_the_password(db, tmp_path, capsys):
    spec = "postgresql://citeloop:hunter2@no-such-host.invalid/citeloop?connect_timeout=3"
    started = time.monotonic()
    argv = ["--db", str(db), "--task", TASK, "--model", _replay(tmp_path, "x")]
    code, out, err = run(capsys, "run", *argv, "--checkpointer", spec)
    assert time.monotonic() - started < 15
    assert code == EXIT_USAGE and out == ""
    assert "no-such-host.invalid" in err and "check that the server runs" in err
    assert "hunter2" not in err and "Traceback" not in err


def test_a_bad_checkpointer_spec_from_the_environment_exits_2(db, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CITELOOP_CHECKPOINTER", "redis://localhost:6379")
    argv = ["--db", str(db), "--task", TASK, "--model", _replay(tmp_path, "x")]
    code, out, err = run(capsys, "run", *argv)
    assert code == EXIT_USAGE and out == ""
    assert "unknown scheme 'redis'" in err and "postgresql://" in err
    assert "(the spec is $CITELOOP_CHECKPOINTER)" in err
    code, _, err = run(capsys, "run", *argv, "--checkpointer", "redis://localhost:6379")
    assert code == EXIT_USAGE and "$CITELOOP_CHECKPOINTER" not in err  # the one given


def test_python_dash_m_citeloop_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "citeloop", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: citeloop ")


def test_check_grounds_the_names_a_json_context_shows_in_its_text(db, tmp_path, capsys):
    # `undefined_helper` is only in the code of Circle.label's excerpt: no entity has it.
    task = "How does `Circle.label` work?"
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", task, "--json")
    assert code == EXIT_OK and "undefined_helper()" in json.loads(out)["text"]
    context = tmp_path / "context.json"
    context.write_text(out, encoding="utf-8")
    answer = tmp_path / "answer.md"
    cited = "\n\n## Entities used\n- Circle\n- label\n"
    answer.write_text("`Circle.label` adds `undefined_helper()`." + cited, encoding="utf-8")
    code, out, _ = run(capsys, "check", "--context", str(context), "--response", str(answer))
    assert code == EXIT_OK, out
    answer.write_text("`Circle.label` adds `made_up_helper()`." + cited, encoding="utf-8")
    code, out, _ = run(capsys, "check", "--context", str(context), "--response", str(answer))
    assert code == EXIT_FAILED and "made_up_helper" in out


def test_check_grounds_the_names_a_run_json_context_text_shows(db, tmp_path, capsys):
    task = "How does `Circle.label` work?"
    cited = "\n\n## Entities used\n- Circle\n- label\n"
    answer = "`Circle.label` adds `undefined_helper()`." + cited
    output, saved, response = _run_and_save(db, tmp_path, capsys, task, answer)
    assert "undefined_helper()" in output["context_text"]
    code, out, _ = run(capsys, "check", "--context", str(saved), "--response", str(response))
    assert code == EXIT_OK, out
    response.write_text(answer.replace("undefined_helper", "made_up_helper"), encoding="utf-8")
    code, out, _ = run(capsys, "check", "--context", str(saved), "--response", str(response))
    assert code == EXIT_FAILED and "made_up_helper" in out


def _run_and_save(db: Path, tmp_path: Path, capsys, task: str, answer: str):
    """``run --json`` of ``task`` with a model that answers ``answer`` (it must pass at
    once): its output, and the files it and the answer are saved in."""
    replay = tmp_path / "turns.jsonl"
    replay.write_text(json.dumps({"content": answer}) + "\n", encoding="utf-8")
    argv = ["--db", str(db), "--task", task, "--model", f"replay:{replay}", "--json"]
    code, out, _ = run(capsys, "run", *argv)
    assert code == EXIT_OK, out
    saved = tmp_path / "run.json"
    saved.write_text(out, encoding="utf-8")
    response = tmp_path / "answer.md"
    response.write_text(answer, encoding="utf-8")
    return json.loads(out), saved, response


def test_check_judges_a_bare_name_of_the_task_as_the_run_does(db, tmp_path, capsys):
    """A task that writes `area` bare asks for one of its methods: `check` reads the task
    a saved context holds (or --task) and passes an answer citing `Circle.area`, as the
    run does; without the task every `area` of the core is required."""
    task = "What does `area` do?"
    context, saved = saved_context(capsys, db, tmp_path, task)
    assert saved["task"] == task
    assert len([e for e in saved["entities"] if e["tier"] == "core"]) > 1
    answer = answer_file(
        tmp_path,
        "Circle.area returns pi times the radius squared.\n\n## Entities used\n"
        "- Circle.area (shapes/circle.py:12)\n",
    )
    check = ["check", "--context", str(context), "--response", str(answer)]
    code, out, _ = run(capsys, *check)
    assert code == EXIT_OK, out
    del saved["task"]
    context.write_text(json.dumps(saved), encoding="utf-8")
    code, out, _ = run(capsys, *check)
    assert code == EXIT_FAILED and "core entities not cited: Shape.area" in out
    code, out, _ = run(capsys, *check, "--task", task)
    assert code == EXIT_OK, out


def test_run_json_holds_the_task_check_reads(db, tmp_path, capsys):
    """A run's output names the task: `check` of that output grounds the names it
    writes (`redirect_to`, which the answer says `Circle` lacks)."""
    task = "Does `Circle` have a `redirect_to` method?"
    answer = (
        "`Circle` defines no `redirect_to`; Circle.area is its method.\n\n"
        "## Entities used\n- Circle (shapes/circle.py:8)\n- Circle.area (shapes/circle.py:12)\n"
    )
    output, saved, response = _run_and_save(db, tmp_path, capsys, task, answer)
    assert output["task"] == task
    code, out, _ = run(capsys, "check", "--context", str(saved), "--response", str(response))
    assert code == EXIT_OK, out
    assert "redirect_to" not in out


def test_check_refuses_a_saved_task_that_is_no_string(db, tmp_path, capsys):
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--json")
    saved = json.loads(out)
    saved["task"] = 5
    context = tmp_path / "context.json"
    context.write_text(json.dumps(saved), encoding="utf-8")
    answer = tmp_path / "answer.md"
    answer.write_text(answer_citing(["Circle"]), encoding="utf-8")
    code, _, err = run(capsys, "check", "--context", str(context), "--response", str(answer))
    assert code == EXIT_USAGE and '"task" must be the task text (a string), got int' in err


def test_context_names_the_code_a_task_names_that_the_graph_lacks(db, capsys):
    task = "How does `StateGraph.compile` build a CompiledStateGraph from `Circle`?"
    code, out, err = run(capsys, "context", "--db", str(db), "--task", task)
    assert code == EXIT_OK and "class Circle" in out
    note = next(line for line in err.splitlines() if "does not have" in line)
    assert "StateGraph.compile" in note and "CompiledStateGraph" in note
    assert "Circle" not in note.split("have:")[1].split("(is")[0]
    code, _, err = run(capsys, "context", "--db", str(db), "--task", TASK)
    assert "does not have" not in err
    # Prose and shell words are not code the graph lacks.
    task = "How does `Circle` work in Python, after `pip install shapes`?"
    code, _, err = run(capsys, "context", "--db", str(db), "--task", task)
    assert "does not have" not in err


def test_context_says_standard_library_code_is_not_indexed(db, capsys):
    # `os.path.join` is Python's: asking whether the graph is the right one misleads.
    task = "Does `Circle` use `os.path.join` or `BigShape.grow`?"
    code, _, err = run(capsys, "context", "--db", str(db), "--task", task)
    assert code == EXIT_OK
    standard = next(line for line in err.splitlines() if "standard library" in line)
    assert "os.path.join" in standard and "BigShape" not in standard
    lacking = next(line for line in err.splitlines() if "does not have" in line)
    assert "BigShape.grow" in lacking and "os.path" not in lacking


def test_a_bad_replay_file_is_refused_before_its_thread_starts(db, tmp_path, capsys):
    """An empty replay file stops the command before the run: the thread is not left
    with an interrupted run that `--thread` would then resume."""
    blank = tmp_path / "blank.jsonl"
    blank.write_text("", encoding="utf-8")
    argv = ["--db", str(db), "--task", TASK, "--thread", "t-blank"]
    code, out, err = run(capsys, "run", *argv, "--model", f"replay:{blank}")
    assert code == EXIT_USAGE and out == "" and "holds no turns" in err
    assert "thread: t-blank" not in err
    code, _, err = run(capsys, "run", *argv, "--model", _replay(tmp_path, "No idea."))
    assert "resuming" not in err and "thread: t-blank" in err


def test_an_interrupted_run_names_the_thread_that_resumes_it(db, tmp_path, capsys, monkeypatch):
    async def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_graphs, "_stream", interrupted)
    argv = ["--db", str(db), "--task", TASK, "--model", _replay(tmp_path, "x"), "--thread", "t-9"]
    code, _, err = run(capsys, "run", *argv)
    assert code == 130
    assert "interrupted; to resume, run the same command again with --thread t-9" in err


def test_a_model_that_cannot_be_made_is_refused_before_its_thread_starts(db, capsys):
    """A provider spec that names no installed provider stops the command before the
    run: no thread is started (nor left with a checkpoint to resume)."""
    argv = ["--db", str(db), "--task", TASK, "--thread", "t-provider"]
    code, out, err = run(capsys, "run", *argv, "--model", "nosuchprovider:some-model")
    assert code == EXIT_USAGE and out == ""
    assert "nosuchprovider" in err and "thread: t-provider" not in err


def test_an_odd_thread_id_is_printed_as_a_shell_argument(db, tmp_path, capsys, monkeypatch):
    """The id the resume hint names can be pasted back: quoted for the shell, a line
    break written as \\n rather than splitting it."""

    async def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_graphs, "_stream", interrupted)
    odd = "th/odd id $(x)\nnext"
    argv = ["--db", str(db), "--task", TASK, "--model", _replay(tmp_path, "x"), "--thread", odd]
    code, _, err = run(capsys, "run", *argv)
    assert code == 130
    assert "thread: 'th/odd id $(x)\\nnext'" in err
    assert "again with --thread 'th/odd id $(x)\\nnext'" in err


def test_an_interrupted_run_in_memory_promises_no_resume(db, tmp_path, capsys, monkeypatch):
    async def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_graphs, "_stream", interrupted)
    argv = ["--db", str(db), "--task", TASK, "--model", _replay(tmp_path, "x")]
    code, _, err = run(capsys, "run", *argv, "--checkpointer", "sqlite::memory:")
    assert code == 130 and "interrupted" in err and "to resume" not in err


def test_check_quotes_the_saying_as_the_check_read_it(tmp_path, capsys):
    # The rule reads the answer without invisible characters and HTML comments: so does
    # the quote (it had printed "None", or a comment the rule had not read).
    context = tmp_path / "context.txt"
    context.write_text("class GraphStore(Protocol): add_entity\n", encoding="utf-8")
    section = "\n\n## Entities used\n- GraphStore\n"
    argv = ["check", "--context", str(context), "--response"]
    hidden = "`GraphStore` stores entities. The context does not sh\u200bow `add_entity`."
    code, out, _ = run(capsys, *argv, str(answer_file(tmp_path, hidden + section)))
    assert code == EXIT_FAILED
    assert 'it says so here: "The context does not show `add_entity`."' in out
    commented = "<!-- the context does not show a draft -->\n" + (
        "`GraphStore` stores entities. Its context lacks the body of `add_entity`."
    )
    code, out, _ = run(capsys, *argv, str(answer_file(tmp_path, commented + section)))
    assert code == EXIT_FAILED
    assert 'it says so here: "Its context lacks the body of `add_entity`."' in out
