"""Fixtures of the integration tests: a PostgreSQL database for the checkpointer tests,
and a graph of the installed langgraph source.

The server comes from ``CITELOOP_TEST_POSTGRES_URL`` (``.ci/run`` starts a private one
and sets it). Without it the PostgreSQL tests skip and say why, unless
``CITELOOP_REQUIRE_POSTGRES`` is set (as in CI), where a missing server is an error.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import langgraph.graph
import pytest

from citeloop.knowledge import SqliteGraphStore, index_tree

POSTGRES_URL_ENV = "CITELOOP_TEST_POSTGRES_URL"
REQUIRE_POSTGRES_ENV = "CITELOOP_REQUIRE_POSTGRES"


def _with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A ``postgresql://`` URL of a new, empty database, dropped after the session.

    When the login may not create databases, the URL's own database is used as it is.
    """
    url = os.environ.get(POSTGRES_URL_ENV, "").strip()
    if not url:
        reason = (
            f"no PostgreSQL server configured: set {POSTGRES_URL_ENV} to a postgresql:// URL "
            "(`bash .ci/run` starts a private server and sets it)"
        )
        if os.environ.get(REQUIRE_POSTGRES_ENV):
            pytest.fail(f"{REQUIRE_POSTGRES_ENV} is set but there is {reason}", pytrace=False)
        pytest.skip(reason)
    import psycopg
    from psycopg import sql

    name = f"citeloop_test_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.errors.InsufficientPrivilege:
        yield url
        return
    except psycopg.Error as exc:
        pytest.fail(f"{POSTGRES_URL_ENV} is set but the server cannot be used: {exc}")
    try:
        yield _with_database(url, name)
    finally:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
            conn.execute(drop.format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def langgraph_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The graph file of the installed langgraph source, indexed once a session."""
    db = tmp_path_factory.mktemp("langgraph") / "graph.db"
    with SqliteGraphStore(db) as store:
        index_tree(Path(langgraph.graph.__file__).parents[1], store)
    return db
