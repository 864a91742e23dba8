"""SQLite checkpoint savers that keep each large value once, by content hash.

LangGraph's ``SqliteSaver`` stores a checkpoint as one blob holding *every* channel's
value, so a run saves its context, prompt, answer and report again at every step (and
once more in the ``writes`` table of the step that wrote them). The savers here store the
same rows, but a value (a channel's value, or a string, list or dict inside it) whose
serialised form is at least :data:`REF_MIN_BYTES` bytes (:data:`ITEM_REF_MIN_BYTES` for
an item of a list) goes into the table
``citeloop_values`` once, keyed by the SHA-256 of its bytes and compressed with zlib
(RFC 1950); the checkpoint or write keeps the 32-byte key. A value that does not change
between steps, or that a node wrote and the next checkpoint holds, is thus stored once
per database.

Format: a row with such keys has the type :data:`TREE_TYPE`; its blob is a msgpack tree
of nodes: a string, bytes, number, boolean or nil (itself), a map ``{key: node}`` (a dict
with string keys), ``["l", [node, ...]]`` (a list), ``["v", type, bytes]`` (any other
value, serialised by LangGraph's ``JsonPlusSerializer``) and ``["r", sha256]`` (a node
stored in ``citeloop_values``, itself such a tree, zlib-compressed). Rows without a
large value keep LangGraph's own format, and files written by a plain ``SqliteSaver``
are read as before; a plain ``SqliteSaver`` cannot read :data:`TREE_TYPE` rows (it
raises ``NotImplementedError``: "Unknown serialization type"). ``delete_thread``
removes the values no other thread uses (``citeloop_value_refs`` records which thread
uses which value).

These savers serve :func:`citeloop.checkpoints.open_checkpointer` and
:func:`~citeloop.checkpoints.open_async_checkpointer` for SQLite specs. Channels of the
``DeltaChannel`` kind are not supported (their history read raises
``NotImplementedError``).
"""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from collections.abc import AsyncIterator, Iterator, Sequence
from enum import Enum
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

__all__ = ["REF_MIN_BYTES", "TREE_TYPE", "AsyncDedupSqliteSaver", "DedupSqliteSaver"]

TREE_TYPE = "citeloop-tree"
"""The ``type`` of a ``checkpoints``/``writes`` row whose value holds content keys."""
REF_MIN_BYTES = 256
"""Serialised size (bytes) from which a value is stored once, by its content key."""
ITEM_REF_MIN_BYTES = 1024
""":data:`REF_MIN_BYTES` of an item of a list: a context's entities (dicts of a few
hundred bytes each, of the same keys) stay in their list's value, compressed together,
rather than one row, key and reference each (the README demo's first attempt stored
3.1 times its prompt and answer so, 1.8 times with this)."""

_VALUES_DDL = """
CREATE TABLE IF NOT EXISTS citeloop_values (hash BLOB PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS citeloop_value_refs (
    thread_id TEXT NOT NULL,
    hash BLOB NOT NULL,
    PRIMARY KEY (thread_id, hash)
) WITHOUT ROWID;
"""
_STORE_VALUE = "INSERT OR IGNORE INTO citeloop_values (hash, value) VALUES (?, ?)"
_STORE_REF = "INSERT OR IGNORE INTO citeloop_value_refs (thread_id, hash) VALUES (?, ?)"
_DROP_REFS = "DELETE FROM citeloop_value_refs WHERE thread_id = ?"
_DROP_UNUSED = (
    "DELETE FROM citeloop_values WHERE hash NOT IN (SELECT hash FROM citeloop_value_refs)"
)
_NATIVE = (bytes, int, float, bool, type(None))  # msgpack's own types: kept as they are
_INT_MIN, _INT_END = -(2**63), 2**64  # the integers msgpack holds
_FETCH_CHUNK = 500  # keys per SELECT (well under SQLite's bound-parameter limit)


class _Encoded(dict):  # type: ignore[type-arg]
    """A value already encoded as a tree: the saver's ``put`` reads its ``"id"``."""

    def __init__(self, data: bytes, checkpoint_id: str | None = None) -> None:
        super().__init__({} if checkpoint_id is None else {"id": checkpoint_id})
        self.data = data


class _Unresolved:
    """A tree read from a row, whose content keys are still to be fetched."""

    __slots__ = ("tree",)

    def __init__(self, tree: Any) -> None:
        self.tree = tree


class _TreeSerializer(JsonPlusSerializer):
    """LangGraph's serializer, plus the :data:`TREE_TYPE` rows (left unresolved)."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if isinstance(obj, _Encoded):
            return TREE_TYPE, obj.data
        return super().dumps_typed(obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        if data[0] == TREE_TYPE:
            return _Unresolved(self.unpack(data[1]))
        return super().loads_typed(data)

    def pack(self, node: Any) -> bytes:
        """A tree node as msgpack (in a one-item array, so bytes and nil are msgpack too)."""
        return JsonPlusSerializer.dumps_typed(self, [node])[1]

    def unpack(self, data: bytes) -> Any:
        """The tree node :meth:`pack` gave ``data`` for."""
        return JsonPlusSerializer.loads_typed(self, ("msgpack", data))[0]

    def encode(
        self, value: Any, blobs: dict[bytes, bytes], least: int = REF_MIN_BYTES
    ) -> tuple[Any, int]:
        """``value`` as a tree node and its size in bytes; parts of at least ``least``
        bytes go to ``blobs`` (an item of a list, and what it holds, of at least
        :data:`ITEM_REF_MIN_BYTES`)."""
        if type(value) is dict and all(type(key) is str for key in value):
            items = {key: self.encode(item, blobs, least) for key, item in value.items()}
            node: Any = {key: child for key, (child, _) in items.items()}
            size = sum(len(key) + n for key, (_, n) in items.items())
        elif type(value) is list:
            inner = max(least, ITEM_REF_MIN_BYTES)
            children = [self.encode(item, blobs, inner) for item in value]
            node, size = ["l", [child for child, _ in children]], sum(n for _, n in children)
        elif isinstance(value, str) and not isinstance(value, Enum):
            # a str subclass (e.g. a message's text) is saved as str; a StrEnum member
            # keeps its type (as LangGraph's own serializer keeps it)
            node, size = str(value), len(value)
        elif type(value) in _NATIVE and (type(value) is not int or _INT_MIN <= value < _INT_END):
            node, size = value, len(value) if type(value) is bytes else 9
        else:
            type_, data = super().dumps_typed(value)
            node, size = ["v", type_, data], len(data)
        if size < least:
            return node, size
        data = self.pack(node)
        digest = hashlib.sha256(data).digest()
        if digest not in blobs:
            blobs[digest] = zlib.compress(data)
        return ["r", digest], len(digest)

    def decode(self, node: Any, nodes: dict[bytes, Any]) -> Any:
        """The value of a tree node; ``nodes`` holds every stored node it refers to."""
        if type(node) is dict:
            return {key: self.decode(child, nodes) for key, child in node.items()}
        if type(node) is not list:
            return node
        if node[0] == "v":
            return super().loads_typed((node[1], node[2]))
        if node[0] == "l":
            return [self.decode(child, nodes) for child in node[1]]
        return self.decode(nodes[node[1]], nodes)


def _refs(node: Any) -> Iterator[bytes]:
    """The content keys in a tree (not those inside the stored nodes they name)."""
    stack = [node]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            stack.extend(node.values())
        elif type(node) is list and node[0] == "r":
            yield node[1]
        elif type(node) is list and node[0] == "l":
            stack.extend(node[1])


def _fetch_sql(count: int) -> str:
    marks = ", ".join("?" * count)
    return f"SELECT hash, value FROM citeloop_values WHERE hash IN ({marks})"


def _missing(keys: set[bytes]) -> sqlite3.DatabaseError:
    shown = ", ".join(sorted(key.hex()[:12] for key in keys)[:3])
    return sqlite3.DatabaseError(
        f"checkpoint values {shown} are missing from table citeloop_values (the file was "
        "edited or truncated); delete the thread and run again"
    )


class _Dedup:
    """What both savers share: encoding before a write, resolving after a read."""

    serde: _TreeSerializer

    def _encoded(self, value: Any, blobs: dict[bytes, bytes], checkpoint_id: Any = None) -> Any:
        """``value`` as an :class:`_Encoded` tree, or itself when nothing in it is large."""
        found: dict[bytes, bytes] = {}
        node, _ = self.serde.encode(value, found)
        if not found:
            return value
        if checkpoint_id is not None and type(node) is list and node[0] == "r":
            # A checkpoint's row holds its own root (no other row has it); a write keeps
            # the key, which the next checkpoint's channel value shares.
            node = self.serde.unpack(zlib.decompress(found.pop(node[1])))
            if not found:
                return value
        blobs.update(found)
        return _Encoded(self.serde.pack(node), checkpoint_id)

    @staticmethod
    def _rows(config: Any, blobs: dict[bytes, bytes]) -> tuple[list[Any], list[Any]]:
        thread = str(config["configurable"]["thread_id"])
        return list(blobs.items()), [(thread, key) for key in blobs]

    def _resolved(self, found: CheckpointTuple, nodes: dict[bytes, Any]) -> CheckpointTuple:
        def value(item: Any) -> Any:
            return self.serde.decode(item.tree, nodes) if isinstance(item, _Unresolved) else item

        writes = [
            (task, channel, value(item)) for task, channel, item in found.pending_writes or []
        ]
        return found._replace(checkpoint=value(found.checkpoint), pending_writes=writes)

    @staticmethod
    def _wanted(found: CheckpointTuple) -> set[bytes]:
        items = [found.checkpoint, *(item for _, _, item in found.pending_writes or [])]
        return {key for item in items if isinstance(item, _Unresolved) for key in _refs(item.tree)}

    def _add_nodes(
        self, nodes: dict[bytes, Any], rows: list[tuple[bytes, bytes]], wanted: set[bytes]
    ) -> set[bytes]:
        """Unpack fetched rows into ``nodes``; the keys still to fetch."""
        for key, data in rows:
            nodes[bytes(key)] = self.serde.unpack(zlib.decompress(data))
        if missing := wanted - nodes.keys():
            raise _missing(missing)
        return {ref for key in wanted for ref in _refs(nodes[key]) if ref not in nodes}


class DedupSqliteSaver(_Dedup, SqliteSaver):
    """A ``SqliteSaver`` that stores each large value once (see the module docstring).

    Args:
        conn: The SQLite connection (as for ``SqliteSaver``).
    """

    def __init__(self, conn: Any) -> None:
        super().__init__(conn, serde=_TreeSerializer())
        self._values_ready = False

    def setup(self) -> None:
        """Create LangGraph's tables and ``citeloop_values`` (once per saver)."""
        super().setup()
        if not self._values_ready:
            with self.lock:
                self.conn.executescript(_VALUES_DDL)
            self._values_ready = True

    def _store(self, config: Any, blobs: dict[bytes, bytes]) -> None:
        if blobs:
            values, refs = self._rows(config, blobs)
            with self.cursor() as cur:
                cur.executemany(_STORE_VALUE, values)
                cur.executemany(_STORE_REF, refs)

    def _resolve(self, found: CheckpointTuple | None) -> CheckpointTuple | None:
        if found is None:
            return None
        nodes: dict[bytes, Any] = {}
        wanted = self._wanted(found)
        while wanted:
            keys = sorted(wanted)
            rows = [
                row
                for start in range(0, len(keys), _FETCH_CHUNK)
                for row in self.conn.execute(
                    _fetch_sql(len(keys[start : start + _FETCH_CHUNK])),
                    keys[start : start + _FETCH_CHUNK],
                )
            ]
            wanted = self._add_nodes(nodes, rows, wanted)
        return self._resolved(found, nodes)

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        blobs: dict[bytes, bytes] = {}
        encoded = self._encoded(checkpoint, blobs, checkpoint["id"])
        self._store(config, blobs)
        return super().put(config, encoded, metadata, new_versions)

    def put_writes(
        self, config: Any, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        blobs: dict[bytes, bytes] = {}
        encoded = [(channel, self._encoded(value, blobs)) for channel, value in writes]
        self._store(config, blobs)
        super().put_writes(config, encoded, task_id, task_path)

    def get_tuple(self, config: Any) -> CheckpointTuple | None:
        return self._resolve(super().get_tuple(config))

    def list(self, config: Any, **kwargs: Any) -> Iterator[CheckpointTuple]:
        for found in super().list(config, **kwargs):
            yield self._resolve(found)  # type: ignore[misc]

    def delete_thread(self, thread_id: str) -> None:
        """Delete the thread's checkpoints and writes, and the values no thread uses now."""
        super().delete_thread(thread_id)
        with self.cursor() as cur:
            cur.execute(_DROP_REFS, (str(thread_id),))
            cur.execute(_DROP_UNUSED)

    def get_delta_channel_history(self, **kwargs: Any) -> Any:
        raise NotImplementedError(_NO_DELTA)


class AsyncDedupSqliteSaver(_Dedup, AsyncSqliteSaver):
    """An ``AsyncSqliteSaver`` that stores each large value once (see the module docstring).

    Args:
        conn: The ``aiosqlite`` connection (as for ``AsyncSqliteSaver``).
    """

    def __init__(self, conn: Any) -> None:
        super().__init__(conn, serde=_TreeSerializer())
        self._values_ready = False

    async def setup(self) -> None:
        """Create LangGraph's tables and ``citeloop_values`` (once per saver)."""
        await super().setup()
        if not self._values_ready:
            async with self.lock:
                await self.conn.executescript(_VALUES_DDL)
                await self.conn.commit()
            self._values_ready = True

    async def _astore(self, config: Any, blobs: dict[bytes, bytes]) -> None:
        if blobs:
            await self.setup()
            values, refs = self._rows(config, blobs)
            async with self.lock, self.conn.cursor() as cur:
                await cur.executemany(_STORE_VALUE, values)
                await cur.executemany(_STORE_REF, refs)
                await self.conn.commit()

    async def _aresolve(self, found: CheckpointTuple | None) -> CheckpointTuple | None:
        # No lock: `alist` holds it while it yields; aiosqlite runs one statement at a time.
        if found is None:
            return None
        nodes: dict[bytes, Any] = {}
        wanted = self._wanted(found)
        while wanted:
            keys = sorted(wanted)
            rows: list[Any] = []
            for start in range(0, len(keys), _FETCH_CHUNK):
                chunk = keys[start : start + _FETCH_CHUNK]
                async with self.conn.execute(_fetch_sql(len(chunk)), chunk) as cur:
                    rows.extend(await cur.fetchall())
            wanted = self._add_nodes(nodes, rows, wanted)
        return self._resolved(found, nodes)

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        blobs: dict[bytes, bytes] = {}
        encoded = self._encoded(checkpoint, blobs, checkpoint["id"])
        await self._astore(config, blobs)
        return await super().aput(config, encoded, metadata, new_versions)

    async def aput_writes(
        self, config: Any, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        blobs: dict[bytes, bytes] = {}
        encoded = [(channel, self._encoded(value, blobs)) for channel, value in writes]
        await self._astore(config, blobs)
        await super().aput_writes(config, encoded, task_id, task_path)

    async def aget_tuple(self, config: Any) -> CheckpointTuple | None:
        return await self._aresolve(await super().aget_tuple(config))

    async def alist(self, config: Any, **kwargs: Any) -> AsyncIterator[CheckpointTuple]:
        async for found in super().alist(config, **kwargs):
            yield await self._aresolve(found)  # type: ignore[misc]

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete the thread's checkpoints and writes, and the values no thread uses now."""
        await super().adelete_thread(thread_id)
        async with self.lock, self.conn.cursor() as cur:
            await cur.execute(_DROP_REFS, (str(thread_id),))
            await cur.execute(_DROP_UNUSED)
            await self.conn.commit()

    async def aget_delta_channel_history(self, **kwargs: Any) -> Any:
        raise NotImplementedError(_NO_DELTA)


_NO_DELTA = (
    "citeloop's SQLite checkpointer does not support DeltaChannel channels; use "
    "langgraph.checkpoint.sqlite.SqliteSaver for a graph that has them"
)
