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

RE2's syntax is ECMA-262's (JSON Schema 2020-12 §6.4) less lookaround and
backreferences; its ``\\d`` and ``\\w`` are ASCII, as ECMA-262's are. A pattern RE2
cannot compile is the schema's mistake: :class:`~citeloop.errors.ConfigurationError`
names it and the fix.

``unevaluatedProperties`` (Draft 2019-09 and later) still decides which properties
``patternProperties`` matched with :mod:`re`, inside ``jsonschema``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import re2
from jsonschema import validators
from jsonschema.exceptions import ValidationError as SchemaViolation
from jsonschema.protocols import Validator

from citeloop.errors import ConfigurationError

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a bad pattern is reported once, by the error raised


@lru_cache(maxsize=512)
def compiled(pattern: str) -> Any:
    """``pattern`` compiled by RE2 (cached).

    Raises:
        ConfigurationError: RE2 cannot compile it (lookaround, a backreference, a
            repetition over 1,000, a pattern too large); the message names the pattern,
            RE2's reason and the fix.
    """
    try:
        return re2.compile(pattern, options=_OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args else str(exc)
        raise ConfigurationError(
            f"the schema's pattern {pattern!r} cannot be matched in linear time ({reason}); "
            "citeloop matches schema patterns with RE2, which has no lookaround or "
            "backreferences: rewrite the pattern without them"
        ) from None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches anywhere in ``text`` (``re.search``'s rule, which JSON
    Schema's ``pattern`` follows: not anchored), in time linear in ``text``."""
    return compiled(pattern).search(text) is not None


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


_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are data, not schemas: a ``"pattern"`` key inside them is not
a pattern."""
_MAX_NODES = 100_000


def check_patterns(schema: Any) -> None:
    """Compile every ``pattern`` and ``patternProperties`` key of ``schema`` with RE2,
    so that a pattern RE2 cannot match is refused with the schema, before any data.

    Raises:
        ConfigurationError: As :func:`compiled`.
    """
    stack, seen = [schema], 0
    while stack and seen < _MAX_NODES:
        node = stack.pop()
        seen += 1
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        for key, value in node.items():
            if key in _DATA_KEYWORDS:
                continue
            if key == "pattern" and isinstance(value, str):
                compiled(value)
            elif key == "patternProperties" and isinstance(value, Mapping):
                for pattern in value:
                    compiled(pattern)
            stack.append(value)


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
