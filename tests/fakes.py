"""Scripted test doubles for chat models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr


class ScriptedChatModel(BaseChatModel):
    """Answers with the scripted items in order: a string or an ``AIMessage`` (e.g. with
    ``usage_metadata``); an exception item is raised instead.

    ``prompts`` records the messages of every call (including calls that raised), so a
    test can assert exact call counts and what the model was shown.
    """

    script: list[Any]
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    @property
    def prompts(self) -> list[list[BaseMessage]]:
        return self._calls

    @property
    def calls(self) -> int:
        return len(self._calls)

    def _next(self, messages: Sequence[BaseMessage]) -> ChatResult:
        index = len(self._calls)
        self._calls.append(list(messages))
        if index >= len(self.script):
            raise AssertionError(f"model called {index + 1} times; script has {len(self.script)}")
        item = self.script[index]
        if isinstance(item, BaseException):
            raise item
        message = item if isinstance(item, AIMessage) else AIMessage(content=item)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return self._next(messages)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return self._next(messages)


class ScriptedToolChatModel(ScriptedChatModel):
    """A :class:`ScriptedChatModel` that supports ``with_structured_output``: binding
    tools returns the model itself, so script ``AIMessage(content="", tool_calls=[...])``
    items to answer with structured output."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedToolChatModel:
        return self


def tool_reply(name: str, args: dict[str, Any]) -> AIMessage:
    """An assistant message that calls tool ``name`` with ``args`` (structured output)."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "call-1"}])
