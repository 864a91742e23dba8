"""Checkpointers from a spec string: where a graph's threads are kept.

A spec is one of:

- ``None`` or ``""`` — the SQLite file ``default_path`` (its folder is created);
- ``sqlite:PATH`` or a plain path — a SQLite file (``:memory:`` for none);
- ``postgres://...`` or ``postgresql://...`` — a PostgreSQL database (needs the
  ``postgres`` extra: ``pip install 'citeloop[postgres]'``). Its tables are created on
  first use (the saver's ``setup()``). Without ``connect_timeout`` in the URL, a
  connection attempt gives up after :data:`CONNECT_TIMEOUT` seconds.

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

import re
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from langgraph.checkpoint.base import BaseCheckpointSaver

from citeloop.errors import ConfigurationError

SQLITE_PREFIX = "sqlite:"
POSTGRES_SCHEMES = ("postgres", "postgresql")
CONNECT_TIMEOUT = 10
"""Seconds a PostgreSQL connection attempt may take when the URL sets no ``connect_timeout``."""

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_SPEC_HELP = (
    "use a SQLite file ('sqlite:PATH' or a path) or a PostgreSQL URL "
    "('postgresql://USER[:PASSWORD]@HOST[:PORT]/DB')"
)


def redact(spec: str) -> str:
    """``spec`` with the password of a URL replaced by ``***`` (safe to print).

    Example:
        >>> redact("postgresql://app:s3cret@db:5432/citeloop")
        'postgresql://app:***@db:5432/citeloop'
    """
    try:
        parts = urlsplit(spec)
        if parts.password is None:
            return spec
        user = parts.username or ""
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
    except ValueError:  # e.g. a malformed port: print nothing of the credentials
        return spec.split("://", 1)[0] + "://***"


def parse_spec(spec: str | None, default_path: str | Path) -> tuple[str, str]:
    """Classify a checkpointer spec.

    Returns:
        ``("sqlite", path)`` or ``("postgres", url)``.

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
    if spec.startswith(SQLITE_PREFIX):
        spec = spec[len(SQLITE_PREFIX) :].strip()
        if not spec:
            raise ConfigurationError(
                "checkpointer 'sqlite:' names no file; use 'sqlite:PATH' (or 'sqlite::memory:')"
            )
    return "sqlite", spec


def _sqlite_path(path: str) -> str:
    """The database file to open; its folder is created.

    Raises:
        ConfigurationError: The path is a folder, or its folder cannot be created.
    """
    if path == ":memory:":
        return path
    file = Path(path).expanduser()
    if file.is_dir():
        raise ConfigurationError(
            f"checkpointer {path!r} is a folder; name a SQLite file in it, "
            f"e.g. 'sqlite:{file / 'checkpoints.db'}'"
        )
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot create the folder of checkpointer {path!r}: {exc.strerror}; "
            "pass --checkpointer with a writable path"
        ) from None
    return str(file)


def _sqlite_error(path: str, exc: sqlite3.Error) -> ConfigurationError:
    return ConfigurationError(
        f"cannot use {path!r} as a SQLite checkpointer: {exc}; pass a new file, or an "
        "existing checkpoint database (a knowledge graph file is not one)"
    )


def _postgres_kwargs(url: str) -> dict[str, Any]:
    """Connection settings of the PostgreSQL savers (as their ``from_conn_string``)."""
    from psycopg.conninfo import conninfo_to_dict
    from psycopg.rows import dict_row

    try:
        given = conninfo_to_dict(url)
    except Exception as exc:  # psycopg.ProgrammingError: a malformed URL
        raise ConfigurationError(
            f"checkpointer {redact(url)!r} is not a valid PostgreSQL URL: {exc}; {_SPEC_HELP}"
        ) from None
    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    if "connect_timeout" not in given:
        kwargs["connect_timeout"] = CONNECT_TIMEOUT
    return kwargs


def _postgres_error(url: str, exc: Exception) -> ConfigurationError:
    message = " ".join(str(exc).split())
    return ConfigurationError(
        f"cannot use PostgreSQL checkpointer {redact(url)!r}: {message}; check that the "
        "server runs and accepts this user, password and database (or use a SQLite file: "
        "omit --checkpointer)"
    )


def _missing_extra(url: str, exc: ImportError) -> ConfigurationError:
    return ConfigurationError(
        f"checkpointer {redact(url)!r} needs the PostgreSQL extra ({exc.name} is not "
        "installed): pip install 'citeloop[postgres]'"
    )


@contextmanager
def open_checkpointer(
    spec: str | None, *, default_path: str | Path
) -> Iterator[BaseCheckpointSaver]:
    """A synchronous checkpoint saver for ``spec``, set up and ready; closed at the end.

    Args:
        spec: ``None``/``""`` (the SQLite file ``default_path``), ``sqlite:PATH``, a
            path, or a ``postgres://``/``postgresql://`` URL.
        default_path: The SQLite file used when ``spec`` is empty.

    Yields:
        A ``SqliteSaver`` or a ``PostgresSaver`` (its tables created).

    Raises:
        ConfigurationError: A bad spec; a file that cannot be created or is not a
            checkpoint database; a server that cannot be reached or refuses the
            login; the ``postgres`` extra is not installed. The message names the spec
            (without its password) and the fix.
    """
    kind, target = parse_spec(spec, default_path)
    if kind == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        path = _sqlite_path(target)
        try:
            conn = sqlite3.connect(path, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _sqlite_error(target, exc) from None
        try:
            saver = SqliteSaver(conn)
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
        saver = PostgresSaver(conn)
        try:
            saver.setup()
        except psycopg.Error as exc:
            raise _postgres_error(target, exc) from None
        yield saver


@asynccontextmanager
async def open_async_checkpointer(
    spec: str | None, *, default_path: str | Path
) -> AsyncIterator[BaseCheckpointSaver]:
    """The asynchronous variant of :func:`open_checkpointer` (for ``astream``).

    Yields:
        An ``AsyncSqliteSaver`` or an ``AsyncPostgresSaver`` (its tables created).

    Raises:
        ConfigurationError: As :func:`open_checkpointer`.
    """
    kind, target = parse_spec(spec, default_path)
    if kind == "sqlite":
        import aiosqlite
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        path = _sqlite_path(target)
        try:
            conn = await aiosqlite.connect(path)
        except sqlite3.Error as exc:
            raise _sqlite_error(target, exc) from None
        try:
            saver = AsyncSqliteSaver(conn)
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
        saver = AsyncPostgresSaver(conn)
        try:
            await saver.setup()
        except psycopg.Error as exc:
            raise _postgres_error(target, exc) from None
        yield saver
