"""The test modules are collected as tests only, and a run that would collect the
cases tests without the shared cases folder stops before collecting anything.

``--doctest-modules`` (the project's pytest options, for the package's docstrings)
would also import every test module as a doctest module: twice the import, and a
module that fails to import (the shared cases folder missing) reported twice. A run
stopped by collection errors would also have the snapshot plugin call every snapshot
unused and advise ``--snapshot-update``, which would delete them all.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from _pytest.doctest import DoctestModule


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: Any) -> Generator[None, Any, Any]:
    collected = yield
    return [item for item in collected or () if not isinstance(item, DoctestModule)]


def pytest_configure(config: pytest.Config) -> None:
    """Stop the run, with the fix, when it would collect ``tests/cases`` and the cases
    folder ``CITELOOP_CASES_DIR`` names is missing (without it, the shared folder beside
    the repository or the copy in ``tests/cases/data`` is read)."""
    from tests.cases.conftest import missing_cases

    cases = Path(__file__).resolve().parent / "cases"
    here = Path(config.invocation_params.dir)
    for argument in config.args:
        path = (here / argument.split("::", 1)[0]).resolve()
        if path == cases or cases in path.parents or path in cases.parents:
            if message := missing_cases():
                pytest.exit(message, returncode=pytest.ExitCode.USAGE_ERROR)
            return
