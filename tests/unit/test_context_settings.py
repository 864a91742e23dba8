"""The settings dataclasses refuse a keyword that is none of their fields, by name."""

from __future__ import annotations

import dataclasses

import pytest

from citeloop.context import (
    DeliveryAuditContext,
    GroundedAnswerContext,
    OutputGuardContext,
    VerbalizeContext,
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
