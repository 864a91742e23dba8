"""The package root's public API and the one-way dependency rule."""

from __future__ import annotations

import subprocess
import sys

import pytest

import citeloop


@pytest.mark.parametrize("name", citeloop.__all__)
def test_every_public_name_resolves(name):
    assert getattr(citeloop, name) is not None


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        citeloop.nope  # noqa: B018


def test_libraries_import_no_langgraph():
    code = (
        "import sys, citeloop.validation, citeloop.knowledge, citeloop.errors\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('langgraph', 'langchain')))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
