"""JSON Schema's regular expressions matched in linear time, with RE2.

A schema's ``pattern`` is matched against a string the model wrote, and its
``patternProperties`` against the model's property names. ``jsonschema`` matches them
with Python's :mod:`re`, a backtracking engine: a common pattern such as
``^(\\w+\\s?)*$`` takes exponential time on a line of words that ends in ``!``, and a
check would never return. :func:`linear_patterns` gives a validator class whose
keywords that match a pattern (``pattern``, ``patternProperties`` and
``additionalProperties``'s exclusion of the properties ``patternProperties`` matches)
use RE2 instead (https://github.com/google/re2, through ``google-re2``), whose time is
linear in the text.

Patterns are ECMA-262 regular expressions (JSON Schema 2020-12 §6.4). RE2 reads most of
that syntax as ECMA-262 does, ``\\d`` and ``\\w`` ASCII included; :func:`translated`
rewrites the rest it reads otherwise: ``\\uXXXX`` escapes, and ``\\s``
and ``\\S``, which in ECMA-262 also match ``\\v``, no-break and other Unicode spaces
(``\\S`` inside a class keeps RE2's narrower meaning). RE2 has no lookaround or
backreferences: a pattern RE2 cannot compile is the schema's mistake, and
:class:`~citeloop.errors.ConfigurationError` names it, RE2's reason and the fix.

``jsonschema`` chooses the validator class of a subschema that names its own
``$schema`` (a ``$ref`` to a root that names one, too) afresh, which would match with
:mod:`re` again: :func:`one_dialect` removes ``$schema`` from the schema objects of a
copy, so every subschema is validated with the root's draft, as JSON Schema 2019-09 and
later ask of a subschema that is not a resource of its own.

``unevaluatedProperties`` (Draft 2019-09 and later) still decides which properties
``patternProperties`` matched with :mod:`re`, inside ``jsonschema``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import re2
import referencing.jsonschema
from jsonschema import validators
from jsonschema.exceptions import ValidationError as SchemaViolation
from jsonschema.protocols import Validator

from citeloop.errors import ConfigurationError

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a bad pattern is reported once, by the error raised

MAX_SHOWN_PATTERN = 200
"""Longest pattern an error message shows; a longer one is cut in the middle."""

_ECMA_SPACES = (
    "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
    "\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"
)
"""ECMA-262's ``\\s`` (WhiteSpace and LineTerminator, ECMA-262 §22.2.2.9), in RE2's
syntax, for inside a character class."""
_HEX = frozenset("0123456789abcdefABCDEF")


def translated(pattern: str) -> str:
    """``pattern`` (ECMA-262) in RE2's syntax: ``\\uXXXX`` as ``\\x{XXXX}``, ``\\s``
    and ``\\S`` (outside a class) as ECMA-262's sets, a ``]`` first in a class as a
    literal (as :mod:`re`, which checks the schema, reads it); the rest as written. One
    pass, linear in ``len(pattern)``."""
    out: list[str] = []
    in_class = False
    i, size = 0, len(pattern)
    while i < size:
        char = pattern[i]
        if char != "\\" or i + 1 == size:
            if char == "[" and not in_class:
                in_class = True
                out.append(char)
                if pattern.startswith("^", i + 1):
                    out.append("^")
                    i += 1
                if pattern.startswith("]", i + 1):
                    out.append("\\]")
                    i += 1
            else:
                in_class = in_class and char != "]"
                out.append(char)
            i += 1
            continue
        escaped = pattern[i + 1]
        if escaped == "u":
            digits = pattern[i + 2 : i + 6]
            if len(digits) == 4 and set(digits) <= _HEX:
                out.append(f"\\x{{{digits}}}")
                i += 6
                continue
        if escaped == "s":
            out.append(_ECMA_SPACES if in_class else f"[{_ECMA_SPACES}]")
        elif escaped == "S" and not in_class:
            out.append(f"[^{_ECMA_SPACES}]")
        else:
            out.append(pattern[i : i + 2])
        i += 2
    return "".join(out)


def _shown(pattern: Any) -> str:
    text = repr(pattern)
    if len(text) <= MAX_SHOWN_PATTERN:
        return text
    half = MAX_SHOWN_PATTERN // 2
    return f"{text[:half]} … {text[-half:]} ({len(text):,} characters)"


@lru_cache(maxsize=512)
def compiled(pattern: str) -> Any:
    """``pattern`` (ECMA-262) compiled by RE2, after :func:`translated` (cached).

    Raises:
        ConfigurationError: ``pattern`` is not a str, or RE2 cannot compile it
            (lookaround, a backreference, a repetition over 1,000, a pattern too
            large); the message names the pattern (cut to
            :data:`MAX_SHOWN_PATTERN` characters), RE2's reason and the fix.
    """
    if not isinstance(pattern, str):
        raise ConfigurationError(
            f"the schema's pattern {_shown(pattern)} is not a string; write it as one"
        )
    try:
        return re2.compile(translated(pattern), options=_OPTIONS)
    except UnicodeEncodeError:
        raise ConfigurationError(
            f"the schema's pattern {_shown(pattern)} holds a lone surrogate; write the "
            "character it stands for, or a \\uXXXX escape pair"
        ) from None
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args else str(exc)
        escape = reason.rpartition("escape sequence: \\")[2][:1]
        unsupported = "perl operator" in reason or escape.isdigit()  # lookaround, \\1
        fix = (
            "RE2 has no lookaround or backreferences: rewrite the pattern without them"
            if unsupported
            else "rewrite it in the syntax RE2 reads (https://github.com/google/re2/wiki/Syntax)"
        )
        raise ConfigurationError(
            f"the schema's pattern {_shown(pattern)} cannot be matched in linear time "
            f"({reason}); citeloop matches schema patterns with RE2: {fix}"
        ) from None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches anywhere in ``text`` (``re.search``'s rule, which JSON
    Schema's ``pattern`` follows: not anchored), in time linear in ``text``. A lone
    surrogate in ``text`` (JSON may escape one) reads as U+FFFD."""
    regex = compiled(pattern)
    try:
        return regex.search(text) is not None
    except UnicodeEncodeError:
        mended = "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)
        return regex.search(mended) is not None


def schema_objects(schema: Any, cls: type[Validator]) -> Iterator[dict[str, Any]]:
    """Every schema object of ``schema`` (itself included), by the subschema keywords
    of ``cls``'s draft (``referencing``'s), never data: ``const``, ``default``, a
    property's name or an unknown keyword's value."""
    specification = referencing.jsonschema.specification_with(
        cls.META_SCHEMA.get("$schema", ""), default=referencing.jsonschema.DRAFT202012
    )
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(specification.subresources_of(node))


def check_patterns(schema: Any, cls: type[Validator]) -> None:
    """Compile every ``pattern`` and ``patternProperties`` key of ``schema``'s schema
    objects with RE2, so that a pattern RE2 cannot match is refused with the schema,
    before any data.

    Raises:
        ConfigurationError: As :func:`compiled`.
    """
    for node in schema_objects(schema, cls):
        if isinstance(node.get("pattern"), str):
            compiled(node["pattern"])
        if isinstance(node.get("patternProperties"), dict):
            for pattern in node["patternProperties"]:
                compiled(pattern)


def one_dialect(schema: Any, cls: type[Validator]) -> Any:
    """A copy of ``schema`` without ``$schema`` in its schema objects, so that
    ``jsonschema`` validates every subschema with ``cls`` (see the module docstring)."""
    if not isinstance(schema, dict):
        return schema
    schema = copy.deepcopy(schema)
    for node in schema_objects(schema, cls):
        node.pop("$schema", None)
    return schema


def _pattern(validator: Validator, pattern: str, instance: Any, schema: Any) -> Any:
    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield SchemaViolation(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Validator, patterns: Any, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for name, value in instance.items():
            if search(pattern, name):
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def _additional_properties(validator: Validator, allowed: Any, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        name
        for name in instance
        if name not in properties and not any(search(pattern, name) for pattern in patterns)
    ]
    if validator.is_type(allowed, "object"):
        for name in extras:
            yield from validator.descend(instance[name], allowed, path=name)
    elif not allowed and extras:
        names = ", ".join(repr(name) for name in sorted(extras))
        if patterns:
            verb = "does" if len(extras) == 1 else "do"
            shown = ", ".join(repr(pattern) for pattern in sorted(patterns))
            yield SchemaViolation(f"{names} {verb} not match any of the regexes: {shown}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            message = f"Additional properties are not allowed ({names} {verb} unexpected)"
            yield SchemaViolation(message)


_KEYWORDS = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}


@lru_cache(maxsize=16)
def linear_patterns(cls: type[Validator]) -> type[Validator]:
    """``cls`` (a ``jsonschema`` validator class) with RE2 for the keywords that match
    patterns (those of them its draft has), its messages as ``jsonschema``'s.

    Returns:
        A validator class, one per ``cls`` (cached).
    """
    keywords = {name: rule for name, rule in _KEYWORDS.items() if name in cls.VALIDATORS}
    return validators.extend(cls, keywords)
