"""Checkpointers from a spec string: where a graph's threads are kept.

A spec is one of:

- ``None`` or ``""`` — the SQLite file ``default_path`` (:data:`DEFAULT_PATH` unless
  given; its folder is created);
- ``sqlite:PATH`` or a plain path — a SQLite file (``:memory:`` for none). A citeloop
  knowledge graph is refused: checkpoints (with every prompt and answer) never go into it;
- ``postgres://...`` or ``postgresql://...``, or a libpq key/value string
  (``host=db dbname=app user=app``) — a PostgreSQL database (needs the ``postgres``
  extra: ``pip install 'citeloop[postgres]'``). Its tables are created on first use (the
  saver's ``setup()``). Without ``connect_timeout`` in the spec, a connection attempt
  gives up after :data:`CONNECT_TIMEOUT` seconds; every statement after that after
  :data:`OPERATION_TIMEOUT` seconds (``statement_timeout``, and on the asynchronous
  saver a client-side limit too, which holds when the server freezes).

A SQLite writer waits up to :data:`BUSY_TIMEOUT` seconds for another process's write
(SQLite's busy timeout), so parallel runs can share one file.

A storage fault while reading or saving a checkpoint (a lock never released, a full
disk, a server stopped or frozen mid-run) raises :class:`CheckpointerError`, which
names the checkpointer and the thread: the steps saved before are kept, and the thread
resumes from them. No message shows a password (see :mod:`citeloop.redaction`).

:func:`open_checkpointer` yields a synchronous saver (for ``invoke``/``stream``) and
:func:`open_async_checkpointer` an asynchronous one (for ``ainvoke``/``astream``); both
are context managers that close the connection at the end.

Example:
    >>> from citeloop import build_grounded_answer_graph
    >>> with open_checkpointer(":memory:", default_path="unused.db") as saver:
    ...     graph = build_grounded_answer_graph(checkpointer=saver)
    ...     graph.get_state({"configurable": {"thread_id": "t-1"}}).next
    ()
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, closing, contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from citeloop.errors import CiteloopError, ConfigurationError
from citeloop.knowledge.sqlite_schema import APPLICATION_ID
from citeloop.redaction import is_keyword_dsn, redact, scrub

__all__ = [
    "BUSY_TIMEOUT",
    "CONNECT_TIMEOUT",
    "DEFAULT_PATH",
    "OPERATION_TIMEOUT",
    "CheckpointerError",
    "open_async_checkpointer",
    "open_checkpointer",
    "parse_spec",
    "redact",
]

SQLITE_PREFIX = "sqlite:"
POSTGRES_SCHEMES = ("postgres", "postgresql")
DEFAULT_PATH = Path(".citeloop") / "checkpoints.db"
"""The SQLite file of an empty spec (relative to the working folder)."""
CONNECT_TIMEOUT = 10
"""Seconds a PostgreSQL connection attempt may take when the spec sets no ``connect_timeout``."""
OPERATION_TIMEOUT = 60.0
"""Seconds one PostgreSQL checkpoint read or write may take (then :class:`CheckpointerError`)."""
BUSY_TIMEOUT = 60.0
"""Seconds a SQLite checkpoint write waits while another process writes to the file."""

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_SCHEME_LIKE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")
"""A bare ``word:rest`` (RFC 3986's scheme syntax, two characters or more, so a Windows
drive letter is a path): a URL without its ``//`` (``postgresql:db``) or a typo, not a
file name, unless that file exists."""
_SPEC_HELP = (
    "use a SQLite file ('sqlite:PATH' or a path) or a PostgreSQL URL "
    "('postgresql://USER@HOST[:PORT]/DB'; keep the password in $PGPASSWORD)"
)
_SQLITE_HEADER = b"SQLite format 3\x00"


class CheckpointerError(CiteloopError):
    """A checkpoint could not be read or saved (the store failed mid-run).

    Attributes:
        spec: The checkpointer, as safe to print (no password).
        thread_id: The thread of the run, whose steps saved before are kept.
    """

    def __init__(self, message: str, *, spec: str, thread_id: str) -> None:
        super().__init__(message)
        self.spec = spec
        self.thread_id = thread_id


def parse_spec(spec: str | None, default_path: str | Path = DEFAULT_PATH) -> tuple[str, str]:
    """Classify a checkpointer spec.

    Returns:
        ``("sqlite", path)`` or ``("postgres", url_or_key_value_string)``.

    Raises:
        ConfigurationError: An unknown URL scheme, or ``sqlite:`` without a path.
    """
    if spec is None or not spec.strip():
        return "sqlite", str(default_path)
    spec = spec.strip()
    match = _URL.match(spec)
    if match:
        scheme = match.group(1).lower()
        if scheme in POSTGRES_SCHEMES:
            return "postgres", spec
        if scheme == "sqlite":
            raise ConfigurationError(
                f"checkpointer {redact(spec)!r}: write a SQLite file as 'sqlite:PATH' "
                "(no '//'), e.g. 'sqlite:.citeloop/checkpoints.db'"
            )
        raise ConfigurationError(
            f"checkpointer {redact(spec)!r} has an unknown scheme {scheme!r}; {_SPEC_HELP}"
        )
    if is_keyword_dsn(spec):  # libpq's `host=... dbname=...`: never a file name
        return "postgres", spec
    if spec.startswith(SQLITE_PREFIX):
        spec = spec[len(SQLITE_PREFIX) :].strip()
        if not spec:
            raise ConfigurationError(
                "checkpointer 'sqlite:' names no file; use 'sqlite:PATH' (or 'sqlite::memory:')"
            )
        return "sqlite", spec
    scheme = _SCHEME_LIKE.match(spec)
    if scheme and not _exists(spec):  # never create a file named by a typo
        name, rest = scheme.group(1), spec[scheme.end() :]
        shown = redact(f"{name}://{rest}").replace("://", ":", 1)  # its password masked
        raise ConfigurationError(
            f"checkpointer {shown!r} reads as a URL of scheme {name!r} without '//'; "
            f"{_SPEC_HELP}. A new SQLite file whose name holds ':' is written 'sqlite:NAME'"
        )
    return "sqlite", spec


def _is_knowledge_graph(file: Path) -> bool:
    """Whether ``file`` is a citeloop graph: its SQLite header's application id
    (bytes 68-71, https://sqlite.org/fileformat.html#the_database_header) is ours."""
    try:
        with file.open("rb") as handle:
            header = handle.read(72)
    except OSError:
        return False
    return (
        header.startswith(_SQLITE_HEADER)
        and len(header) == 72
        and int.from_bytes(header[68:72], "big") == APPLICATION_ID
    )


_CHECKPOINT_TABLES = frozenset({"checkpoints", "writes"})
"""The tables LangGraph's SQLite savers keep (``langgraph.checkpoint.sqlite``)."""


def _other_tables(file: Path) -> list[str]:
    """The tables of an existing SQLite database ``file`` when it keeps none of
    :data:`_CHECKPOINT_TABLES` (another program's data, which a checkpointer would add
    its tables to), sorted; ``[]`` for a new or empty file, a checkpoint database, or a
    file that is no SQLite database (opening it reports that)."""
    try:
        with file.open("rb") as handle:
            if not handle.read(16).startswith(_SQLITE_HEADER):
                return []
        with closing(sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except (OSError, ValueError, sqlite3.Error):
        return []
    tables = sorted(name for (name,) in rows)
    return [] if _CHECKPOINT_TABLES & set(tables) else tables


def _exists(path: str) -> bool:
    """Whether ``path`` names something; ``False`` for a name no file can have (too
    long, a NUL byte)."""
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def _sqlite_path(path: str) -> str:
    """The database file to open; its folder is created.

    Raises:
        ConfigurationError: The path is a folder or a citeloop knowledge graph, or its
            folder cannot be created.
    """
    if path == ":memory:":
        return path
    file = Path(path).expanduser()
    try:
        folder, graph = file.is_dir(), _is_knowledge_graph(file)
    except (OSError, ValueError) as exc:  # a name no file can have (too long, a NUL)
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ConfigurationError(
            f"cannot use {redact(path)!r} as a SQLite checkpointer: {reason}; name a file "
            "path, or a PostgreSQL URL ('postgresql://USER@HOST[:PORT]/DB')"
        ) from None
    if folder:
        raise ConfigurationError(
            f"checkpointer {path!r} is a folder; name a SQLite file in it, "
            f"e.g. 'sqlite:{file / 'checkpoints.db'}'"
        )
    if graph:
        raise ConfigurationError(
            f"checkpointer {path!r} is a citeloop knowledge graph; checkpoints (with every "
            f"prompt and answer) are kept in a file of their own: name another file, "
            f"e.g. {str(file.with_name('checkpoints.db'))!r}"
        )
    if others := _other_tables(file):
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        raise ConfigurationError(
            f"checkpointer {path!r} is a SQLite database of something else (tables: "
            f"{shown}); checkpoints are kept in a file of their own: name a new file, e.g. "
            f"{str(file.with_name('checkpoints.db'))!r}, or an existing checkpoint database"
        )
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot create the folder of checkpointer {path!r}: {exc.strerror}; "
            "name a writable path"
        ) from None
    return str(file)


def _sqlite_error(path: str, exc: sqlite3.Error) -> ConfigurationError:
    return ConfigurationError(
        f"cannot use {path!r} as a SQLite checkpointer: {exc}; pass a new file, or an "
        "existing checkpoint database"
    )


def _postgres_kwargs(spec: str) -> dict[str, Any]:
    """Connection settings of the PostgreSQL savers (as their ``from_conn_string``).

    Raises:
        ConfigurationError: ``spec`` does not parse (psycopg's message is not shown: it
            repeats the raw text, password included).
    """
    from psycopg.conninfo import conninfo_to_dict
    from psycopg.rows import dict_row

    try:
        given = conninfo_to_dict(spec)
    except Exception:  # psycopg.ProgrammingError: a malformed URL or key/value string
        raise ConfigurationError(
            f"checkpointer {redact(spec)!r} is not a valid PostgreSQL connection string "
            "(check its %XX escapes, the [brackets] of an IPv6 host, the port and the quotes "
            f"of key='value' pairs); {_SPEC_HELP}"
        ) from None
    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    if "connect_timeout" not in given:
        kwargs["connect_timeout"] = CONNECT_TIMEOUT
    if "options" not in given:  # the server ends a statement that waits too long
        kwargs["options"] = f"-c statement_timeout={int(OPERATION_TIMEOUT * 1000)}"
    return kwargs


def _postgres_error(spec: str, exc: Exception) -> ConfigurationError:
    message = scrub(" ".join(str(exc).split()), spec)
    return ConfigurationError(
        f"cannot use PostgreSQL checkpointer {redact(spec)!r}: {message}; check that the "
        "server runs and accepts this user, password and database (or use a SQLite file)"
    )


def _missing_extra(spec: str, exc: ImportError) -> ConfigurationError:
    return ConfigurationError(
        f"checkpointer {redact(spec)!r} needs the PostgreSQL extra ({exc.name} is not "
        "installed): pip install 'citeloop[postgres]'"
    )


class _Guarded:
    """Mixin of the savers this module yields: a storage fault while reading or saving a
    checkpoint becomes a :class:`CheckpointerError` naming the checkpointer and thread;
    an asynchronous read or write takes at most ``timeout`` seconds (``None``: no bound)."""

    spec: str = ""
    faults: tuple[type[BaseException], ...] = ()
    timeout: float | None = None

    def _fault(self, config: Any, action: str, exc: BaseException) -> CheckpointerError:
        thread = str((config.get("configurable") or {}).get("thread_id", ""))
        if isinstance(exc, TimeoutError):
            reason = f"no answer within {self.timeout:g} s"
        else:
            reason = scrub(" ".join(str(exc).split()), self.spec) or type(exc).__name__
            if "locked" in reason:
                reason += f" (another process kept it busy for over {BUSY_TIMEOUT:g} s)"
        return CheckpointerError(
            f"checkpointer {redact(self.spec)!r} could not {action} thread {thread!r}: "
            f"{reason}; the steps saved before are kept, so the thread resumes from them "
            "once the checkpointer works again",
            spec=redact(self.spec),
            thread_id=thread,
        )

    def get_tuple(self, config: Any) -> Any:
        try:
            return super().get_tuple(config)  # type: ignore[misc]
        except self.faults as exc:
            raise self._fault(config, "read", exc) from None

    def put(self, config: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().put(config, *args, **kwargs)  # type: ignore[misc]
        except self.faults as exc:
            raise self._fault(config, "save a checkpoint of", exc) from None

    def put_writes(self, config: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().put_writes(config, *args, **kwargs)  # type: ignore[misc]
        except self.faults as exc:
            raise self._fault(config, "save a step of", exc) from None

    async def aget_tuple(self, config: Any) -> Any:
        try:
            async with asyncio.timeout(self.timeout):
                return await super().aget_tuple(config)  # type: ignore[misc]
        except (TimeoutError, *self.faults) as exc:
            raise self._fault(config, "read", exc) from None

    async def aput(self, config: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            async with asyncio.timeout(self.timeout):
                return await super().aput(config, *args, **kwargs)  # type: ignore[misc]
        except (TimeoutError, *self.faults) as exc:
            raise self._fault(config, "save a checkpoint of", exc) from None

    async def aput_writes(self, config: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            async with asyncio.timeout(self.timeout):
                return await super().aput_writes(config, *args, **kwargs)  # type: ignore[misc]
        except (TimeoutError, *self.faults) as exc:
            raise self._fault(config, "save a step of", exc) from None


@cache
def _guarded(saver: type[BaseCheckpointSaver]) -> type[BaseCheckpointSaver]:
    """``saver`` with :class:`_Guarded`'s fault handling (one class per saver class)."""
    return type(f"Guarded{saver.__name__}", (_Guarded, saver), {})


def _guard(
    saver: Any, spec: str, faults: tuple[type[BaseException], ...], timeout: float | None
) -> Any:
    saver.spec, saver.faults, saver.timeout = spec, faults, timeout
    return saver


@contextmanager
def open_checkpointer(
    spec: str | None, *, default_path: str | Path = DEFAULT_PATH
) -> Iterator[BaseCheckpointSaver]:
    """A synchronous checkpoint saver for ``spec``, set up and ready; closed at the end.

    Args:
        spec: ``None``/``""`` (the SQLite file ``default_path``), ``sqlite:PATH``, a
            path, a ``postgres://``/``postgresql://`` URL or a libpq key/value string.
        default_path: The SQLite file used when ``spec`` is empty
            (default :data:`DEFAULT_PATH`).

    Yields:
        A ``SqliteSaver`` that stores each large value once
        (:class:`~citeloop.checkpoint_values.DedupSqliteSaver`) or a ``PostgresSaver``
        (its tables created) whose reads and
        writes raise :class:`CheckpointerError` on a storage fault.

    Raises:
        ConfigurationError: A bad spec; a file that cannot be created, is a knowledge
            graph or is not a checkpoint database; a server that cannot be reached or
            refuses the login; the ``postgres`` extra is not installed. The message
            names the spec (without its password) and the fix.
    """
    kind, target = parse_spec(spec, default_path)
    if kind == "sqlite":
        from citeloop.checkpoint_values import DedupSqliteSaver

        path = _sqlite_path(target)
        try:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _sqlite_error(target, exc) from None
        try:
            saver = _guard(_guarded(DedupSqliteSaver)(conn), target, (sqlite3.Error,), None)
            try:
                saver.setup()
            except sqlite3.Error as exc:
                raise _sqlite_error(target, exc) from None
            yield saver
        finally:
            conn.close()
        return
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError as exc:
        raise _missing_extra(target, exc) from None
    kwargs = _postgres_kwargs(target)
    try:
        conn = psycopg.Connection.connect(target, **kwargs)
    except psycopg.Error as exc:
        raise _postgres_error(target, exc) from None
    with conn:
        saver = _guard(_guarded(PostgresSaver)(conn), target, (psycopg.Error,), None)
        try:
            saver.setup()
        except psycopg.Error as exc:
            raise _postgres_error(target, exc) from None
        yield saver


@asynccontextmanager
async def open_async_checkpointer(
    spec: str | None, *, default_path: str | Path = DEFAULT_PATH
) -> AsyncIterator[BaseCheckpointSaver]:
    """The asynchronous variant of :func:`open_checkpointer` (for ``astream``).

    Yields:
        An ``AsyncSqliteSaver`` that stores each large value once
        (:class:`~citeloop.checkpoint_values.AsyncDedupSqliteSaver`) or an
        ``AsyncPostgresSaver`` (its tables created); on
        PostgreSQL each read or write takes at most :data:`OPERATION_TIMEOUT` seconds.

    Raises:
        ConfigurationError: As :func:`open_checkpointer`.
    """
    kind, target = parse_spec(spec, default_path)
    if kind == "sqlite":
        import aiosqlite

        from citeloop.checkpoint_values import AsyncDedupSqliteSaver

        path = _sqlite_path(target)
        try:
            conn = await aiosqlite.connect(path, timeout=BUSY_TIMEOUT)
        except sqlite3.Error as exc:
            raise _sqlite_error(target, exc) from None
        try:
            saver = _guard(_guarded(AsyncDedupSqliteSaver)(conn), target, (sqlite3.Error,), None)
            try:
                await saver.setup()
            except sqlite3.Error as exc:
                raise _sqlite_error(target, exc) from None
            yield saver
        finally:
            await conn.close()
        return
    try:
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    except ImportError as exc:
        raise _missing_extra(target, exc) from None
    kwargs = _postgres_kwargs(target)
    try:
        conn = await psycopg.AsyncConnection.connect(target, **kwargs)
    except psycopg.Error as exc:
        raise _postgres_error(target, exc) from None
    async with conn:
        saver = _guard(
            _guarded(AsyncPostgresSaver)(conn), target, (psycopg.Error,), OPERATION_TIMEOUT
        )
        try:
            await saver.setup()
        except psycopg.Error as exc:
            raise _postgres_error(target, exc) from None
        yield saver
