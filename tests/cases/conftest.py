"""Load the real-world cases shared by every citeloop component.

The cases live in ``shared/cases/`` next to the repository (the repository and
``shared/`` are siblings, locally and in CI), and those cases are the ones loaded; a
clone without that folder beside it loads the copy kept in ``tests/cases/data/``.
``CITELOOP_CASES_DIR`` overrides both (and must name a folder).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CASES_DIR_ENV = "CITELOOP_CASES_DIR"
SHARED_CASES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "cases"
COPIED_CASES_DIR = Path(__file__).resolve().parent / "data"
"""The cases as copied from the shared folder: what a clone alone has."""


def chosen_cases_dir(
    env: str | None = None, shared: Path = SHARED_CASES_DIR, copied: Path = COPIED_CASES_DIR
) -> Path:
    """The folder the cases are read from: ``env`` (the ``CITELOOP_CASES_DIR`` value)
    when given, else ``shared`` when it is a folder, else ``copied``."""
    if env:
        return Path(env)
    return shared if shared.is_dir() else copied


def missing_cases() -> str | None:
    """What to do when the cases folder is missing, or ``None`` when it is there."""
    env = os.environ.get(CASES_DIR_ENV)
    directory = chosen_cases_dir(env)
    if directory.is_dir():
        return None
    if env:  # the folder the variable names: its value is what to fix
        return (
            f"cases folder not found: {directory}, which {CASES_DIR_ENV} names. Set it to "
            f"the folder holding the case JSON files, or unset it to read the shared "
            f"folder beside the repository (or the copy in tests/cases/data)."
        )
    return (
        f"shared cases folder not found: {directory}. Check out `shared/` next to the "
        f"repository, or set {CASES_DIR_ENV} to the folder holding the case JSON files."
    )


def cases_dir() -> Path:
    """The cases folder; fails the test run with the fix when it is missing (a run that
    collects these tests stops before collecting anything: see the root
    ``conftest.py``)."""
    if message := missing_cases():
        pytest.fail(message, pytrace=False)
    return chosen_cases_dir(os.environ.get(CASES_DIR_ENV))


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
