"""A default context of the installed langgraph source stays within its budget, the
source excerpts of nested functions merged into their enclosing ones included."""

from __future__ import annotations

from pathlib import Path

from citeloop.knowledge import ContextInjector, SqliteGraphStore, Tier


def test_a_merged_nested_excerpt_keeps_the_context_within_its_budget(langgraph_db: Path) -> None:
    """`agenerate_structured_response`'s excerpt, merged into that of the
    `create_react_agent` that defines it, had split a marker of the enclosing excerpt in
    two after the budget was filled: the context took 1,002 of its 1,000 tokens, its
    core two short lines."""
    task = "How does `StructuredResponseSchema` and `error_type` work?"
    with SqliteGraphStore(langgraph_db, read_only=True) as store:
        context = ContextInjector(store, max_context_tokens=1000).inject(task)
    assert any(entity.tier == Tier.SUPPORTING for entity in context.entities)
    assert context.tokens <= context.budget == 1000
