"""Every case of ``shared/cases/json_extraction.json`` against extract_json.

A case gives its ``input``, or an ``input_generator``: a Python expression of string and
int literals joined by ``+`` and ``*`` (``"'```json' + ' ' * 200000 + 'x'"``), read here
with :mod:`ast` rather than ``eval``. ``expected`` is the parsed value; ``expected_error``
means a :class:`ValidationError`. A case whose ``kind`` says "linear time: under 0.1 s"
must also finish within 0.1 s.
"""

from __future__ import annotations

import ast
import operator
import re
import time
from typing import Any

import pytest

from citeloop.checks.json_output import extract_json
from citeloop.errors import ValidationError
from tests.cases.conftest import load_cases

DOCUMENT = load_cases("json_extraction.json")
_OPERATORS = {ast.Add: operator.add, ast.Mult: operator.mul}
_TIME_LIMIT = re.compile(r"under ([0-9.]+) s")


def _literal(node: ast.expr) -> str | int:
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_literal(node.left), _literal(node.right))
    raise ValueError(f"unsupported input_generator expression: {ast.dump(node)}")


def generate(expression: str) -> str:
    """The string an ``input_generator`` expression builds (literals, ``+`` and ``*``)."""
    value = _literal(ast.parse(expression, mode="eval").body)
    assert isinstance(value, str), f"input_generator must build a str: {expression}"
    return value


def _input(case: dict[str, Any]) -> str:
    return case["input"] if "input" in case else generate(case["input_generator"])


@pytest.mark.parametrize("case", DOCUMENT["cases"], ids=[case["id"] for case in DOCUMENT["cases"]])
def test_case(case: dict[str, Any]) -> None:
    text = _input(case)
    started = time.perf_counter()
    if case.get("expected_error"):
        with pytest.raises(ValidationError) as caught:
            extract_json(text)
        assert caught.value.details["reason"] in ("no_json", "not_json", "empty")
    else:
        assert extract_json(text).value == case["expected"]
    limit = _TIME_LIMIT.search(case.get("kind", ""))
    if limit is not None:
        assert time.perf_counter() - started < float(limit.group(1))


def test_generate_reads_only_literals() -> None:
    assert generate("'ab' + 'c' * 3") == "abccc"
    with pytest.raises(ValueError, match="unsupported"):
        generate("__import__('os').getcwd()")
