"""Compile JSON Schemas and list every failing path: the engine under
:func:`citeloop.checks.structure.validate_structure` and the ``schema`` argument of
:func:`citeloop.checks.json_output.json_check`.

Schemas are compiled with ``jsonschema`` (https://python-jsonschema.readthedocs.io/)
using the validator class the schema's ``$schema`` names (Draft 2020-12 when it names
none or one ``jsonschema`` does not know, as ``jsonschema`` itself does), after a check
against the meta-schema: an invalid schema is the caller's mistake
(:class:`~citeloop.errors.ConfigurationError`), invalid data is the model's
(:class:`~citeloop.errors.ValidationError`). Patterns are matched with RE2, in time
linear in the text (:mod:`citeloop.checks.schema_patterns`).

Failing paths are JSONPath normalized paths (RFC 9535 §2.7,
https://www.rfc-editor.org/rfc/rfc9535#section-2.7) in the usual shorthand:
``$.items[0].name``, with bracket notation for names that are not identifiers
(``$['first name']``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.exceptions import ValidationError as SchemaViolation
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry
from referencing.exceptions import Unresolvable

from citeloop.checks.check import Problem
from citeloop.checks.schema_patterns import (
    check_patterns,
    linear_patterns,
    one_dialect,
    schema_objects,
)
from citeloop.errors import ConfigurationError, ValidationError

MAX_MESSAGE_CHARS = 300
"""Longest error message kept per path; longer ones (a big instance's repr) are cut."""
MAX_CHECK_PROBLEMS = 50
"""Most schema problems a check outcome lists; the last one counts the rest."""

# RFC 9535 member-name-shorthand: name-first (ALPHA, "_", non-ASCII) then name-chars.
_SHORTHAND = re.compile(r"[A-Za-z_\u0080-\U0010ffff][A-Za-z0-9_\u0080-\U0010ffff]*+")
_SUMMARY_ERRORS = 3


def json_path(path: Iterable[str | int]) -> str:
    """The JSONPath (RFC 9535 normalized path, shorthand where it can) of a path.

    Args:
        path: Object member names and array indices from the root.

    Returns:
        ``"$"`` for the root, e.g. ``"$.a[0].b"`` or ``"$['a b']"``.

    Example:
        >>> json_path(["items", 0, "first name"])
        "$.items[0]['first name']"
    """
    parts = ["$"]
    for part in path:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif _SHORTHAND.fullmatch(part):
            parts.append(f".{part}")
        else:
            # RFC 9535 §2.7: single quotes; escape backslash, quote and control characters.
            quoted = json.dumps(part, ensure_ascii=False)[1:-1]
            parts.append("['" + quoted.replace('\\"', '"').replace("'", "\\'") + "']")
    return "".join(parts)


def _path_key(path: Iterable[str | int]) -> tuple[tuple[int, int, str], ...]:
    # Indices sort as numbers, before names; a str and an int never meet in a comparison.
    return tuple((0, part, "") if isinstance(part, int) else (1, 0, part) for part in path)


def _short(message: str) -> str:
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    half = MAX_MESSAGE_CHARS // 2
    return message[:half] + " … " + message[-half:]


def compile_schema(schema: Mapping[str, Any] | bool, *, check_formats: bool = False) -> Validator:
    """A ``jsonschema`` validator for ``schema``, after checking the schema itself.

    Args:
        schema: A JSON Schema: a mapping, or ``True``/``False``.
        check_formats: Assert ``format`` (``"date"``, ``"email"``, ...) with the
            validator class's format checker instead of treating it as an annotation.

    Returns:
        A validator of the class the schema's ``$schema`` names (default Draft 2020-12),
        its patterns matched in linear time
        (:func:`~citeloop.checks.schema_patterns.linear_patterns`).

    Raises:
        ConfigurationError: ``schema`` is not a mapping or a bool, is not a valid
            schema for its draft (the message names the failing schema path), is nested
            too deeply to be checked, has a ``$ref`` to an outside URI (it would have
            to be fetched), or a pattern RE2 cannot match (lookaround, backreferences).
    """
    if not isinstance(schema, Mapping | bool):
        raise ConfigurationError(
            f"schema must be a JSON Schema (a dict or a bool), got {type(schema).__name__}"
        )
    if isinstance(schema, Mapping) and not isinstance(schema, dict):
        schema = dict(schema)
    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = json_path(exc.absolute_path)
        raise ConfigurationError(
            f"the schema is not a valid {cls.__name__.removesuffix('Validator')} JSON Schema "
            f"at {where}: {_short(exc.message)}; fix the schema"
        ) from None
    except RecursionError:
        raise ConfigurationError("the schema is nested too deeply to be checked") from None
    _check_refs(schema, cls)
    check_patterns(schema, cls)
    format_checker = cls.FORMAT_CHECKER if check_formats else None
    # An empty registry: a $ref is resolved inside the schema only, never fetched
    # (jsonschema's deprecated automatic retrieval would follow http and file URLs).
    return linear_patterns(cls)(
        one_dialect(schema, cls), format_checker=format_checker, registry=Registry()
    )


def _check_refs(schema: Mapping[str, Any] | bool, cls: type[Validator]) -> None:
    """Refuse a ``$ref`` of a schema object to an absolute URI that no ``$id`` of the
    schema defines: it could only be resolved by fetching it (an internal address, a
    local file).

    Raises:
        ConfigurationError: Names the reference and how to fix the schema.
    """
    refs: list[str] = []
    ids: set[str] = set()
    for node in schema_objects(schema, cls):
        refs += [node[key] for key in ("$ref", "$dynamicRef") if isinstance(node.get(key), str)]
        if isinstance(node.get("$id"), str):
            ids.add(node["$id"].split("#", 1)[0].rstrip("/"))
    for ref in refs:
        target = ref.split("#", 1)[0].rstrip("/")
        if ":" in target and target not in ids:
            raise ConfigurationError(
                f"the schema's $ref {_short(ref)} points outside the schema; citeloop never "
                "fetches schemas: embed the referenced schema under $defs and refer to it "
                "as '#/$defs/...'"
            )


def _errors(validator: Validator, data: Any) -> list[dict[str, str]]:
    """Every failing path of ``data``, sorted by path: ``[{"path", "message", "keyword"}]``."""
    try:
        violations: list[SchemaViolation] = list(validator.iter_errors(data))
    except Unresolvable as exc:
        raise ConfigurationError(f"the schema has a $ref that cannot be resolved: {exc}") from None
    except RecursionError:
        raise ValidationError(
            "the data is nested too deeply to be validated against the schema",
            reason="too_deep",
            errors=[],
        ) from None
    except ValueError as exc:  # an error's message shows an integer of too many digits
        if "integer string conversion" not in str(exc):
            raise
        raise ValidationError(
            f"the data holds an integer too long to be validated against the schema "
            f"(Python shows at most {sys.get_int_max_str_digits()} digits)",
            reason="number_too_long",
            errors=[],
        ) from None
    violations.sort(key=lambda violation: _path_key(violation.absolute_path))
    return [
        {
            "path": json_path(violation.absolute_path),
            "message": _short(_as_json(violation)),
            "keyword": "false" if violation.validator is None else str(violation.validator),
        }
        for violation in violations
    ]


def _as_json(violation: SchemaViolation) -> str:
    """jsonschema's message, the value it starts with written as the JSON the model
    wrote (``null``, ``false``), not as Python (``None``, ``False``)."""
    message = violation.message
    try:
        shown = repr(violation.instance)
        if not message.startswith(shown):
            return message
        written = json.dumps(violation.instance, ensure_ascii=False)
        if not written.isascii():
            try:
                written.encode()
            except UnicodeEncodeError:  # a lone surrogate stays escaped, as JSON wrote it
                written = json.dumps(violation.instance)
        return written + message[len(shown) :]
    except (TypeError, ValueError):  # not JSON data, or too long to show
        return message


def _mismatch(errors: list[dict[str, str]]) -> ValidationError:
    shown = "; ".join(f"{error['path']}: {error['message']}" for error in errors[:_SUMMARY_ERRORS])
    more = len(errors) - _SUMMARY_ERRORS
    summary = shown + (f"; and {more} more" if more > 0 else "")
    noun = "error" if len(errors) == 1 else "errors"
    return ValidationError(
        f"the data does not match the JSON Schema ({len(errors)} {noun}): {summary}",
        reason="schema",
        errors=errors,
    )


def validate_with(validator: Validator, data: Any) -> Any:
    """:func:`validate_structure` with a validator :func:`compile_schema` already built.

    Raises:
        ValidationError: As :func:`validate_structure`.
        ConfigurationError: The schema has a ``$ref`` that cannot be resolved.
    """
    errors = _errors(validator, data)
    if errors:
        raise _mismatch(errors)
    return data


def schema_problems(validator: Validator, data: Any) -> list[Problem]:
    """One :class:`Problem` per failing path (at most :data:`MAX_CHECK_PROBLEMS`).

    Raises:
        ConfigurationError: The schema has a ``$ref`` that cannot be resolved.
    """
    try:
        errors = _errors(validator, data)
    except ValidationError as exc:
        fix = (
            "Write the number as a string, or a shorter number."
            if exc.details.get("reason") == "number_too_long"
            else "Return a flatter value."
        )
        return [Problem(str(exc), "JSON that matches the schema", fix)]
    problems = [
        Problem(
            f"{error['path']}: {error['message']}",
            f"the value at {error['path']} to satisfy the schema's '{error['keyword']}'",
            f"Change the value at {error['path']} so that it satisfies '{error['keyword']}'.",
            dict(error),
        )
        for error in errors[:MAX_CHECK_PROBLEMS]
    ]
    if len(errors) > MAX_CHECK_PROBLEMS:
        more = len(errors) - MAX_CHECK_PROBLEMS
        problems.append(
            Problem(
                f"and {more} more schema errors",
                "JSON that matches the schema",
                "Check every field against the schema.",
                {"more": more},
            )
        )
    return problems
