"""Validate data against a JSON Schema, reporting every failing path.

:func:`validate_structure` uses ``jsonschema`` (https://python-jsonschema.readthedocs.io/)
with the validator class the schema's ``$schema`` names (Draft 2020-12 when it names none
or one ``jsonschema`` does not know, as ``jsonschema`` itself does). The schema is checked
against its meta-schema first: an invalid schema is the caller's mistake
(:class:`~citeloop.errors.ConfigurationError`), invalid data is the model's
(:class:`~citeloop.errors.ValidationError`). ``format`` is an annotation, as Draft
2020-12 §7.2.1 says, unless ``check_formats=True``.

Failing paths are JSONPath normalized paths (RFC 9535 §2.7); the schema engine is
:mod:`citeloop.checks.schema`.

Error contract: :func:`validate_structure` raises (a schema-level check);
:func:`structure_check` wraps it, with :func:`~citeloop.checks.json_output.extract_json`
in front, as a :class:`~citeloop.checks.check.Check` that never raises on odd text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from citeloop.checks.check import Check, CheckOutcome, OnFail, failed
from citeloop.checks.json_output import (
    extract_json,
    json_problem,
    truncation_problem,
)
from citeloop.checks.schema import compile_schema, schema_problems, validate_with
from citeloop.errors import ValidationError


def validate_structure(
    data: Any, schema: Mapping[str, Any] | bool, *, check_formats: bool = False
) -> Literal[True]:
    """Validate ``data`` against a JSON Schema; report every failing path.

    Args:
        data: Parsed JSON (dicts, lists, str, int, float, bool, ``None``).
        schema: A JSON Schema (a mapping, or ``True``/``False``); its ``$schema``
            picks the draft, Draft 2020-12 by default.
        check_formats: Assert ``format`` keywords (default: annotations only).

    Returns:
        ``True`` when ``data`` is valid (the source design 002's contract: true or
        raise).

    Raises:
        ValidationError: ``data`` does not match. ``details["errors"]`` lists every
            failing path, sorted by path: ``[{"path": "$.a[0].b", "message": ...,
            "keyword": "type"}, ...]``; ``details["reason"]`` is ``"schema"`` (or
            ``"too_deep"`` when the data is too deeply nested to validate).
        ConfigurationError: ``schema`` is not a valid JSON Schema, or has a ``$ref`` that
            cannot be resolved.

    Example:
        >>> schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        >>> validate_structure({"n": 1}, schema)
        True
        >>> try:
        ...     validate_structure({"n": "x"}, schema)
        ... except ValidationError as exc:
        ...     print(exc.details["errors"][0]["path"], exc.details["errors"][0]["keyword"])
        $.n type
    """
    validate_with(compile_schema(schema, check_formats=check_formats), data)
    return True


def structure_check(
    schema: Mapping[str, Any] | bool,
    on_fail: OnFail | str = "reask",
    *,
    check_formats: bool = False,
    name: str = "structure",
) -> Check:
    """A :class:`Check` that the JSON in the output matches a JSON Schema.

    The JSON is found with :func:`~citeloop.checks.json_output.extract_json`, so a
    fenced, wrapped or repaired value is judged by its content; a value that was cut off
    fails (its missing items cannot be judged). Use
    :func:`~citeloop.checks.json_output.json_check` to also require that the output
    is the JSON alone. ``fixed`` is never set: a value that does not match the schema
    cannot be repaired without guessing. ``outcome.value`` is the parsed value.

    Args:
        schema: The JSON Schema; checked once, here.
        on_fail: The failure policy.
        check_formats: Assert ``format`` keywords.
        name: The check's name.

    Returns:
        The check.

    Raises:
        ConfigurationError: An invalid schema or policy.

    Example:
        >>> check = structure_check({"type": "array", "items": {"type": "integer"}})
        >>> check("Here: [1, 2, 3]").passed
        True
        >>> [problem.details["path"] for problem in check('["a", 2, "b"]').problems]
        ['$[0]', '$[2]']
    """
    validator = compile_schema(schema, check_formats=check_formats)

    def check_structure(text: str) -> CheckOutcome:
        try:
            found = extract_json(text)
        except ValidationError as exc:
            return failed(name, [json_problem(exc)])
        problems = schema_problems(validator, found.value)
        if found.truncated:
            problems.insert(0, truncation_problem(found))
        if problems:
            return failed(name, problems, value=found.value)
        return CheckOutcome(name, True, value=found.value)

    return Check(name, check_structure, on_fail)
