"""Conformance with the source design 000 (``000-graph-context-validator.txt``).

Each test names the part of the design whose documented behaviour it asserts: the
module docstring's usage, the constructor, ``validate``, ``ValidationResult`` and its
properties, ``build_retry_prompt``, the entity properties and the constants.
"""

from __future__ import annotations

import pytest

import citeloop.grounding
from citeloop import (
    COMPLIANCE_THRESHOLD,
    MAX_VALIDATION_RETRIES,
    GraphContextValidator,
    GraphValidationResult,
    ValidationResult,
)

# The context format of ContextInjector.to_prompt(), as the design's _extract_entities reads it.
CONTEXT = """\
class GraphStore(Base): add, neighbours
def build_index(root)
def _scan_file(path)
GraphStore inherits from Base
build_index() calls parse_module()
GraphStore.neighbours()
REQ-008-013 every answer cites its context
## Prior decisions
  DEC-7: one SQLite file per graph
"""
PUBLIC = ["Base", "DEC-7", "GraphStore", "REQ-008-013", "build_index", "neighbours", "parse_module"]
SECTION = "\n\n## Entities used\n" + "".join(f"- {name}\n" for name in PUBLIC)
BODY = (
    "GraphStore extends Base; build_index calls parse_module and GraphStore.neighbours "
    "answers queries (REQ-008-013, DEC-7)."
)


def test_constants() -> None:
    """Source: ``MAX_VALIDATION_RETRIES = 2``; the threshold is documented as 50%."""
    assert MAX_VALIDATION_RETRIES == 2
    assert COMPLIANCE_THRESHOLD == 0.5
    assert GraphContextValidator(CONTEXT).threshold == 0.5


def test_module_usage_runs_as_written() -> None:
    """Module docstring, Usage: construct with the context, validate, build a retry
    prompt from a failed result."""
    validator = GraphContextValidator(CONTEXT)
    result = validator.validate("It depends on the setup.")
    assert not result.passed
    retry_prompt = validator.build_retry_prompt("Explain the index.", result)
    assert "Explain the index." in retry_prompt
    assert "GraphStore" in retry_prompt


def test_entity_properties_split_public_and_private() -> None:
    """GraphContextValidator: entities of the context split into public names and
    private ones prefixed with an underscore; ``has_entities`` needs a public one."""
    validator = GraphContextValidator(CONTEXT)
    assert validator.public_entity_names == PUBLIC
    assert validator.private_entity_names == ["_scan_file"]
    assert validator.entity_names == [*PUBLIC, "_scan_file"]
    assert validator.has_entities is True
    assert GraphContextValidator("def _only_private()").has_entities is False
    assert GraphContextValidator(None).entity_names == []


def test_no_entities_passes_vacuously() -> None:
    """validate: passes when there are no entities at all."""
    result = GraphContextValidator("").validate("Anything at all.")
    assert isinstance(result, ValidationResult)
    assert result.passed is True
    assert result.compliance_ratio == 1.0


def test_complete_answer_passes_with_every_field_filled() -> None:
    """validate and ValidationResult: found and missing entities, counts, citations."""
    result = GraphContextValidator(CONTEXT).validate(BODY + SECTION)
    assert result.passed is True
    assert result.public_found == PUBLIC and result.public_missing == []
    assert result.private_found == [] and result.private_missing == ["_scan_file"]
    assert (result.public_count, result.public_referenced) == (7, 7)
    assert (result.total_count, result.total_referenced) == (8, 7)
    assert result.citations == PUBLIC
    assert result.invalid_citations == [] and result.missing_core_citations == []


def test_threshold_decides_the_reference_verdict() -> None:
    """Constructor ``threshold``; validate: at least the threshold fraction of public
    entities referenced (word-boundary match)."""
    body = "GraphStore extends Base; build_index calls parse_module."  # 4 of 7
    validator = GraphContextValidator(CONTEXT)
    assert validator.validate(body, require_citations=False).passed is True
    strict = GraphContextValidator(CONTEXT, threshold=0.75)
    result = strict.validate(body, require_citations=False)
    assert result.passed is False
    assert result.compliance_ratio == pytest.approx(4 / 7)
    # A name inside a longer word is no reference: "GraphStores" is not "GraphStore".
    assert "GraphStore" in validator.validate("GraphStores", False).public_missing


def test_require_citations_checks_the_entities_used_section() -> None:
    """validate(require_citations=True): every core entity cited; citations not in the
    context are invalid; ``require_citations`` may be passed positionally."""
    validator = GraphContextValidator(CONTEXT)
    assert validator.validate(BODY).passed is False  # no section
    assert validator.validate(BODY, False).passed is True
    partial = BODY + "\n\n## Entities used\n- GraphStore\n- Cache\n"
    result = validator.validate(partial)
    assert result.passed is False
    assert result.invalid_citations == ["Cache"]
    assert "Cache" in result.citations
    assert result.missing_core_citations == [n for n in PUBLIC if n != "GraphStore"]


def test_core_entities_narrow_what_must_be_cited() -> None:
    """Constructor ``core_entities``: callers with tiered context supply a narrower list
    of what must be cited (default: every public entity)."""
    validator = GraphContextValidator(CONTEXT, core_entities=["GraphStore"])
    answer = "GraphStore answers the queries.\n\n## Entities used\n- GraphStore\n"
    result = validator.validate(answer)
    assert result.passed is True
    assert result.missing_core_citations == []


def test_private_entities_are_reported_but_never_required() -> None:
    """Module docstring: private implementation details are tracked, not required."""
    result = GraphContextValidator(CONTEXT).validate(BODY + " _scan_file reads it." + SECTION)
    assert result.passed is True
    assert result.private_found == ["_scan_file"]
    assert result.reference_count == 8


def test_validation_result_defaults_and_properties() -> None:
    """ValidationResult: a dataclass with defaults; ``compliance_ratio``,
    ``entities_found``, ``entities_missing``, ``entity_count``, ``reference_count``."""
    empty = ValidationResult()
    assert empty.passed is False and empty.public_found == [] and empty.compliance_ratio == 1.0
    result = ValidationResult(
        public_found=["A"],
        public_missing=["B"],
        private_found=["_c"],
        private_missing=["_d"],
        public_count=2,
        public_referenced=1,
        total_count=4,
        total_referenced=2,
    )
    assert result.compliance_ratio == 0.5
    assert result.entities_found == ["A", "_c"]
    assert result.entities_missing == ["B", "_d"]
    assert (result.entity_count, result.reference_count) == (4, 2)


def test_build_retry_prompt_names_what_to_fix_then_the_original_prompt() -> None:
    """build_retry_prompt: the missing citations, the invalid ones to remove and the
    public entities to reference, with the original prompt kept."""
    validator = GraphContextValidator(CONTEXT)
    failed = validator.validate("GraphStore is used.\n\n## Entities used\n- GraphStore\n- Cache\n")
    prompt = validator.build_retry_prompt("Explain the index.", failed)
    assert "Explain the index." in prompt
    assert "Cache" in prompt  # an invalid citation to remove
    assert "build_index" in prompt  # a missing core citation / reference
    by_hand = ValidationResult(public_missing=["GraphStore"], missing_core_citations=["GraphStore"])
    assert "GraphStore" in validator.build_retry_prompt("Task.", by_hand)


def test_citeloop_calls_keep_working_beside_the_documented_ones() -> None:
    """citeloop's own call (context per validation) still returns the full report; the
    documented result reaches it through ``report``."""
    report = GraphContextValidator().validate(BODY + SECTION, CONTEXT)
    assert isinstance(report, GraphValidationResult) and report.passed
    documented = GraphContextValidator(CONTEXT).validate(BODY + SECTION)
    assert documented.report == report
    assert citeloop.grounding.ValidationResult is ValidationResult


def test_bad_settings_are_clear_errors() -> None:
    """Constructor: a threshold outside [0, 1], a core entity the context lacks, or no
    context at all are errors that name the fix."""
    with pytest.raises(ValueError, match="threshold"):
        GraphContextValidator(CONTEXT, threshold=1.5)
    with pytest.raises(ValueError, match="core_entities not in the context: Cache"):
        GraphContextValidator(CONTEXT, core_entities=["Cache"]).validate(BODY)
    with pytest.raises(TypeError, match="no context"):
        GraphContextValidator().validate(BODY)
