"""Linear-time scanning of text for entity names and requirement ids.

Every pattern here is applied with ``finditer`` and has no nested ambiguous quantifiers,
so scanning is linear in the length of the text.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterator

from citeloop.text import normalize_text

MENTION_PATTERN = re.compile(r"\w+(?:[.\-]\w+)*")
"""A word, a dotted path (``Class.method``) or a hyphenated id (``REQ-008-013``)."""

REQUIREMENT_PATTERN = re.compile(r"\bREQ-\w+(?:-\w+)*")
"""A requirement id such as ``REQ-008-013``."""

MIN_NAME_LENGTH = 3

RECEIVERS = ("self", "cls")
"""The names a method's code calls its instance or class by (PEP 8)."""

OBJECT_ATTRIBUTES = frozenset(
    {
        "__name__", "__qualname__", "__module__", "__doc__", "__dict__", "__class__",
        "__annotations__", "__bases__", "__mro__", "__file__", "__wrapped__", "__self__",
        "__func__", "__code__", "__defaults__", "__globals__",
    }
)  # fmt: skip
"""Special attributes Python gives its objects, classes, functions and modules (the
Language Reference, "Data model", 3.2): ``self.object.__name__`` reads Python's."""


def python_attribute(name: str) -> bool:
    """Whether ``name`` reads one of :data:`OBJECT_ATTRIBUTES` alone or through a
    variable (``__name__``, ``self.object.__name__``, ``func.__doc__``), not of a class
    so named (``ObjectMember.__name__``, ``_Mock.__name__``: that class's attribute)."""
    head, _, rest = name.rpartition(".")
    return rest in OBJECT_ATTRIBUTES and not head.split(".")[0].lstrip("_")[:1].isupper()


STOP_NAMES: frozenset[str] = frozenset(
    {name for name in dir(builtins) if not name.startswith("_")}
    | set(keyword.kwlist)
    | {
        "self",
        "cls",
        "run",
        "get",
        "set",
        "main",
        "test",
        "call",
        "init",
        "new",
        "add",
        "update",
        "name",
        "value",
        "data",
        "key",
        "keys",
        "items",
        "copy",
        "load",
        "save",
        "the",
        "and",
        "for",
        "with",
        "this",
        "that",
        "use",
        "uses",
        "args",
        "kwargs",
        "result",
        "default",
        "config",
        "path",
        "file",
        "text",
        "item",
        "node",
        "error",
    }
)
"""Unqualified names too common to mean an entity (builtins, keywords, everyday words)."""


def is_noise(name: str) -> bool:
    """Whether an unqualified mention of ``name`` is too common to name an entity.

    Args:
        name: A bare identifier, e.g. ``"run"`` or ``"GraphStore"``.

    Returns:
        ``True`` for names shorter than 3 characters, dunder names and stop names.
    """
    return (
        len(name) < MIN_NAME_LENGTH
        or (name.startswith("__") and name.endswith("__"))
        or name in STOP_NAMES
    )


def iter_mentions(text: str) -> Iterator[str]:
    """Yield every mention-shaped token of ``text`` in order (duplicates included).

    The text is NFC-normalized first (linearly, see :func:`citeloop.text.normalize_text`),
    so a name typed with decomposed accents (``Cafe\u0301Store``) names ``CaféStore``.
    """
    for match in MENTION_PATTERN.finditer(normalize_text(text)):
        yield match.group()


def requirement_mentions(text: str) -> Iterator[tuple[str, str]]:
    """Yield ``(requirement_id, title)`` for each ``REQ-...`` id in one line of text.

    The title is the rest of the line after the id, without separators and quotes,
    e.g. ``"# REQ-008-013: retries are bounded"`` gives ``("REQ-008-013", "retries are
    bounded")``. Only the last id on a line gets the title.
    """
    matches = list(REQUIREMENT_PATTERN.finditer(text))
    for index, match in enumerate(matches):
        title = ""
        if index == len(matches) - 1:
            title = text[match.end() :].strip(" \t:-–—,;.\"'()[]")
        yield match.group(), title
