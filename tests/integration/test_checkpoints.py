"""Checkpointers: spec parsing, and runs that survive a hard kill, on SQLite and PostgreSQL.

The durability test runs ``citeloop run`` in a child process with a chat model that logs
each call to a file. The child is SIGKILLed while its second model call is under way;
a new process given the same ``--thread`` must finish the run from the checkpoint, so
the first model call is never asked again.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from citeloop.checkpoints import (
    CONNECT_TIMEOUT,
    open_async_checkpointer,
    open_checkpointer,
    parse_spec,
    redact,
)
from citeloop.cli import EXIT_OK, main
from citeloop.errors import ConfigurationError
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import ContextInjector, SqliteGraphStore

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_REPO = ROOT / "tests" / "fixtures" / "sample_repo"
TASK = "How does `Circle` compute its area?"
WAIT_SECONDS = 60.0

# The child: `citeloop run` whose chat model logs every call as a JSON line
# {"event": "start"|"done", "pid", "prompt"} to $CALL_LOG. Answers follow the calls that
# completed before, across processes: $ANSWERS[0] first, then $ANSWERS[1], ...
# The call numbered $BLOCK_AT_CALL (counting starts in the log) writes $MARKER and hangs.
# The model stands in for LangChain's provider layer (`init_chat_model`), through which
# citeloop resolves every 'provider:model' spec, so the CLI runs unchanged.
CHILD = """
import json, os, sys, time

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

import langchain.chat_models

from citeloop.cli import main
from citeloop.models import prompt_digest

LOG = os.environ["CALL_LOG"]
ANSWERS = json.loads(os.environ["ANSWERS"])
BLOCK_AT = int(os.environ.get("BLOCK_AT_CALL", "0"))


def events():
    if not os.path.exists(LOG):
        return []
    with open(LOG, encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


def log(**event):
    with open(LOG, "a", encoding="utf-8") as file:
        file.write(json.dumps({"pid": os.getpid(), **event}) + "\\n")
        file.flush()
        os.fsync(file.fileno())


class LoggingModel(BaseChatModel):
    @property
    def _llm_type(self):
        return "logging-test-model"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        before = events()
        number = sum(e["event"] == "start" for e in before) + 1
        done = sum(e["event"] == "done" for e in before)
        digest = prompt_digest(messages)
        log(event="start", prompt=digest)
        if number == BLOCK_AT:
            with open(os.environ["MARKER"], "w") as marker:
                marker.write(str(number))
            time.sleep(600)  # the parent kills this process now
        log(event="done", prompt=digest)
        answer = ANSWERS[min(done, len(ANSWERS) - 1)]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


model = LoggingModel()
langchain.chat_models.init_chat_model = lambda spec, **kwargs: model
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def graph_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("graph") / "graph.db"
    assert main(["index", str(SAMPLE_REPO), "--db", str(db), "--quiet"]) == EXIT_OK
    return db


def core_names(db: Path) -> list[str]:
    with SqliteGraphStore(db, read_only=True) as store:
        injected = ContextInjector(store).inject(TASK)
    return [e.name for e in injected.entities if e.tier == "core"]


def answer_citing(names: list[str]) -> str:
    return "Uses " + ", ".join(names) + ".\n\n## Entities used\n" + "\n".join(names) + "\n"


def read_events(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def wait_for(path: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not path.exists():
        if process.poll() is not None:
            _, err = process.communicate()
            pytest.fail(f"the run ended (exit {process.returncode}) before its 2nd call:\n{err}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"no second model call within {WAIT_SECONDS} s")
        time.sleep(0.05)


def assert_resumes_after_a_kill(tmp_path: Path, graph_db: Path, checkpointer: str) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    log, marker = tmp_path / "calls.jsonl", tmp_path / "second-call.marker"
    env = {
        **os.environ,
        "CALL_LOG": str(log),
        "MARKER": str(marker),
        # The first answer cites nothing (a retry follows); the second passes.
        "ANSWERS": json.dumps(["I am not sure.", answer_citing(core_names(graph_db))]),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("CITELOOP_CHECKPOINTER", None)
    thread = f"durable-{uuid.uuid4().hex[:8]}"
    argv = [sys.executable, str(script), "run", "--db", str(graph_db), "--task", TASK]
    argv += ["--model", "test:logging", "--thread", thread, "--checkpointer", checkpointer]

    first = subprocess.Popen(
        argv,
        cwd=tmp_path,
        env={**env, "BLOCK_AT_CALL": "2"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(marker, first)
    first.send_signal(signal.SIGKILL)  # no cleanup, no flush: as a crash or an OOM kill
    _, first_err = first.communicate(timeout=WAIT_SECONDS)
    assert first.returncode == -signal.SIGKILL
    assert f"thread: {thread}" in first_err

    second = subprocess.run(
        [*argv, "--json"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )
    assert second.returncode == EXIT_OK, second.stderr
    assert f"resuming the interrupted run of thread {thread} at call_model" in second.stderr
    assert "> inject_context" not in second.stderr  # nothing before the kill ran again
    final = json.loads(second.stdout)
    # Two answers in the run: the first one's, kept by the checkpoint, and the retry's.
    assert (final["outcome"], final["attempts"], final["expanded"]) == ("passed", 2, True)

    events = read_events(log)
    starts = [e for e in events if e["event"] == "start"]
    done = [e for e in events if e["event"] == "done"]
    # Call 1 (first prompt) done and call 2 (retry prompt) cut by the kill, in the first
    # process; the second process asked only the retry prompt again: 2 completed calls.
    assert [e["pid"] for e in starts] == [first.pid, first.pid, starts[2]["pid"]]
    assert starts[2]["pid"] != first.pid
    first_prompt, retry_prompt = starts[0]["prompt"], starts[1]["prompt"]
    assert first_prompt != retry_prompt
    assert [e["prompt"] for e in starts] == [first_prompt, retry_prompt, retry_prompt]
    assert [(e["pid"], e["prompt"]) for e in done] == [
        (first.pid, first_prompt),
        (starts[2]["pid"], retry_prompt),
    ]


def test_a_killed_run_resumes_on_sqlite_without_repeating_a_model_call(tmp_path, graph_db):
    assert_resumes_after_a_kill(tmp_path, graph_db, f"sqlite:{tmp_path / 'checkpoints.db'}")


def test_a_killed_run_resumes_on_postgres_without_repeating_a_model_call(
    tmp_path, graph_db, postgres_url
):
    assert_resumes_after_a_kill(tmp_path, graph_db, postgres_url)


# --- open_checkpointer -------------------------------------------------------------


def test_parse_spec_kinds(tmp_path):
    default = tmp_path / "d.db"
    assert parse_spec(None, default) == ("sqlite", str(default))
    assert parse_spec("  ", default) == ("sqlite", str(default))
    assert parse_spec("sqlite:x/y.db", default) == ("sqlite", "x/y.db")
    assert parse_spec("x/y.db", default) == ("sqlite", "x/y.db")
    assert parse_spec("postgres://h/db", default) == ("postgres", "postgres://h/db")
    assert parse_spec("PostgreSQL://h/db", default) == ("postgres", "PostgreSQL://h/db")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("redis://localhost:6379", "unknown scheme 'redis'"),
        ("mysql://u:hunter2@h/db", "unknown scheme 'mysql'"),
        ("sqlite:", "names no file"),
        ("sqlite:///tmp/x.db", "'sqlite:PATH' (no '//')"),
        ("foo:bar", "scheme 'foo' without '//'"),
        ("postgresql:u:hunter2@h/db", "scheme 'postgresql' without '//'"),
        # No file can have these names: refused, the password masked.
        ("postgresql:u:hunter2" + "X" * 400 + "@h/db", "scheme 'postgresql' without '//'"),
        ("/tmp/" + "x" * 700 + ".db", "as a SQLite checkpointer: File name too long"),
    ],
)
def test_bad_specs_are_configuration_errors(tmp_path, spec, message):
    with (
        pytest.raises(ConfigurationError, match=re.escape(message)) as caught,
        open_checkpointer(spec, default_path=tmp_path / "d.db"),
    ):
        pass
    assert "hunter2" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []  # nothing was created


def test_a_name_with_a_colon_is_a_file_when_written_as_sqlite_or_when_it_exists(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    assert parse_spec("sqlite:a:b.db", "d.db") == ("sqlite", "a:b.db")
    Path("c:d.db").touch()
    assert parse_spec("c:d.db", "d.db") == ("sqlite", "c:d.db")
    assert parse_spec("C:/threads.db", "d.db") == ("sqlite", "C:/threads.db")  # a drive


def test_the_default_sqlite_file_is_created_with_its_folders(tmp_path):
    default = tmp_path / "a" / "b" / "checkpoints.db"
    with open_checkpointer(None, default_path=default) as saver:
        graph = build_grounded_answer_graph(checkpointer=saver)
        assert graph.get_state({"configurable": {"thread_id": "t"}}).next == ()
    assert default.is_file()


def test_a_folder_or_a_file_that_is_no_database_is_refused(tmp_path):
    with (
        pytest.raises(ConfigurationError, match="is a folder"),
        open_checkpointer(str(tmp_path), default_path="unused.db"),
    ):
        pass
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with (
        pytest.raises(ConfigurationError, match=r"cannot use '.*junk\.db' as a SQLite"),
        open_checkpointer(f"sqlite:{junk}", default_path="unused.db"),
    ):
        pass


def test_an_uncreatable_folder_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with (
        pytest.raises(ConfigurationError, match="cannot create the folder"),
        open_checkpointer(f"sqlite:{blocker}/sub/c.db", default_path="unused.db"),
    ):
        pass


async def test_the_async_saver_on_sqlite(tmp_path):
    async with open_async_checkpointer(
        f"sqlite:{tmp_path / 'c.db'}", default_path="unused.db"
    ) as saver:
        graph = build_grounded_answer_graph(checkpointer=saver)
        state = await graph.aget_state({"configurable": {"thread_id": "t"}})
        assert state.next == ()


@pytest.mark.parametrize("opener", ["sync", "async"])
async def test_an_unreachable_server_fails_fast_without_its_password(opener):
    url = "postgresql://citeloop:hunter2@127.0.0.1:1/citeloop"  # nothing listens on port 1
    started = time.monotonic()
    with pytest.raises(ConfigurationError, match="check that the server runs") as caught:
        if opener == "sync":
            with open_checkpointer(url, default_path="unused.db"):
                pass
        else:
            async with open_async_checkpointer(url, default_path="unused.db"):
                pass
    assert time.monotonic() - started < CONNECT_TIMEOUT
    assert "hunter2" not in str(caught.value)
    assert "postgresql://citeloop:***@127.0.0.1:1/citeloop" in str(caught.value)


def test_redact_hides_only_the_password():
    assert (
        redact("postgresql://u:p@h:5/d?sslmode=require")
        == "postgresql://u:***@h:5/d?sslmode=require"
    )
    assert redact("postgresql://u@h/d") == "postgresql://u@h/d"
    assert redact("x.db") == "x.db"


@pytest.mark.parametrize("opener", ["sync", "async"])
async def test_postgres_savers_set_up_their_tables(postgres_url, opener):
    config = {"configurable": {"thread_id": f"t-{uuid.uuid4().hex[:8]}"}}
    if opener == "sync":
        with open_checkpointer(postgres_url, default_path="unused.db") as saver:
            graph = build_grounded_answer_graph(checkpointer=saver)
            assert graph.get_state(config).next == ()
    else:
        async with open_async_checkpointer(postgres_url, default_path="unused.db") as saver:
            graph = build_grounded_answer_graph(checkpointer=saver)
            assert (await graph.aget_state(config)).next == ()


def test_a_missing_postgres_database_names_the_fix(postgres_url):
    missing = postgres_url.rsplit("/", 1)[0] + "/no_such_database"
    with (
        pytest.raises(ConfigurationError, match=r"no_such_database.*does not exist"),
        open_checkpointer(missing, default_path="unused.db"),
    ):
        pass


# --- PostgreSQL faults mid-run --------------------------------------------------------


class _Proxy:
    """A TCP proxy to the test server that can drop its connections (a server stopped)
    or stop forwarding without closing them (a server frozen)."""

    def __init__(self, host: str, port: int) -> None:
        import socket
        import threading

        self.target = (host, port)
        self.frozen = threading.Event()
        self.sockets: list[socket.socket] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source, sink) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                return
            while self.frozen.is_set():
                time.sleep(0.05)
            try:
                sink.sendall(data)
            except OSError:
                return

    def drop(self) -> None:
        import socket

        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self.listener.close()
        self.drop()


def _through(proxy: _Proxy, url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    user = parts.netloc.rpartition("@")[0]
    netloc = f"{user}@127.0.0.1:{proxy.port}" if user else f"127.0.0.1:{proxy.port}"
    return urlunsplit(parts._replace(netloc=netloc))


@pytest.mark.parametrize("fault", ["stopped", "frozen"])
def test_a_postgres_fault_mid_run_names_the_checkpointer_and_thread(
    graph_db, postgres_url, monkeypatch, capsys, fault
):
    import langchain.chat_models
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    import citeloop.checkpoints as checkpoints

    host, port = re.search(r"@([^:/]+):(\d+)", postgres_url).groups()
    proxy = _Proxy(host, int(port))
    spec = _through(proxy, postgres_url)
    monkeypatch.setattr(checkpoints, "OPERATION_TIMEOUT", 2.0)

    class Breaking(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "breaking-test-model"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            if fault == "stopped":  # the fault strikes while the model answers
                proxy.drop()
            else:
                proxy.frozen.set()
            message = AIMessage(content="I am not sure.")
            return ChatResult(generations=[ChatGeneration(message=message)])

    model = Breaking()
    monkeypatch.setattr(langchain.chat_models, "init_chat_model", lambda spec, **kw: model)
    thread = f"fault-{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    try:
        code = main(
            [
                *(
                    "run",
                    "--db",
                    str(graph_db),
                    "--task",
                    TASK,
                    "--model",
                    f"test:{fault}-{thread}",
                ),
                *("--thread", thread, "--checkpointer", spec),
            ]
        )
    except SystemExit as exc:
        code = exc.code
    finally:
        proxy.frozen.clear()
        proxy.close()
    err = capsys.readouterr().err
    assert time.monotonic() - started < 30
    assert code == 2, err
    assert f"checkpointer '{spec}' could not save" in err
    assert f"thread {thread!r}" in err and f"--thread {thread}" in err
    assert "Traceback" not in err
    if fault == "frozen":
        assert "no answer within 2 s" in err
