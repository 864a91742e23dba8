"""Every case of ``shared/cases/graph_context.json`` against GraphContextValidator."""

from __future__ import annotations

from typing import Any

import pytest

from citeloop.grounding import GraphContextValidator, parse_context_entities
from tests.cases.conftest import load_cases

DOCUMENT = load_cases("graph_context.json")


def _check(result: dict[str, Any], expected: dict[str, Any]) -> None:
    for key, value in expected.items():
        assert key in result, f"result has no field {key!r}"
        assert result[key] == value, f"{key}: got {result[key]!r}, expected {value!r}"


def _check_entities(context: str, entities: dict[str, list[str]]) -> None:
    result = GraphContextValidator().validate("", context)
    assert list(result.public_entities) == entities["public"]
    assert list(result.private_entities) == entities["private"]
    parsed = sorted(entity.name for entity in parse_context_entities(context))
    assert parsed == sorted(entities["public"] + entities["private"])


def test_context_entities() -> None:
    _check_entities(DOCUMENT["context"], DOCUMENT["entities"])


@pytest.mark.parametrize("case", DOCUMENT["cases"], ids=[case["id"] for case in DOCUMENT["cases"]])
def test_case(case: dict[str, Any]) -> None:
    result = GraphContextValidator().validate(case["response"], DOCUMENT["context"])
    _check(result.to_dict(), case["expected"])


def test_private_context() -> None:
    case = DOCUMENT["private_context"]
    _check_entities(case["context"], case["entities"])
    result = GraphContextValidator().validate(case["response"], case["context"])
    _check(result.to_dict(), case["expected"])
