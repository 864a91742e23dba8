"""The input files of ``citeloop check``: a saved context (``context --json`` or ``run
--json`` output, or context text) and the response to check.

Standard library only, like :mod:`citeloop.cli_common`: ``check`` starts fast.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any, NamedTuple

from citeloop.cli_common import UsageError, read_text
from citeloop.errors import TOO_LONG_NUMBER


class SavedContext(NamedTuple):
    """A context file as ``check`` reads it."""

    context: Any
    """The entities of a JSON context (a list of dicts), or the context text."""
    shown: str
    """The context text a JSON context holds, else ``""``: the names its lines show (an
    excerpt's code) are grounded, as when it is text."""
    task: str
    """The task a JSON context was built for (``"task"``, as ``context --json`` and
    ``run --json`` print it), else ``""``: the names it writes are grounded, and a bare
    name it writes is one requirement, as in the run."""
    payload: str
    """The payload of a ``run --json`` output (``"payload"``), else ``""``: the names it
    writes are grounded too."""


def load_context(path: str) -> SavedContext:
    """JSON with an ``entities`` list (text starting with ``{``), or context text; and
    the context text a JSON context holds (``context --json``'s ``text``, ``run
    --json``'s ``context_text``), else ``""``; and its task and payload, else none."""
    text = read_text(path, "context")
    # Decided by content, not by name: `--context <(citeloop context --json)` has none.
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise UsageError(f"context file {path!r} is not valid JSON: {exc}") from None
        except ValueError:  # an integer past Python's limit on digits
            raise UsageError(f"context file {path!r}: {TOO_LONG_NUMBER}") from None
        # `context --json` prints "entities"; `run --json` prints "context_entities".
        key = "entities" if isinstance(data, dict) and "entities" in data else "context_entities"
        if not isinstance(data, dict) or not isinstance(data.get(key), list):
            raise UsageError(
                f'context file {path!r} must hold {{"entities": [...]}} (as printed by '
                '`citeloop context --json`) or {"context_entities": [...]} (as printed by '
                "`citeloop run --json`), or be context text"
            )
        text_key = "text" if key == "entities" else "context_text"
        for field, what in ((text_key, "context"), ("task", "task"), ("payload", "payload")):
            if data.get(field) is not None and not isinstance(data[field], str):
                raise UsageError(
                    f'context file {path!r}: "{field}" must be the {what} text (a string), '
                    f"got {type(data[field]).__name__}; write it as printed, or leave it out"
                )
        _check_entities(data[key], key, path)
        return SavedContext(
            data[key], data.get(text_key) or "", data.get("task") or "", data.get("payload") or ""
        )
    return SavedContext(text, "", "", "")


_TEXT_FIELDS = ("name", "kind", "tier", "id", "path", "signature", "summary", "reason")
"""The fields of a saved context's entity that hold text (or null)."""


def _check_entities(entities: list[Any], key: str, path: str) -> None:
    """Refuse an entity of a saved context with a field the validator would misread or
    silently drop: text that is not a string, a ``line``/``end_line`` that is not a line
    number (``"x"``, ``1.5``, ``true``, ``NaN``, ``1e400``), a span that ends before it
    starts, a ``score`` that is not a finite number.

    Raises:
        UsageError: Naming the file, the entity (``entities[3] ('Cart')``), the field
            and the fix.
    """
    for position, entity in enumerate(entities):
        if not isinstance(entity, dict):
            continue  # a bare name, or no entity at all: the validator says which
        name = entity.get("name")
        where = f"context file {path!r}: {key}[{position}]"
        where += f" ({name[:60]!r})" if isinstance(name, str) else ""
        for field in _TEXT_FIELDS:
            value = entity.get(field)
            if value is not None and not isinstance(value, str):
                raise UsageError(
                    f'{where}: "{field}" must be a string, got {type(value).__name__}; '
                    "write it as `citeloop context --json` prints it"
                    + (", or leave it out" if field != "name" else "")
                )
        line, end_line = entity.get("line"), entity.get("end_line")
        for field, value in (("line", line), ("end_line", end_line)):
            if value is not None and not (type(value) is int and value >= 1):
                raise UsageError(
                    f'{where}: "{field}" must be a line number (a whole number, 1 or more), '
                    f"got {_as_json(value)}; write the line, or null when it is not known"
                )
        if line is not None and end_line is not None and end_line < line:
            raise UsageError(
                f'{where}: "end_line" {end_line} is before "line" {line}; write the last '
                "line of the definition (at least its first), or null"
            )
        score = entity.get("score")
        if score is not None and not (type(score) in (int, float) and math.isfinite(score)):
            raise UsageError(
                f'{where}: "score" must be a finite number, got {_as_json(score)}; '
                "write it as printed, or leave it out"
            )


def _as_json(value: Any) -> str:
    """``value`` as JSON writes it (``NaN``, ``Infinity`` for ``1e400``), cut to 40
    characters for an error message; an object or array by its kind."""
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "an array"
    text = json.dumps(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def answer_of(text: str, path: str) -> str:
    """The response to check: ``text``, or the ``answer`` of a ``run --json`` output (a
    note on stderr says so), so that one run's output can be checked as it was judged.
    Other JSON is an answer written as JSON, checked as it is."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # an answer that starts with "{" is an answer
        return text
    if isinstance(data, dict) and "outcome" in data and "answer" in data:
        if not isinstance(data["answer"], str):
            raise UsageError(
                f"response file {path!r} is a run output without an answer (outcome: "
                f"{str(data['outcome'])[:40]!r}); pass the output of a run that answered"
            )
        print(f"note: checking the answer of the run output {path}", file=sys.stderr)
        return data["answer"]
    return text
