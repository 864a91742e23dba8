"""Inputs that used to hang, pass or flood: pipes without a writer, a task that names
nothing, control characters on the terminal, unreadable folders, a large file's
memory, and Ctrl-C during a model call."""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from citeloop import reading
from citeloop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from citeloop.knowledge.indexing.blocks import BlocksUnparseable, iter_blocks, splits_into_blocks
from citeloop.knowledge.indexing.python_index import index_python
from citeloop.knowledge.indexing.sources import discover
from citeloop.terminal import escape_controls, escape_json
from tests.cli import run

ROOT = Path(__file__).resolve().parents[2]
ANSWER = "Circle computes its area.\n\n## Entities used\n- Circle\n"
CONTEXT = "# shapes/circle.py\nclass Circle  # L1-3\n"


# -- a named pipe without a writer ----------------------------------------------------


@pytest.fixture
def context_file(tmp_path: Path) -> Path:
    path = tmp_path / "ctx.txt"
    path.write_text(CONTEXT, encoding="utf-8")
    return path


def test_check_refuses_a_pipe_that_no_process_writes_to(
    tmp_path, context_file, capsys, monkeypatch
):
    monkeypatch.setattr(reading, "FIFO_WAIT_SECONDS", 0.3)
    fifo = tmp_path / "answer.fifo"
    os.mkfifo(fifo)
    start = time.monotonic()
    code, out, err = run(capsys, "check", "--context", str(context_file), "--response", str(fifo))
    assert time.monotonic() - start < 10
    assert code == EXIT_USAGE and out == ""
    assert f"response file {str(fifo)!r}" in err
    assert "no process writes to the pipe" in err and "Traceback" not in err


def test_check_reads_a_pipe_whose_writer_comes_late(tmp_path, context_file, capsys):
    fifo = tmp_path / "answer.fifo"
    os.mkfifo(fifo)

    def write_later() -> None:
        time.sleep(0.3)
        with fifo.open("w", encoding="utf-8") as writer:
            writer.write(ANSWER)

    writer = threading.Thread(target=write_later)
    writer.start()
    code, out, err = run(capsys, "check", "--context", str(context_file), "--response", str(fifo))
    writer.join()
    assert code == EXIT_OK, err
    assert out.startswith("PASSED")


def test_check_reads_process_substitution_however_slow(tmp_path, context_file):
    answer = tmp_path / "answer.md"
    answer.write_text(ANSWER, encoding="utf-8")
    command = (
        f"{sys.executable} -m citeloop.cli check --context <(sleep 1; cat {context_file}) "
        f"--response <(cat {answer})"
    )
    done = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout.startswith("PASSED")


def test_an_empty_anonymous_pipe_is_read_as_empty_at_once(tmp_path):
    read_end, write_end = os.pipe()
    os.close(write_end)
    start = time.monotonic()
    try:
        assert reading.read_input_bytes(f"/proc/self/fd/{read_end}", 100, wait=30) == b""
    finally:
        os.close(read_end)
    assert time.monotonic() - start < 5


# -- a task that names nothing ----------------------------------------------------------


def test_a_run_over_an_empty_context_never_passes(sample_repo, tmp_path, capsys):
    db = tmp_path / "graph.db"
    assert run(capsys, "index", str(sample_repo), "--db", str(db), "--quiet")[0] == EXIT_OK
    invented = "It steals data.\n\n## Entities used\n- Evil\n- steal\n- Bogus\n- DEC-666\n"
    replay = tmp_path / "turns.jsonl"
    replay.write_text(json.dumps({"content": invented}) + "\n", encoding="utf-8")
    argv = ["--db", str(db), "--task", "Zzzyx qqqv?", "--model", f"replay:{replay}"]
    code, out, err = run(capsys, "run", *argv, "--max-retries", "0", "--json")
    final = json.loads(out)
    assert final["context_entities"] == []
    assert code == EXIT_FAILED, err
    assert final["outcome"] == "exhausted"
    assert final["report"]["passed"] is False
    assert "empty_context" in final["report"]["failed_rules"]
    replay.write_text(json.dumps({"content": invented}) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "run", *argv, "--max-retries", "0")
    assert code == EXIT_FAILED
    assert "outcome: exhausted" in out and "nothing could ground the answer" in out


# -- control characters on the terminal -----------------------------------------------

OSC52 = "\x1b]52;c;ZXZpbA==\x07"


def test_escape_controls_keeps_text_and_escapes_commands():
    text = f"a\tb\nc{OSC52}\r\nd\x9b2J\u202egnp.exe\u2028e"
    shown = escape_controls(text)
    assert shown == "a\tb\nc\\x1b]52;c;ZXZpbA==\\x07\nd\\x9b2J\\u202egnp.exe\\u2028e"
    assert not any(ord(c) < 0x20 and c not in "\t\n" for c in shown)


def test_escape_json_is_the_same_json_value():
    data = {"text": f"x{OSC52}\x9b\u202e\x7f"}
    dumped = json.dumps(data, ensure_ascii=False)
    escaped = escape_json(dumped)
    assert json.loads(escaped) == data
    assert not any(0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in escaped)


def test_cli_output_never_carries_raw_escape_sequences(sample_repo, tmp_path, capsys):
    (sample_repo / "shapes" / "evil.py").write_text(
        f'class Evil:\n    """Evil{OSC52} shape\x9b2J."""\n\n\ndef steal():\n    return Evil()\n',
        encoding="utf-8",
    )
    (sample_repo / "shapes" / f"bad{chr(27)}[2Jname.py").write_text("def f(:\n", encoding="utf-8")
    db = tmp_path / "graph.db"
    code, out, err = run(capsys, "index", str(sample_repo), "--db", str(db), "--quiet")
    assert code == EXIT_OK
    assert "bad\\x1b[2Jname.py" in out
    outputs = [out, err]
    for extra in (["--explain"], ["--json"]):
        code, out, err = run(
            capsys, "context", "--db", str(db), "--task", "What is `Evil`?", *extra
        )
        assert code == EXIT_OK
        outputs += [out, err]
        if extra == ["--json"]:
            entity = next(e for e in json.loads(out)["entities"] if e["name"] == "Evil")
            assert entity["summary"].startswith(f"Evil{OSC52} shape\x9b2J")  # data kept
        else:
            assert "Evil\\x1b]52;c;ZXZpbA==\\x07 shape\\x9b2J" in out
    code, _, err = run(
        capsys, "check", "--context", f"{tmp_path}/no{chr(27)}]52;x", "--response", "x"
    )
    assert code == EXIT_USAGE and "no\\x1b]52;x" in err
    outputs.append(err)
    for text in outputs:
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text


# -- folders that cannot be read ---------------------------------------------------------


def test_a_folder_that_cannot_be_searched_is_listed_among_skipped(tmp_path, monkeypatch):
    (tmp_path / "pkg" / "locked").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "pkg" / "locked" / "b.py").write_text("y = 1\n", encoding="utf-8")
    locked = tmp_path / "pkg" / "locked"
    real_is_symlink = Path.is_symlink

    def is_symlink(path: Path) -> bool:  # lstat in a folder without its x bit
        if path.parent == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_is_symlink(path)

    monkeypatch.setattr(Path, "is_symlink", is_symlink)
    found = discover(tmp_path)
    assert [source.path for source in found.files] == ["pkg/a.py"]
    assert [(s.path, s.reason) for s in found.skipped] == [
        ("pkg/locked", "cannot read folder: Permission denied")
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_unreadable_and_unsearchable_folders_are_listed(tmp_path):
    for name, mode in (("secret", 0o000), ("noexec", 0o644)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text("x = 1\n", encoding="utf-8")
        (tmp_path / name).chmod(mode)
    try:
        skipped = {s.path: s.reason for s in discover(tmp_path).skipped}
    finally:
        for name in ("secret", "noexec"):
            (tmp_path / name).chmod(0o755)
    assert skipped == {
        "noexec": "cannot read folder: Permission denied",
        "secret": "cannot read folder: Permission denied",
    }


# -- a large file, a block at a time ------------------------------------------------------

TRICKY = textwrap.dedent(
    '''\
    """Module docstring."""
    import os
    X = 1
    """The docstring of X."""
    S = """
    def not_code():
        pass
    """
    @property
    def decorated(): return os.sep
    if X:
        pass
    else:
        pass
    try:
        pass
    except OSError:
        pass
    finally:
        pass
    Y = (1 +
    2)
    Z = 1 + \\
    2
    class C(dict):
        """C."""
        def m(self): return decorated()
    f"{X}"
    '''
)


@pytest.mark.parametrize("block_chars", [1, 7, 40, 200])
def test_blocks_give_the_tree_of_the_whole_file(block_chars):
    source = TRICKY * 3
    assert splits_into_blocks(source, block_chars)
    blocks = list(iter_blocks(source, "m.py", block_chars))
    assert len(blocks) > 1
    joined = ast.Module(body=[s for b in blocks for s in b.body], type_ignores=[])
    whole = ast.parse(source)
    assert ast.dump(joined, include_attributes=True) == ast.dump(whole, include_attributes=True)
    by_blocks = index_python("m.py", "d", source, "m", tree=iter(blocks))
    by_whole = index_python("m.py", "d", source, "m")
    assert by_blocks.entities == by_whole.entities and by_blocks.facts == by_whole.facts
    assert by_blocks.references == by_whole.references and by_blocks.types == by_whole.types


def test_a_block_that_never_parses_leaves_the_file_to_a_whole_parse():
    source = "x = 1\n" * 50 + "def broken(:\n" + "y = 2\n" * 50
    with pytest.raises(BlocksUnparseable):
        list(iter_blocks(source, "m.py", 20))
    assert not splits_into_blocks("x = 1\r\n" * 100, 20)


def test_indexing_a_large_file_reports_a_syntax_error_at_its_line(tmp_path, capsys):
    lines = [f"def f_{i}():\n    return {i}\n" for i in range(40_000)]
    lines.insert(30_000, "def broken(:\n")
    (tmp_path / "big.py").write_text("".join(lines), encoding="utf-8")
    db = tmp_path / "g.db"
    code, out, _ = run(
        capsys, "index", str(tmp_path), "--db", str(db), "--quiet", "--max-file-bytes", "10000000"
    )
    assert code == EXIT_OK
    assert "skipped big.py: syntax error at line 60001" in out


# -- Ctrl-C during a model call ----------------------------------------------------------

SLOW_MODEL_CHILD = """
import os, sys, time
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
import langchain.chat_models
from citeloop.cli import main

class SlowModel(BaseChatModel):
    @property
    def _llm_type(self):
        return "slow-test-model"
    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        open(os.environ["MARKER"], "w").close()
        time.sleep(60)  # a sync client blocked on a slow server
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="late"))])

langchain.chat_models.init_chat_model = lambda spec, **kwargs: SlowModel()
sys.exit(main(sys.argv[1:]))
"""


def test_a_second_ctrl_c_stops_a_run_at_once(sample_repo, tmp_path, capsys):
    db = tmp_path / "graph.db"
    assert run(capsys, "index", str(sample_repo), "--db", str(db), "--quiet")[0] == EXIT_OK
    script, marker = tmp_path / "child.py", tmp_path / "calling.marker"
    script.write_text(SLOW_MODEL_CHILD, encoding="utf-8")
    argv = [sys.executable, str(script), "run", "--db", str(db), "--task", "How is Circle built?"]
    argv += ["--model", "test:slow", "--checkpointer", str(tmp_path / "threads.db")]
    child = subprocess.Popen(
        argv,
        cwd=tmp_path,
        env={**os.environ, "MARKER": str(marker), "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "no model call within 60 s"
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    time.sleep(1.0)
    assert child.poll() is None  # the first Ctrl-C waits for the call's thread
    start = time.monotonic()
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=30)
    assert time.monotonic() - start < 5
    assert child.returncode == 130
    assert "press Ctrl-C again to stop at once" in err and "citeloop: stopped" in err
    assert "Traceback" not in err
