"""The reducer of the ``messages`` key of every graph that takes chat messages.

It is LangGraph's ``add_messages``, but a message it cannot read (``("human", 5)``, a
dict without ``role``, a number) is a :class:`~citeloop.errors.ConfigurationError` that
names the message, its position and the fix, raised when the input is applied, before
any node runs, instead of the message library's own error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AnyMessage, convert_to_messages
from langgraph.graph.message import add_messages
from pydantic import ValidationError as PydanticValidationError

from citeloop.errors import ConfigurationError

_SHAPES = "a chat message, a ('human', 'text') pair or a {'role': 'user', 'content': 'text'} dict"
_UNREADABLE = (ValueError, TypeError, KeyError, NotImplementedError)
"""What reading a message-like value raises (pydantic's ``ValidationError`` is a
``ValueError``)."""
_NO_CONTENT = object()


def add_chat_messages(left: Any, right: Any) -> list[AnyMessage]:
    """``add_messages(left, right)``: ``right`` appended to ``left``, a message with the
    id of one in ``left`` replacing it.

    Raises:
        ConfigurationError: A message of ``right`` that is none of the shapes a chat
            message is given in, or whose content is not text (the message names its
            position in ``messages`` and the shapes to use).
    """
    try:
        return add_messages(left, right)
    except _UNREADABLE:
        problem = _unreadable_message(right)
        if problem is None:  # every message reads (e.g. removing an unknown id): as it is
            raise
        raise ConfigurationError(problem) from None


def _unreadable_message(right: Any) -> str | None:
    """What is wrong with the first message of ``right`` that cannot be read; ``None``
    when every one can."""
    if not isinstance(right, list):
        return f"messages must be a list of chat messages ({_SHAPES}), got {_shown(right)}"
    for position, message in enumerate(right):
        try:
            convert_to_messages([message])
        except _UNREADABLE as exc:
            return (
                f"messages[{position}] must be {_SHAPES}, got {_shown(message)}: "
                f"{_why(message, exc)}"
            )
    return None


def _why(message: Any, exc: BaseException) -> str:
    content = _content(message)
    if content is not _NO_CONTENT and not isinstance(content, str | list):
        return (
            f"its content is {type(content).__name__}, not text; pass the text as a "
            "string (or a list of content blocks)"
        )
    if isinstance(exc, PydanticValidationError) and exc.errors():
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        return f"{field}: {error['msg']}"
    return _first_line(exc)


def _content(message: Any) -> Any:
    """The content of a ``(role, content)`` pair or a message dict, else ``_NO_CONTENT``."""
    if isinstance(message, tuple | list) and len(message) == 2:
        return message[1]
    if isinstance(message, Mapping) and "content" in message:
        return message["content"]
    return _NO_CONTENT


def _first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (the message library adds a link below it)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _shown(value: Any) -> str:
    """``repr(value)``, cut to 80 characters for an error message."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."
