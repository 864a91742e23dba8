"""Token counts a run reports, shared by the graphs that call a chat model repeatedly."""

from __future__ import annotations

from typing_extensions import TypedDict  # pydantic needs it for JSON schemas on Python < 3.12


class TokenUsage(TypedDict):
    """Tokens spent by model calls: one call, or every attempt of a run.

    Attributes:
        input: Prompt tokens.
        output: Completion tokens.
        total: ``input + output``.
        estimated: Whether any count is the 4-characters-per-token estimate (the chat
            model reported no ``usage_metadata``).
    """

    input: int
    output: int
    total: int
    estimated: bool


def no_tokens() -> TokenUsage:
    """A new count of nothing spent (a run's ``tokens`` before its first call)."""
    return {"input": 0, "output": 0, "total": 0, "estimated": False}
