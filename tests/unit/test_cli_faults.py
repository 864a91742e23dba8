"""Faults a user can fix get exit 2 and a message naming the input and the fix; no
secret is ever printed or written; files the user did not name are left alone."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from pathlib import Path

import pytest

import citeloop.checkpoints as checkpoints
from citeloop.checkpoints import BUSY_TIMEOUT, open_checkpointer
from citeloop.cli import EXIT_OK, EXIT_USAGE
from citeloop.knowledge import SqliteGraphStore
from tests.cli import indexed_db, replay_model, run

TASK = "How does `Circle` compute its area?"
SECRET = "hunter2"


@pytest.fixture
def db(sample_repo: Path, tmp_path: Path, capsys) -> Path:
    return indexed_db(capsys, sample_repo, tmp_path)


@pytest.fixture(autouse=True)
def _threads_in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.setenv("CITELOOP_CHECKPOINTER", f"sqlite:{tmp_path / 'threads.db'}")
    monkeypatch.chdir(tmp_path)


def _cited(capsys, db: Path) -> str:
    code, out, _ = run(capsys, "context", "--db", str(db), "--task", TASK, "--json")
    assert code == EXIT_OK
    names = [e["name"] for e in json.loads(out)["entities"] if e["tier"] == "core"]
    return "Uses " + ", ".join(names) + ".\n\n## Entities used\n" + "\n".join(names) + "\n"


# --- secrets ---------------------------------------------------------------------------

SECRET_SPECS = [
    f"postgresql://app@127.0.0.1:1/db?password={SECRET}&connect_timeout=2",
    f"postgresql://app:{SECRET}%zz@127.0.0.1:1/db",  # a malformed percent-escape
    f"postgresql://app:{SECRET}@[::1/db",  # an unclosed IPv6 bracket
    f"postgresql://app:{SECRET}@127.0.0.1:99999/db",  # a port out of range
    f"postgresql://app:a/{SECRET}@127.0.0.1:1/db",  # a '/' in the password
    f"host=127.0.0.1 port=1 user=app password={SECRET} dbname=db connect_timeout=2",
    f"host=127.0.0.1 port=1 password='{SECRET} x' connect_timeout=2",
    f"host=127.0.0.1 password={SECRET} port=1 dbname='unclosed",
    # A keyword first that no fixed list would hold: still a connection, never a path.
    f"sslcompression=0 password={SECRET} host=127.0.0.1 port=1 connect_timeout=2",
]


@pytest.mark.parametrize("spec", SECRET_SPECS)
def test_a_password_is_never_printed_nor_written(db, tmp_path, capsys, spec):
    before = {p for p in tmp_path.rglob("*")}
    model = replay_model(tmp_path, "x")
    code, out, err = run(
        capsys, "run", "--db", str(db), "--task", TASK, "--model", model, "--checkpointer", spec
    )
    assert code == EXIT_USAGE, err
    assert SECRET not in out and SECRET not in err and "Traceback" not in err
    assert "***" in err or "password" not in spec.split("?")[0]  # the spec is shown, masked
    created = {p for p in tmp_path.rglob("*")} - before - {tmp_path / "turns.jsonl"}
    assert not any(SECRET in p.name for p in tmp_path.rglob("*"))  # a key/value spec is no path
    for path in created:
        assert not path.is_file() or SECRET.encode() not in path.read_bytes()


def test_a_key_value_dsn_is_taken_as_postgresql():
    kind, target = checkpoints.parse_spec("host=db dbname=app", "unused.db")
    assert (kind, target) == ("postgres", "host=db dbname=app")
    assert checkpoints.parse_spec("threads.db")[0] == "sqlite"


def test_open_checkpointer_needs_no_default_path(tmp_path):
    with open_checkpointer(str(tmp_path / "threads.db")) as saver:
        assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is None
    assert checkpoints.parse_spec(None) == ("sqlite", str(checkpoints.DEFAULT_PATH))


# --- files the user did not name for writing -------------------------------------------


def test_a_knowledge_graph_is_refused_as_checkpointer_and_left_untouched(db, tmp_path, capsys):
    before = db.read_bytes()
    model = replay_model(tmp_path, "x")
    for spec in (str(db), f"sqlite:{db}"):
        code, out, err = run(
            capsys, "run", "--db", str(db), "--task", TASK, "--model", model, "--checkpointer", spec
        )
        assert code == EXIT_USAGE and out == ""
        assert "is a citeloop knowledge graph" in err and "name another file" in err
    assert db.read_bytes() == before
    assert not Path(f"{db}-wal").exists()
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert not tables & {"checkpoints", "writes"}


def test_another_program_s_sqlite_database_is_refused_as_checkpointer(db, tmp_path, capsys):
    """A SQLite file of other tables is someone's data, not a checkpoint database: it is
    refused and left as it was; a checkpoint database and a new file are used."""
    other = tmp_path / "inventory.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE items (name TEXT)")
    before = other.read_bytes()
    model = replay_model(tmp_path, "x")
    argv = ["run", "--db", str(db), "--task", TASK, "--model", model]
    code, out, err = run(capsys, *argv, "--checkpointer", str(other))
    assert code == EXIT_USAGE and out == ""
    assert "database of something else (tables: items)" in err and "name a new file" in err
    assert other.read_bytes() == before
    fresh = tmp_path / "threads.db"
    with open_checkpointer(str(fresh)) as saver:  # a new file becomes one
        assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is None
    with open_checkpointer(str(fresh)) as saver:  # and is one from then on
        assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is None


# --- parallel runs on one SQLite checkpointer -------------------------------------------


def test_the_sqlite_checkpointer_waits_for_other_writers(tmp_path):
    with open_checkpointer(f"sqlite:{tmp_path / 'c.db'}") as saver:
        (timeout_ms,) = saver.conn.execute("PRAGMA busy_timeout").fetchone()
    assert timeout_ms == BUSY_TIMEOUT * 1000


def _hold_write_lock(path: Path, seconds: float, started: threading.Event) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    started.set()
    time.sleep(seconds)
    conn.execute("ROLLBACK")
    conn.close()


def _locked_run(capsys, db, tmp_path, monkeypatch, *, busy: float, held: float):
    threads = tmp_path / "threads.db"
    with open_checkpointer(f"sqlite:{threads}"):
        pass  # the tables exist; the run's first write will have to wait
    monkeypatch.setattr(checkpoints, "BUSY_TIMEOUT", busy)
    started = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(threads, held, started))
    holder.start()
    started.wait()
    try:
        model = replay_model(tmp_path, _cited(capsys, db))
        return run(capsys, "run", "--db", str(db), "--task", TASK, "--model", model)
    finally:
        holder.join()


def test_a_run_waits_out_a_short_lock(db, tmp_path, capsys, monkeypatch):
    code, _, err = _locked_run(capsys, db, tmp_path, monkeypatch, busy=10.0, held=0.5)
    assert code == EXIT_OK, err


def test_a_lock_never_released_says_how_to_resume(db, tmp_path, capsys, monkeypatch):
    code, out, err = _locked_run(capsys, db, tmp_path, monkeypatch, busy=0.2, held=3.0)
    assert out == ""
    assert code == EXIT_USAGE and "Traceback" not in err
    thread = re.search(r"^thread: (\S+)$", err, re.MULTILINE).group(1)
    assert f"checkpointer '{tmp_path / 'threads.db'}' could not save" in err
    assert "database is locked" in err and "the steps saved before are kept" in err
    assert f"run the same command again with --thread {thread}" in err
    # ... and it does resume, once the lock is gone.
    model = replay_model(tmp_path, _cited(capsys, db))
    code, _, err = run(
        capsys, "run", "--db", str(db), "--task", TASK, "--model", model, "--thread", thread
    )
    assert code == EXIT_OK, err


# --- faults the user can fix: exit 2 ----------------------------------------------------


def test_a_damaged_graph_file_names_the_fix(db, tmp_path, capsys):
    data = bytearray(db.read_bytes())
    for offset in range(4096 * 2 + 100, len(data) - 2000, 4096):
        data[offset : offset + 2000] = os.urandom(2000)
    db.write_bytes(bytes(data))
    code, out, err = run(capsys, "context", "--db", str(db), "--task", TASK)
    assert code == EXIT_USAGE and out == "" and "Traceback" not in err
    assert f"cannot read knowledge graph '{db}'" in err
    assert f"delete it and rebuild it with `citeloop index PATH --db {db}`" in err


def test_a_full_disk_during_index_keeps_the_previous_graph(
    sample_repo, db, tmp_path, capsys, monkeypatch
):
    with SqliteGraphStore(db, read_only=True) as store:
        before = store.snapshot()
    (sample_repo / "shapes" / "big.py").write_text(
        "".join(f"def f{i}(x):\n    '''Doc {i}.'''\n    return x\n" for i in range(3000)), "utf-8"
    )
    opened = SqliteGraphStore._open

    def small_disk(self, read_only):  # SQLite reports a full disk as at max_page_count
        conn = opened(self, read_only)
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        conn.execute(f"PRAGMA max_page_count={pages + 2}")
        return conn

    monkeypatch.setattr(SqliteGraphStore, "_open", small_disk)
    code, _, err = run(capsys, "index", str(sample_repo), "--db", str(db), "--quiet")
    assert code == EXIT_USAGE and "Traceback" not in err
    assert "rollback" not in err
    assert f"cannot write knowledge graph '{db}': database or disk is full" in err
    assert "the previous graph is intact; free disk space" in err
    monkeypatch.undo()
    with SqliteGraphStore(db, read_only=True) as store:
        assert store.entities_named("f1") == []
        assert store.snapshot() == before


def test_a_huge_json_number_in_a_context_file(tmp_path, capsys):
    context = tmp_path / "ctx.json"
    context.write_text('{"entities": [{"name": "A", "line": ' + "9" * 5000 + "}]}", "utf-8")
    (tmp_path / "answer.md").write_text("A", "utf-8")
    code, _, err = run(capsys, "check", "--context", str(context), "--response", "answer.md")
    assert code == EXIT_USAGE and "Traceback" not in err
    assert f"context file '{context}'" in err and "write it as a string" in err


def test_a_huge_json_number_in_an_audit_file(tmp_path, capsys):
    for name in ("result", "plan", "index"):
        (tmp_path / f"{name}.json").write_text('{"n": ' + "1" * 5000 + "}", "utf-8")
    argv = ["--result", "result.json", "--plan", "plan.json", "--index", "index.json"]
    code, _, err = run(capsys, "audit", *argv, "--model", replay_model(tmp_path, "x"))
    assert code == EXIT_USAGE and "Traceback" not in err
    assert "result.json" in err and "write it as a string" in err


def test_a_task_that_is_not_utf8_is_a_usage_error(db, tmp_path, capsys):
    task = os.fsdecode(b"How is Circle built? caf\xe9")  # as sys.argv carries such bytes
    code, _, err = run(
        capsys, "run", "--db", str(db), "--task", task, "--model", replay_model(tmp_path, "x")
    )
    assert code == EXIT_USAGE
    assert "argument --task: is not UTF-8 text" in err and "model failed" not in err
