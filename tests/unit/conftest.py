"""Fixtures shared by the unit tests: a copy of the sample repository and a store."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citeloop.knowledge import SqliteGraphStore

SAMPLE_REPO = Path(__file__).parent.parent / "fixtures" / "sample_repo"


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """A writable copy of ``tests/fixtures/sample_repo``."""
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE_REPO, root)
    return root


@pytest.fixture
def store(tmp_path: Path):
    """An empty SQLite graph store in the test's folder."""
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        yield graph
