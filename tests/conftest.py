"""The test modules are collected as tests only.

``--doctest-modules`` (the project's pytest options, for the package's docstrings)
would also import every test module as a doctest module: twice the import, and a
module that fails to import (the shared cases folder missing) reported twice.
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
