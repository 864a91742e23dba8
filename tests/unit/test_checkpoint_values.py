"""The SQLite checkpointer stores each large value once: values round-trip exactly, a
value kept across steps is stored once, threads resume, and an attempt's rows stay within
a small multiple of its payload (prompt + answer)."""

from __future__ import annotations

import asyncio
import enum
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import RetryPolicy

from citeloop.checkpoint_values import TREE_TYPE
from citeloop.checkpoints import CheckpointerError, open_async_checkpointer, open_checkpointer
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import ContextInjector, index_tree
from tests.fakes import ScriptedChatModel

TASK = "How does `Circle` compute its area?"
CONFIG = {"configurable": {"thread_id": "t-1", "checkpoint_ns": ""}}
WORDS = "shape circle radius area square compute value result method class".split()  # noqa: SIM905


def prose(words: int, seed: int) -> str:
    """Text that does not compress to nothing (seeded: the same every run)."""
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) + str(rng.randrange(1000)) for _ in range(words))


def sample_values() -> dict[str, Any]:
    big = prose(200, 1)
    return {
        "context_text": big,
        "context_entities": [
            {"name": f"E{i}", "summary": prose(30, i), "line": i} for i in range(9)
        ],
        "report": {"passed": False, "reasons": [prose(60, 2)], "ratio": 0.5, "none": None},
        "best": {"answer": big, "report": {"passed": False, "reasons": [prose(60, 2)]}},
        "messages": [HumanMessage(prose(80, 3)), AIMessage(big)],
        "attempts": 2,
        "blob": bytes(range(256)) * 2,
    }


def stored_bytes(path: Path) -> int:
    """The length of every column of every row of every table."""
    with sqlite3.connect(path) as conn:
        total = 0
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"):
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            lengths = " + ".join(f"coalesce(length({c}), 0)" for c in columns)
            total += conn.execute(f"SELECT coalesce(sum({lengths}), 0) FROM {table}").fetchone()[0]
    return total


def put(saver: Any, values: dict[str, Any], parent: dict[str, Any]) -> dict[str, Any]:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = values
    return saver.put(parent, checkpoint, {"step": 1}, {})


def test_values_and_writes_round_trip_exactly(tmp_path):
    with open_checkpointer(str(tmp_path / "c.db")) as saver:
        config = put(saver, sample_values(), CONFIG)
        saver.put_writes(config, [("answer", prose(100, 4)), ("attempts", 3)], "task-1")
        found = saver.get_tuple(config)
        listed = list(saver.list({"configurable": {"thread_id": "t-1"}}))
    assert found.checkpoint["channel_values"] == sample_values()
    assert found.pending_writes == [("task-1", "answer", prose(100, 4)), ("task-1", "attempts", 3)]
    assert [item.checkpoint for item in listed] == [found.checkpoint]


class Status(enum.StrEnum):
    DONE = "done"


def test_a_str_enum_member_keeps_its_type_in_a_stored_value(tmp_path):
    # A parent graph's state beside a large value (a tree with references): a StrEnum
    # member at any depth had come back a plain str, unlike LangGraph's own saver.
    values = {
        "big": prose(200, 5),
        "status": Status.DONE,
        "nested": {"status": Status.DONE, "text": prose(200, 6)},
        "items": [Status.DONE, prose(200, 7)],
    }
    with open_checkpointer(str(tmp_path / "c.db")) as saver:
        found = saver.get_tuple(put(saver, values, CONFIG)).checkpoint["channel_values"]
    assert found == values
    assert type(found["status"]) is Status and type(found["nested"]["status"]) is Status
    assert type(found["items"][0]) is Status


def test_a_value_kept_across_checkpoints_is_stored_once(tmp_path):
    file = tmp_path / "c.db"
    with open_checkpointer(str(file)) as saver:
        config = put(saver, sample_values(), CONFIG)
        one = stored_bytes(file)
        put(saver, {**sample_values(), "attempts": 3}, config)
        two = stored_bytes(file)
    with sqlite3.connect(file) as conn:
        types = {row[0] for row in conn.execute("SELECT type FROM checkpoints")}
    assert types == {TREE_TYPE}
    # The second checkpoint changes one small value: it adds its own row, not the values.
    assert two - one < 0.15 * one


def test_async_saver_reads_what_it_wrote(tmp_path):
    async def run() -> Any:
        async with open_async_checkpointer(str(tmp_path / "c.db")) as saver:
            config = await saver.aput(
                CONFIG, empty_checkpoint() | {"channel_values": sample_values()}, {}, {}
            )
            await saver.aput_writes(config, [("answer", prose(100, 4))], "task-1")
            found = await saver.aget_tuple(config)
            listed = [item async for item in saver.alist(None)]
            return found, listed

    found, listed = asyncio.run(run())
    assert found.checkpoint["channel_values"] == sample_values()
    assert found.pending_writes == [("task-1", "answer", prose(100, 4))]
    assert listed[0].checkpoint == found.checkpoint


def test_files_of_a_plain_sqlite_saver_stay_readable(tmp_path):
    file = tmp_path / "c.db"
    with sqlite3.connect(file, check_same_thread=False) as conn:
        config = put(SqliteSaver(conn), sample_values(), CONFIG)
    with open_checkpointer(str(file)) as saver:
        assert saver.get_tuple(config).checkpoint["channel_values"] == sample_values()


def test_delete_thread_drops_the_values_only_it_used(tmp_path):
    file = tmp_path / "c.db"
    other = {"configurable": {"thread_id": "t-2", "checkpoint_ns": ""}}
    with open_checkpointer(str(file)) as saver:
        put(saver, sample_values(), CONFIG)
        kept = put(saver, {"context_text": prose(200, 1), "own": prose(300, 9)}, other)
        saver.delete_thread("t-1")
        assert saver.get_tuple(CONFIG) is None
        assert saver.get_tuple(kept).checkpoint["channel_values"]["context_text"] == prose(200, 1)
        saver.delete_thread("t-2")
    with sqlite3.connect(file) as conn:
        assert conn.execute("SELECT count(*) FROM citeloop_values").fetchone() == (0,)


def test_a_missing_value_is_a_checkpointer_error(tmp_path):
    file = tmp_path / "c.db"
    with open_checkpointer(str(file)) as saver:
        config = put(saver, sample_values(), CONFIG)
        saver.conn.execute("DELETE FROM citeloop_values")
        saver.conn.commit()
        with pytest.raises(CheckpointerError, match="missing from table citeloop_values"):
            saver.get_tuple(config)


# --- the grounded_answer graph --------------------------------------------------------


@pytest.fixture
def indexed(sample_repo, store):
    index_tree(sample_repo, store)
    return store


def passing_answer(store) -> str:
    names = [entity.name for entity in ContextInjector(store).inject(TASK).core]
    body = "Circle.area squares the radius and relies on " + ", ".join(names) + ". "
    return body + prose(150, 6) + "\n\n## Entities used\n" + "".join(f"- {n}\n" for n in names)


def attempt_bytes(indexed, file: Path, saver_of) -> list[tuple[int, int]]:
    """(bytes the attempt added to the file, its payload bytes) per attempt."""
    model = ScriptedChatModel(script=["It computes it. " + prose(300, 5), passing_answer(indexed)])
    retry = RetryPolicy(max_attempts=1)
    config = {"configurable": {"thread_id": "t"}}
    figures, run_input, before = [], {"task": TASK}, 0
    with saver_of(file) as saver:
        graph = build_grounded_answer_graph(
            model, store=indexed, checkpointer=saver, model_retry=retry
        )
        while True:
            graph.invoke(run_input, config, interrupt_after=["validate"], durability="sync")
            state = graph.get_state(config)
            payload = len(model.prompts[-1][-1].text.encode()) + len(
                state.values["answer"].encode()
            )
            after = stored_bytes(file)
            figures.append((after - before, payload))
            before, run_input = after, None
            if not state.next:
                return figures


def plain(file: Path):
    class Plain:
        def __enter__(self):
            self.conn = sqlite3.connect(file, check_same_thread=False)
            saver = SqliteSaver(self.conn)
            saver.setup()
            return saver

        def __exit__(self, *exc):
            self.conn.close()

    return Plain()


def test_an_attempt_stores_a_small_multiple_of_its_payload(indexed, tmp_path):
    ours = attempt_bytes(indexed, tmp_path / "ours.db", lambda f: open_checkpointer(str(f)))
    theirs = attempt_bytes(indexed, tmp_path / "plain.db", plain)
    assert len(ours) == len(theirs) == 2  # a failing answer, then a passing retry
    for (stored, payload), (plain_stored, _) in zip(ours, theirs, strict=True):
        assert stored < 3 * payload
        assert stored < plain_stored / 2


def test_a_list_of_small_dicts_is_stored_as_one_value(tmp_path):
    """A context's entities, dicts of a few hundred bytes of the same keys, are one
    value of their list, compressed together, not a row and a reference each."""
    entities = [
        {"name": f"E{i}", "summary": prose(30, i), "line": i, "kind": "method"} for i in range(40)
    ]
    file = tmp_path / "c.db"
    with open_checkpointer(str(file)) as saver:
        put(saver, {"context_entities": entities}, CONFIG)
        found = saver.get_tuple(CONFIG)
    assert found.checkpoint["channel_values"]["context_entities"] == entities
    with sqlite3.connect(file) as conn:
        (rows,) = conn.execute("SELECT count(*) FROM citeloop_values").fetchone()
    assert rows == 1
