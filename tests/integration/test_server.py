"""The graphs of ``langgraph.json`` served by ``langgraph dev`` and driven by ``langgraph_sdk``.

The server runs in a temporary directory with its own ``langgraph.json`` (the repo's
graphs by absolute path), so its ``.langgraph_api/`` persistence never touches the
working tree. It listens on a free port and is stopped by its process id.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from citeloop.cli import EXIT_OK, main

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_REPO = ROOT / "tests" / "fixtures" / "sample_repo"
GRAPHS = ("grounded_answer", "verbalize", "output_guard", "delivery_audit")
TASK = "How does `Circle` compute its area with `Shape`?"
READY_SECONDS = 40.0
STOP_GRACE_SECONDS = 10.0


def langgraph_cli() -> str | None:
    """The ``langgraph`` executable of this interpreter's environment, else on ``PATH``."""
    beside = Path(sys.executable).with_name("langgraph")
    return str(beside) if beside.is_file() else shutil.which("langgraph")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_cli(args: list[str]) -> str:
    """Run ``citeloop ARGS`` in-process; its stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    assert code == EXIT_OK, f"citeloop {' '.join(args)} exited {code}:\n{out.getvalue()}"
    return out.getvalue()


def write_server_config(directory: Path) -> Path:
    """A ``langgraph.json`` in ``directory`` serving the repo's graphs by absolute path."""
    repo_config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    graphs = {
        name: str(ROOT / spec.removeprefix("./")) for name, spec in repo_config["graphs"].items()
    }
    assert sorted(graphs) == sorted(GRAPHS), f"langgraph.json registers {sorted(graphs)}"
    config = directory / "langgraph.json"
    config.write_text(json.dumps({"dependencies": [str(ROOT)], "graphs": graphs}), "utf-8")
    return config


def server_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=1) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group (its id is the server's pid), then SIGKILL."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_GRACE_SECONDS)


@dataclass(frozen=True)
class Server:
    url: str
    db: Path
    replay: Path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    executable = langgraph_cli()
    if executable is None:
        pytest.skip("the `langgraph` CLI is not installed (pip install 'langgraph-cli[inmem]')")
    workdir = tmp_path_factory.mktemp("langgraph_dev")
    shutil.rmtree(workdir / ".langgraph_api", ignore_errors=True)
    config = write_server_config(workdir)

    db = workdir / "sample.db"
    run_cli(["index", str(SAMPLE_REPO), "--db", str(db), "--quiet"])
    context = json.loads(run_cli(["context", "--db", str(db), "--task", TASK, "--json"]))
    core = sorted({e["name"] for e in context["entities"] if e["tier"] == "core"})
    assert core, "the task names no entity of the sample repo"
    answer = (
        f"{TASK.removesuffix('?')}: "
        + ", ".join(f"`{name}`" for name in core)
        + " work together as the context shows.\n\n## Entities used\n"
        + "".join(f"- {name}\n" for name in core)
    )
    replay = workdir / "replay.jsonl"
    replay.write_text(json.dumps({"content": answer}) + "\n", encoding="utf-8")

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGSMITH_TRACING": "false",
    }
    command = [executable, "dev", "--no-browser", "--no-reload"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--config", str(config)]
    log_path = workdir / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + READY_SECONDS
        while not server_ok(url):
            if process.poll() is not None or time.monotonic() > deadline:
                status = (
                    f"exited with {process.returncode}"
                    if process.poll() is not None
                    else f"was not ready after {READY_SECONDS:.0f} s"
                )
                stop(process)
                pytest.fail(
                    f"`langgraph dev` on port {port} {status}; its output:\n"
                    + log_path.read_text(encoding="utf-8", errors="replace")
                )
            time.sleep(0.2)
        yield Server(url=url, db=db, replay=replay)
    finally:
        stop(process)


@pytest.fixture(scope="module")
def client(server: Server):
    from langgraph_sdk import get_sync_client

    with get_sync_client(url=server.url, api_key=None) as sync_client:
        yield sync_client


def test_registered_graphs_have_context_schemas(client) -> None:
    assistants = client.assistants.search(limit=100)
    by_graph = {assistant["graph_id"]: assistant for assistant in assistants}
    assert set(GRAPHS) <= set(by_graph), f"served graphs: {sorted(by_graph)}"
    for graph_id in GRAPHS:
        schemas = client.assistants.get_schemas(by_graph[graph_id]["assistant_id"])
        properties = (schemas.get("context_schema") or {}).get("properties")
        assert properties, f"{graph_id} has no context schema properties: {schemas}"
    grounded = client.assistants.get_schemas(by_graph["grounded_answer"]["assistant_id"])
    assert {"model", "db_path", "max_retries"} <= set(grounded["context_schema"]["properties"])


def test_grounded_answer_run_streams_updates_and_passes(client, server: Server) -> None:
    thread = client.threads.create()
    events = list(
        client.runs.stream(
            thread["thread_id"],
            "grounded_answer",
            input={"task": TASK},
            context={"model": f"replay:{server.replay}", "db_path": str(server.db)},
            stream_mode="updates",
        )
    )
    errors = [part.data for part in events if part.event == "error"]
    assert not errors, f"the run failed: {errors}"
    updated = [node for part in events if part.event == "updates" for node in part.data]
    assert updated == ["inject_context", "call_model", "validate"], [
        (part.event, part.data) for part in events
    ]

    values = client.threads.get_state(thread["thread_id"])["values"]
    assert values["outcome"] == "passed", values.get("report")
    assert (values["attempts"], values["expanded"], values["error"]) == (1, False, "")
    assert values["report"]["passed"] and not values["report"]["missing_core_citations"]
