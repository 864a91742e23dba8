"""Evidence indexes and contract models read from files.

- :func:`evidence_from_jsonl`: one unit per line of a JSONL file of documents; the
  version is a digest of the file's bytes (:func:`file_version`).
- :func:`load_model` and :func:`load_index`: a plan, a result or an index read from a
  JSON file (or an index from JSONL documents), for ``citeloop audit``.

Every error is a :class:`~citeloop.errors.ConfigurationError` that names the file and,
where there is one, the line and the field at fault.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from citeloop.contract.schemas import EvidenceIndex, EvidenceUnit, error_path
from citeloop.errors import TOO_LONG_NUMBER, ConfigurationError
from citeloop.text import listed as listed_names

ModelT = TypeVar("ModelT", bound=BaseModel)

DOCUMENT_FIELDS = ("id", "source", "text", "attributes")
"""The keys a JSONL document may have; ``attributes`` is optional."""

MAX_ERRORS_SHOWN = 10
"""Validation errors listed in one message at most (the count of the rest follows)."""


def listed(values: Iterable[str]) -> str:
    """``values`` for a message: quoted, at most :data:`MAX_ERRORS_SHOWN` and a count of
    the rest (``'a', 'b', ... and 3 more``; :func:`citeloop.text.listed`)."""
    return listed_names(map(repr, values), most=MAX_ERRORS_SHOWN)


MAX_FILE_BYTES = 50_000_000
"""Largest input file read (bounds memory on e.g. ``/dev/zero``)."""


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict, refusing a repeated key (``json`` keeps the last)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        raise _RepeatedKey(next(key for key, _ in pairs if key in seen or seen.add(key)))
    return value


def _json_value(text: str, where: str, *, lines: bool = False) -> Any:
    """``text`` parsed as JSON; an error names ``where`` (and the line, with ``lines``).

    Raises:
        ConfigurationError: Not valid JSON, nested too deeply to parse, holding an
            integer of more digits than Python converts, or an object that repeats a key
            (which copy is meant cannot be told; an audit must not guess).
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except _RepeatedKey as repeated:
        raise ConfigurationError(
            f"{where}: an object repeats the key {repeated.key!r}; keep one of its values"
        ) from None
    except json.JSONDecodeError as error:
        line = f":{error.lineno}" if lines else ""
        raise ConfigurationError(
            f"{where}{line}: not valid JSON ({error.msg}, column {error.colno})"
        ) from None
    except RecursionError:
        raise ConfigurationError(f"{where}: not valid JSON (nested too deeply)") from None
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits)
        raise ConfigurationError(f"{where}: {TOO_LONG_NUMBER}") from None


def _read_bytes(path: Path, what: str) -> bytes:
    try:
        if path.exists() and not path.is_file() and not path.is_dir():
            raise ConfigurationError(f"{what} {str(path)!r} is not a regular file")
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise ConfigurationError(f"{what} {str(path)!r} is larger than {MAX_FILE_BYTES} bytes")
        return data
    except FileNotFoundError:
        raise ConfigurationError(f"{what} {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise ConfigurationError(f"{what} {str(path)!r} is a directory, not a file") from None
    except OSError as error:
        raise ConfigurationError(
            f"{what} {str(path)!r} cannot be read ({error.strerror or error})"
        ) from None


def file_version(data: bytes) -> str:
    """The version of an index read from a file: ``"d-"`` + the first 16 hex digits of
    the SHA-256 of its bytes. Same bytes, same version.

    Example:
        >>> file_version(b"")
        'd-e3b0c44298fc1c14'
    """
    return "d-" + hashlib.sha256(data).hexdigest()[:16]


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _document(value: Any, where: str) -> EvidenceUnit:
    """The unit of one JSONL document; ``where`` is ``"file:line"``."""
    if not isinstance(value, dict):
        raise ConfigurationError(
            f"{where}: a document must be a JSON object with 'id', 'source' and 'text', "
            f"got {_short(value)}"
        )
    extra = [key for key in value if key not in DOCUMENT_FIELDS]
    if extra:
        raise ConfigurationError(
            f"{where}: unknown field {listed(extra)}; a document has only "
            f"{', '.join(map(repr, DOCUMENT_FIELDS))}"
        )
    fields: dict[str, str] = {}
    for name in ("id", "source", "text"):
        if name not in value:
            raise ConfigurationError(f"{where}: field {name!r} is missing")
        field = value[name]
        if not isinstance(field, str):
            raise ConfigurationError(
                f"{where}: field {name!r} must be a string, got {_short(field)}"
            )
        if name != "text" and not field.strip():
            raise ConfigurationError(f"{where}: field {name!r} must not be empty")
        fields[name] = field
    attributes = value.get("attributes", {})
    if attributes is None:
        attributes = {}
    if not isinstance(attributes, dict):
        raise ConfigurationError(
            f"{where}: field 'attributes' must be an object of strings, got {_short(attributes)}"
        )
    for key, item in attributes.items():
        if not isinstance(item, str):
            raise ConfigurationError(
                f"{where}: field 'attributes.{key}' must be a string, got {_short(item)}"
            )
    return EvidenceUnit(**fields, attributes=attributes)


def evidence_from_jsonl(path: str | Path) -> EvidenceIndex:
    """An evidence index of the documents of a JSONL file, one unit per line.

    Each non-blank line is a JSON object ``{"id": ..., "source": ..., "text": ...}``
    with optional ``"attributes"``, an object of string values (``{"subject": "Hamlet",
    "date": "1603"}``); ``id`` and ``source`` are non-empty, other keys are refused.
    The file is UTF-8 (a byte order mark is allowed); blank lines are skipped, but a
    file without a document is refused (an audit against no evidence is surely of the
    wrong file). The version is :func:`file_version` of the file's bytes.

    Args:
        path: The file.

    Returns:
        The index, units in file order.

    Raises:
        ConfigurationError: The file is missing or unreadable, holds no document (it
            is empty, or blank lines only), or a line is not UTF-8, not JSON, not an
            object, lacks a field, has a field of the wrong type or an unknown one, or
            repeats an earlier id; the message names the file, the line (1-based) and the
            field.

    Example:
        >>> import pathlib, tempfile
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> document = '{"id": "d1", "source": "https://a.org", "text": "A."}'
        >>> _ = (folder / "docs.jsonl").write_text(document + "\\n")
        >>> list(evidence_from_jsonl(folder / "docs.jsonl").units)
        ['d1']
    """
    path = Path(path)
    data = _read_bytes(path, "the evidence file")
    units: dict[str, EvidenceUnit] = {}
    first_line: dict[str, int] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        where = f"{path}:{number}"
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ConfigurationError(
                f"{where}: not UTF-8 (byte {error.start + 1} of the line)"
            ) from None
        if not line.strip():
            continue
        unit = _document(_json_value(line, where), where)
        if unit.id in first_line:
            raise ConfigurationError(
                f"{where}: field 'id' repeats {unit.id!r}, already used on line "
                f"{first_line[unit.id]}; ids must be unique"
            )
        first_line[unit.id] = number
        units[unit.id] = unit
    if not units:
        raise ConfigurationError(
            f"the evidence file {str(path)!r} holds no documents (it is empty, or blank "
            'lines only); write one JSON object per line: {"id": ..., "source": ..., '
            '"text": ...}'
        )
    return EvidenceIndex(version=file_version(data), units=units)


def _validation_message(path: Path, error: PydanticValidationError) -> str:
    problems = error.errors(include_url=False, include_input=False)
    lines = [f"  {error_path(problem['loc'])}: {problem['msg']}" for problem in problems]
    more = len(lines) - MAX_ERRORS_SHOWN
    shown = "\n".join(lines[:MAX_ERRORS_SHOWN]) + (f"\n  ... and {more} more" if more > 0 else "")
    count = f"{len(lines)} error{'s' if len(lines) != 1 else ''}"
    return f"{path}: not a valid {error.title} ({count}):\n{shown}"


def load_model(path: str | Path, model_cls: type[ModelT]) -> ModelT:
    """Read a ``model_cls`` (a :class:`~citeloop.contract.schemas.Plan`, an
    :class:`~citeloop.contract.schemas.AnswerResult`, an
    :class:`~citeloop.contract.schemas.EvidenceIndex`, ...) from a JSON file.

    For :class:`~citeloop.contract.schemas.EvidenceIndex`, a ``.jsonl`` file is read
    as documents (:func:`evidence_from_jsonl`).

    Args:
        path: The file, UTF-8 JSON (a byte order mark is allowed).
        model_cls: The pydantic model to validate it as.

    Returns:
        The validated model.

    Raises:
        ConfigurationError: The file is missing, unreadable or empty, is not UTF-8 JSON
            (with the line and column), or does not validate (each pydantic error's
            location, such as ``evidence[0].attributes.date``, and message).
    """
    path = Path(path)
    if model_cls is EvidenceIndex and path.suffix.lower() == ".jsonl":
        return evidence_from_jsonl(path)  # type: ignore[return-value]
    data = _read_bytes(path, f"the {model_cls.__name__} file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConfigurationError(f"{path}: not UTF-8 (byte {error.start + 1})") from None
    if not text.strip():
        raise ConfigurationError(
            f"the {model_cls.__name__} file {str(path)!r} is empty; write the "
            f"{model_cls.__name__} as JSON (e.g. its model_dump_json())"
        )
    value = _json_value(text, str(path), lines=True)
    try:
        return model_cls.model_validate(value)
    except PydanticValidationError as error:
        raise ConfigurationError(_validation_message(path, error)) from None


def load_index(path: str | Path) -> EvidenceIndex:
    """An evidence index from a file: JSONL documents (:func:`evidence_from_jsonl`) when
    the name ends in ``.jsonl``, otherwise a JSON
    :class:`~citeloop.contract.schemas.EvidenceIndex` (:func:`load_model`).

    Raises:
        ConfigurationError: As the reader used.
    """
    return load_model(path, EvidenceIndex)


__all__ = [
    "DOCUMENT_FIELDS",
    "evidence_from_jsonl",
    "file_version",
    "listed",
    "load_index",
    "load_model",
]
