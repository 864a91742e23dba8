"""What the ``citeloop`` commands share: exit codes, the usage error, reading inputs.

Light on purpose (the standard library only, the graph store when a graph is opened), so
that a command imports only what it runs.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloop.errors import CiteloopError
from citeloop.reading import read_input_bytes
from citeloop.terminal import escape_json

if TYPE_CHECKING:
    from citeloop.knowledge.sqlite_store import SqliteGraphStore

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(CiteloopError):
    """A command-line input is missing or unreadable."""


DEFAULT_CHECKPOINTS = Path(".citeloop") / "checkpoints.db"
"""Where threads are kept without ``--checkpointer`` (relative to the working folder)."""
CHECKPOINTER_ENV = "CITELOOP_CHECKPOINTER"
"""The default ``--checkpointer`` spec (keeps a database password off the command line)."""

MAX_INPUT_BYTES = 50_000_000
"""Largest --context/--response/--payload file read (bounds memory on e.g. /dev/zero)."""


def read_text(path: str, what: str) -> str:
    try:
        data = read_input_bytes(path, MAX_INPUT_BYTES)  # a pipe without a writer: refused
        if len(data) > MAX_INPUT_BYTES:
            raise UsageError(f"{what} file {path!r} is larger than {MAX_INPUT_BYTES} bytes")
        return data.decode("utf-8-sig")  # a leading BOM (Windows editors) is no content
    except FileNotFoundError:
        raise UsageError(
            f"{what} file {path!r} does not exist; check the path (relative to the "
            "folder the command runs in)"
        ) from None
    except UnicodeDecodeError:
        raise UsageError(f"{what} file {path!r} is not UTF-8 text") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} file {path!r}: {exc.strerror}") from None


def open_graph(path: str) -> SqliteGraphStore:
    """An existing, non-empty knowledge graph, opened read-only.

    Raises:
        UsageError: It is missing, a directory or another kind of file that is not a
            regular one, or holds no entity.
    """
    from citeloop.knowledge.sqlite_store import SqliteGraphStore

    db = Path(path)
    if db.is_dir():
        raise UsageError(
            f"--db {path!r} is a directory; pass the graph file `citeloop index PATH --db "
            "FILE` wrote"
        )
    if db.exists() and not db.is_file():  # a device or a pipe (/dev/null), not a file
        raise UsageError(
            f"--db {path!r} is not a regular file; pass the graph file `citeloop index PATH "
            "--db FILE` wrote"
        )
    if not db.is_file():
        raise UsageError(
            f"knowledge graph {path!r} does not exist; build it first with "
            f"`citeloop index PATH --db {path}`"
        )
    store = SqliteGraphStore(db, read_only=True)
    try:
        with store.read_connection() as connection:
            empty = connection.execute("SELECT 1 FROM entities LIMIT 1").fetchone() is None
    except BaseException:
        store.close()
        raise
    if empty:
        store.close()
        raise UsageError(
            f"knowledge graph {path!r} is empty; index a tree that holds Python "
            f"files with `citeloop index PATH --db {path}`"
        )
    return store


def print_json(data: Any) -> None:
    print(escape_json(json.dumps(data, indent=2, ensure_ascii=False, default=str)))


def thread_argument(thread: str) -> str:
    """A thread id as a shell argument a person can paste (``shlex.quote``), its line
    breaks written as ``\\n`` (a printed line break would split the id)."""
    return shlex.quote(thread).replace("\r", "\\r").replace("\n", "\\n")
