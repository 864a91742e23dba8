"""The settings dataclasses refuse a keyword that is none of their fields, by name."""

from __future__ import annotations

import dataclasses

import pytest

from citeloop.context import (
    DeliveryAuditContext,
    GroundedAnswerContext,
    OutputGuardContext,
    VerbalizeContext,
    resolve_context,
)
from citeloop.errors import ConfigurationError

SETTINGS = [GroundedAnswerContext, VerbalizeContext, OutputGuardContext, DeliveryAuditContext]


@pytest.mark.parametrize("cls", SETTINGS)
def test_an_unknown_keyword_names_the_class_and_its_fields(cls):
    with pytest.raises(ConfigurationError) as caught:
        cls(modell="x")
    message = str(caught.value)
    assert message.startswith(f"{cls.__name__} has no field 'modell'; did you mean 'model'?")
    assert all(item.name in message for item in dataclasses.fields(cls))


@pytest.mark.parametrize("cls", SETTINGS)
def test_known_keywords_and_replace_still_build_the_settings(cls):
    settings = cls(model="replay:turns.jsonl")
    assert settings.model == "replay:turns.jsonl"
    assert dataclasses.replace(settings, model="openai:x").model == "openai:x"


def test_a_keyword_like_no_field_gets_no_guess():
    with pytest.raises(ConfigurationError, match=r"no field 'zzz' \(its fields: model\)$"):
        DeliveryAuditContext(zzz=1)


def test_a_parents_key_like_a_field_is_left_to_the_parent_with_a_warning(caplog):
    """A parent graph's context reaches a citeloop subgraph whole: its own keys are
    left alone, but one that reads as a misspelled field is named, once."""
    parent = {"max_retry": 0, "user_id": "u1", "db_path": "graph.db"}
    with caplog.at_level("WARNING", logger="citeloop.context"):
        settings = resolve_context(parent, GroundedAnswerContext)
        resolve_context(parent, GroundedAnswerContext)
    assert settings.max_retries == GroundedAnswerContext().max_retries
    assert settings.db_path == "graph.db"
    (record,) = caplog.records
    assert "'max_retry' is no GroundedAnswerContext field (did you mean 'max_retries'?)" in (
        record.getMessage()
    )
    assert "user_id" not in record.getMessage()


@dataclasses.dataclass
class _ParentContext:
    max_retrys: int = 5  # the parent's misspelling of max_retries
    user_id: str = "u1"
    model: str = "replay:turns.jsonl"


class _SlottedParent:
    __slots__ = ("hop", "tenant")

    def __init__(self) -> None:
        self.hop = 3
        self.tenant = "t"


@pytest.mark.parametrize(
    ("parent", "key", "field"),
    [(_ParentContext(), "max_retrys", "max_retries"), (_SlottedParent(), "hop", "hops")],
)
def test_a_parents_settings_object_is_read_for_misspellings_too(caplog, parent, key, field):
    """A parent's context_schema object (a dataclass, or a class with slots) reaches
    the subgraph as it is: its attributes are read as a mapping's keys are."""
    with caplog.at_level("WARNING", logger="citeloop.context"):
        settings = resolve_context(parent, GroundedAnswerContext)
    assert getattr(settings, field) == getattr(GroundedAnswerContext(), field)
    (record,) = caplog.records
    assert f"{key!r} is no GroundedAnswerContext field (did you mean {field!r}?)" in (
        record.getMessage()
    )
