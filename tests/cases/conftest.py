"""Load the real-world cases shared by every citeloop component.

The cases live in ``shared/cases/`` next to the repository (the repository and
``shared/`` are siblings, locally and in CI); ``CITELOOP_CASES_DIR`` overrides that.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CASES_DIR_ENV = "CITELOOP_CASES_DIR"
DEFAULT_CASES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "cases"


def missing_cases() -> str | None:
    """What to do when the shared cases folder is missing, or ``None`` when it is there."""
    directory = Path(os.environ.get(CASES_DIR_ENV) or DEFAULT_CASES_DIR)
    if directory.is_dir():
        return None
    return (
        f"shared cases folder not found: {directory}. Check out `shared/` next to the "
        f"repository, or set {CASES_DIR_ENV} to the folder holding the case JSON files."
    )


def cases_dir() -> Path:
    """The shared cases folder; fails the test run with the fix when it is missing (a
    run that collects these tests stops before collecting anything: see the root
    ``conftest.py``)."""
    if message := missing_cases():
        pytest.fail(message, pytrace=False)
    return Path(os.environ.get(CASES_DIR_ENV) or DEFAULT_CASES_DIR)


def load_cases(name: str) -> Any:
    """Parse ``<cases dir>/<name>`` as JSON (usable at collection time, for parametrize).

    Args:
        name: File name inside the cases folder, e.g. ``"graph_context.json"``.

    Returns:
        The parsed JSON document.
    """
    path = cases_dir() / name
    if not path.is_file():
        pytest.fail(f"shared case file not found: {path}", pytrace=False)
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def shared_cases() -> Callable[[str], Any]:
    """The :func:`load_cases` loader, for tests that read a case file at run time."""
    return load_cases
