"""Every case of ``shared/cases/graph_context.json`` against GraphContextValidator."""

from __future__ import annotations

from typing import Any

import pytest

from citeloop.grounding import GraphContextValidator, parse_context_entities
from citeloop.knowledge.rewrite import reply_names
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


@pytest.mark.parametrize("case", DOCUMENT["cases"], ids=[case["id"] for case in DOCUMENT["cases"]])
def test_the_design_apis_retry_prompt_claims_only_what_is_so(case: dict[str, Any]) -> None:
    """The design's API retries against its own fixed text context, with no knowledge
    graph: for every case its retry prompt claims no search of the code base, no
    widening and no tier marks, asks for no location this context cannot give, and
    calls no entity of the context "not an entity"."""
    validator = GraphContextValidator(DOCUMENT["context"])
    result = validator.validate(case["response"]).report
    if result.passed:
        return
    prompt = validator.build_retry_prompt("Explain the graph store.", result)
    assert "knowledge graph" not in prompt and "widened" not in prompt
    assert "marks it core" not in prompt
    assert "<path>" not in prompt  # the context has no file headings or line marks
    names = {entity.name for entity in parse_context_entities(DOCUMENT["context"])}
    assert not set(result.invalid_citations) & names


LISTED = [case for case in DOCUMENT["cases"] if "Entities used" in case["response"]]
"""The cases whose answer has a citation section."""


@pytest.mark.parametrize("case", LISTED, ids=[case["id"] for case in LISTED])
def test_a_citation_list_read_as_a_rewrite_reply_gives_the_names_cited(
    case: dict[str, Any],
) -> None:
    """A chat model's list of names comes in the shapes answers cite in (bullets,
    numbers, backticks, labels, ids): read as a query-rewrite reply, a case's citation
    section gives the names the validator reads there, valid or not (a qualified name
    by its last part, as the validator cites it)."""
    response = case["response"]
    result = GraphContextValidator().validate(response, DOCUMENT["context"])
    section = response[response.index("Entities used") + len("Entities used") :]
    names = [name.rpartition(".")[2] for name in reply_names(section, 100)]
    assert sorted(names) == sorted(result.citations + result.invalid_citations)
