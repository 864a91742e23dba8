"""Conformance with the source design 003, ``../shared/seeds/003-verbalization-pipeline.txt``.

The design's pipeline is citeloop's ``verbalize`` graph (draft, critique, refine) with
its default critic :class:`citeloop.FactIdCritic` and :func:`citeloop.knowledge.render_hops`;
each test names the design's test or item it checks. Models are scripted.
"""

from __future__ import annotations

import pytest

from citeloop import (
    EntityRef,
    FactIdCritic,
    PathHop,
    Provenance,
    RetrievalPath,
    build_verbalize_graph,
)
from citeloop.context import VerbalizeContext
from citeloop.errors import ConfigurationError
from citeloop.knowledge import render_hops
from tests.fakes import ScriptedChatModel

TICKET = EntityRef("ticket", "T-1")
POLICY = EntityRef("policy", "P-1")
TWO_HOPS = RetrievalPath(
    EntityRef("topic", "root"), (PathHop(TICKET, "fact-alpha"), PathHop(POLICY, "fact-beta"))
)
EMPTY = RetrievalPath(EntityRef("topic", "root"), ())


async def verbalize(path: RetrievalPath, replies: list[str], **context):
    model = ScriptedChatModel(script=replies)
    out = await build_verbalize_graph(model).ainvoke({"path": path}, context=context or None)
    return out["narrative"], out["verbalization"], model


def test_default_budget_is_two_iterations():
    """DEFAULT_MAX_ITERATIONS = 2: an initial draft and one refinement."""
    assert VerbalizeContext().max_iterations == 2


async def test_verbalization_produces_readable_chain():
    """verbalization_produces_readable_chain: a first draft naming every fact passes
    with no iteration used."""
    text, meta, model = await verbalize(
        TWO_HOPS, ["Ticket T-1 surfaces fact-alpha; Policy P-1 surfaces fact-beta."]
    )
    assert "fact-alpha" in text and "fact-beta" in text
    assert meta["passed"] and meta["iterations_used"] == 0 and model.calls == 1


async def test_refiner_revisits_when_first_draft_misses_facts():
    """refiner_revisits_when_first_draft_misses_facts: one refinement round, then pass;
    the refinement prompt carries the previous draft and the critique."""
    first = "Ticket T-1 surfaces fact-alpha but the second fact is unmentioned."
    text, meta, model = await verbalize(
        TWO_HOPS, [first, "Ticket T-1 surfaces fact-alpha and Policy P-1 surfaces fact-beta."]
    )
    assert "fact-beta" in text and meta["passed"] and meta["iterations_used"] == 1
    refine_prompt = model.prompts[1][-1].text
    assert first in refine_prompt and "fact-beta" in refine_prompt


async def test_quality_loop_terminates_within_bounds():
    """quality_loop_terminates_within_bounds: with a cap of 2 and two failing replies,
    exactly two calls are made and the loop ends unpassed at 2 of 2."""
    _, meta, model = await verbalize(
        TWO_HOPS, ["Mentions only fact-alpha.", "Still only fact-alpha."], max_iterations=2
    )
    assert not meta["passed"]
    assert (meta["iterations_used"], meta["max_iterations"], model.calls) == (2, 2, 2)


async def test_empty_path_passes_immediately():
    """empty_path_passes_immediately: no facts to verbalise is a pass with no iteration
    (citeloop makes no model call for it)."""
    _, meta, model = await verbalize(EMPTY, ["(no facts)"])
    assert meta["passed"] and meta["iterations_used"] == 0 and model.calls == 0


async def test_zero_max_iterations_rejected():
    """zero_max_iterations_rejected: a budget of 0 is a configuration error, raised before
    any model call."""
    model = ScriptedChatModel(script=["draft"])
    with pytest.raises(ConfigurationError, match="max_iterations"):
        await build_verbalize_graph(model).ainvoke(
            {"path": TWO_HOPS}, context={"max_iterations": 0}
        )
    assert model.calls == 0


def test_render_hops_lists_each_fact_id():
    """render_hops_lists_each_fact_id: one numbered line per hop with its fact id; the
    provenance marker only on hops that have provenance."""
    rendered = render_hops(TWO_HOPS)
    assert rendered.splitlines()[0].startswith("1.") and rendered.splitlines()[1].startswith("2.")
    assert "fact-alpha" in rendered and "fact-beta" in rendered and "(" not in rendered
    signed = RetrievalPath(
        TWO_HOPS.source, (PathHop(TICKET, "fact-alpha", Provenance("a.py", 3, 4, "d" * 64)),)
    )
    assert "a.py:3" in render_hops(signed)


def test_critic_accepts_when_all_facts_present():
    """critic_accepts_when_all_facts_present."""
    assert FactIdCritic()("fact-alpha and fact-beta are both here", TWO_HOPS).passed


def test_critic_lists_missing_facts_in_feedback():
    """critic_lists_missing_facts_in_feedback: the feedback names the missing fact id."""
    critique = FactIdCritic()("only fact-alpha is mentioned", TWO_HOPS)
    assert not critique.passed and "fact-beta" in critique.feedback
    assert "fact-alpha" not in critique.feedback


def test_critic_passes_a_path_without_facts():
    """VerbalizationCritic.evaluate: no facts to verbalise is a pass."""
    assert FactIdCritic()("anything", EMPTY).passed
