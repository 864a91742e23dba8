"""Runtime settings of the graphs (``context_schema``), shown in LangGraph Studio."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, TypeVar

from citeloop.errors import ConfigurationError
from citeloop.knowledge.model import DEFAULT_MAX_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS

MAX_RETRIES = 100
"""Upper bound of ``max_retries``: a run stays far inside LangGraph's recursion limit."""

# Annotations are strings (PEP 563); bool is excluded from int and float on purpose.
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "int | None": (int, type(None)),
}


def check_field_types(settings: Any) -> None:
    """Raise a clear error when a context field has the wrong JSON type.

    Contexts often arrive as JSON from Studio or the server, where ``"3"`` or ``null``
    would otherwise fail deep inside a node.

    Raises:
        ConfigurationError: Names the field, the expected type and the value given.
    """
    for item in fields(settings):
        expected = _FIELD_TYPES.get(str(item.type))
        value = getattr(settings, item.name)
        wrong_bool = isinstance(value, bool) and bool not in (expected or ())
        if expected and (not isinstance(value, expected) or wrong_bool):
            raise ConfigurationError(
                f"context field {item.name!r} must be of type {item.type}, got {value!r}"
            )


Settings = TypeVar("Settings")


def named_fields_only(cls: type[Settings]) -> type[Settings]:
    """Class decorator for a settings dataclass: a keyword that is none of its fields
    raises :class:`ConfigurationError` naming it, the closest field and all of them.

    LangGraph builds the context of ``invoke(..., context={...})`` as ``cls(**mapping)``;
    a misspelled key (``max_retires``) would otherwise be a bare ``TypeError`` from the
    dataclass ``__init__``.
    """
    init: Callable[..., None] = cls.__init__  # type: ignore[misc]
    names = [item.name for item in fields(cls)]  # type: ignore[arg-type]

    @functools.wraps(init)
    def __init__(self: Any, **values: Any) -> None:
        for key in values:
            if key not in names:
                import difflib  # only for the error: every command imports this module

                close = difflib.get_close_matches(str(key), names, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ConfigurationError(
                    f"{cls.__name__} has no field {key!r}{hint} (its fields: {', '.join(names)})"
                )
        init(self, **values)

    cls.__init__ = __init__  # type: ignore[misc]
    return cls


DEFAULT_MODEL = "openai:gpt-4o-mini"
"""The chat model a graph uses when its run names none (the ``model`` setting's default)."""


def _model_field() -> Any:
    """The ``model`` setting the graphs share."""
    return field(
        default=DEFAULT_MODEL,
        metadata={
            "description": "Chat model as 'provider:model' (resolved with init_chat_model) "
            "or 'replay:PATH' (recorded turns). Ignored when the graph was built with a "
            "chat model object."
        },
    )


def resolve_context(value: Any, cls: type[Settings]) -> Settings:
    """The run's settings as ``cls``.

    ``None`` (no context given) gives the defaults; a ``cls`` is used as it is. As a
    subgraph, a graph receives its parent's context: a mapping, or the parent's own
    settings object. Then the fields of ``cls`` are taken from the same-named keys or
    attributes, and the rest, which belong to the parent, are left alone.

    Raises:
        ConfigurationError: ``value`` is none of these (e.g. a string), or a field's
            value is invalid.
    """
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    names = [item.name for item in fields(cls)]  # type: ignore[arg-type]
    if isinstance(value, Mapping):
        chosen = {name: value[name] for name in names if name in value}
        _warn_of_misspellings(cls, [key for key in value if key not in chosen], names)
    elif hasattr(value, "__dict__") or hasattr(value, "__slots__"):
        chosen = {name: getattr(value, name) for name in names if hasattr(value, name)}
        _warn_of_misspellings(cls, [key for key in _attributes(value) if key not in chosen], names)
    else:
        raise ConfigurationError(
            f"the run's context must be a {cls.__name__} or a mapping of its fields "
            f"({', '.join(names)}), got {type(value).__name__}"
        )
    return cls(**chosen)


def _attributes(value: Any) -> list[str]:
    """The public attribute names of a parent's settings object: its dataclass fields,
    or its instance attributes and slots."""
    if is_dataclass(value):
        return [item.name for item in fields(value)]
    names: list[Any] = list(getattr(value, "__dict__", {}))
    for klass in type(value).__mro__:
        slots = getattr(klass, "__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    return [name for name in names if isinstance(name, str) and not name.startswith("_")]


MISSPELLING_CUTOFF = 0.8
"""How alike (:class:`difflib.SequenceMatcher` ratio, 0 to 1) a parent's context key
and a field's name must be for the key to read as that field misspelled."""

_keys_read: set[tuple[str, str]] = set()
"""The parent's context keys read for each settings class: each is read once."""


def _warn_of_misspellings(cls: type, keys: list[Any], names: list[str]) -> None:
    """Log a warning (once per key and class) for each of a parent's context ``keys``
    that reads as a misspelled field of ``cls`` (``max_retry``): it belongs to the
    parent, so it is left alone, but the field keeps its default. Every node of a run
    resolves its context: a key is compared with the fields the first time only."""
    new = [key for key in keys if (cls.__name__, str(key)) not in _keys_read]
    if not new:
        return
    import difflib  # only when a parent's context has keys of its own: every command
    import logging  # imports this module, and neither is needed otherwise

    for key in new:
        _keys_read.add((cls.__name__, str(key)))
        close = difflib.get_close_matches(str(key), names, n=1, cutoff=MISSPELLING_CUTOFF)
        if close:
            logging.getLogger(__name__).warning(
                "the run's context key %r is no %s field (did you mean %r?): it is left "
                "to the parent graph, and %r keeps its default; give the parent "
                "context_schema=%s to have such keys refused",
                key,
                cls.__name__,
                close[0],
                close[0],
                cls.__name__,
            )


@named_fields_only
@dataclass(kw_only=True)
class GroundedAnswerContext:
    """Runtime settings of the ``grounded_answer`` graph.

    Pass as ``graph.invoke(inputs, context=GroundedAnswerContext(...))`` (or a dict of
    these fields from LangGraph Studio / the server's run ``context``).
    """

    model: str = _model_field()
    db_path: str = field(
        default="citeloop.db",
        metadata={"description": "SQLite knowledge-graph file written by `citeloop index`."},
    )
    max_retries: int = field(
        default=2,
        metadata={
            "description": f"Re-asks after the first answer fails validation (0..{MAX_RETRIES})."
        },
    )
    reference_threshold: float = field(
        default=0.5,
        metadata={
            "description": "Share of core public entities the answer body must reference (0..1)."
        },
    )
    require_citations: bool = field(
        default=True,
        metadata={
            "description": "Require an 'Entities used' section citing every core entity, "
            "with no invalid citation."
        },
    )
    hops: int = field(
        default=2,
        metadata={
            "description": "Depth of the graph neighbourhood ranked around what the task "
            "names (deeper on retry)."
        },
    )
    max_context_tokens: int = field(
        default=DEFAULT_MAX_CONTEXT_TOKENS,
        metadata={"description": "Token budget of the first attempt's context (raised on retry)."},
    )
    max_entities: int | None = field(
        default=None,
        metadata={
            "description": "Optional cap on the entities of the first attempt's context "
            "(raised on retry); none by default: the token budget decides."
        },
    )
    fail_on_invented: bool = field(
        default=True,
        metadata={
            "description": "Fail an answer whose body names code that is in neither the "
            "context, the prompt, Python, nor the knowledge graph."
        },
    )
    require_locations: bool = field(
        default=False,
        metadata={
            "description": "Require a `path:line` location on every citation (a location "
            "given is always checked against the entity's file and lines)."
        },
    )
    max_total_tokens: int | None = field(
        default=None,
        metadata={
            "description": "Tokens the run's model calls may spend in all (the model's "
            "usage, else an estimate); a call that would exceed it is not made and the run "
            "ends with outcome budget_exhausted. None: no limit."
        },
    )
    rewrite_query: bool = field(
        default=False,
        metadata={
            "description": "Before the first context, ask the chat model which classes, "
            "functions and methods the task is about (one more call, counted in tokens); "
            "those the graph has seed the context. Finds code a task paraphrases."
        },
    )

    def __post_init__(self) -> None:
        check_field_types(self)
        if self.max_total_tokens is not None and self.max_total_tokens < 1:
            raise ConfigurationError(
                f"max_total_tokens must be >= 1 or None, got {self.max_total_tokens}"
            )
        if not 0 <= self.max_retries <= MAX_RETRIES:
            raise ConfigurationError(
                f"max_retries must be within 0..{MAX_RETRIES}, got {self.max_retries}"
            )
        if not 0.0 <= self.reference_threshold <= 1.0:
            raise ConfigurationError(
                f"reference_threshold must be within [0, 1], got {self.reference_threshold}"
            )
        if self.hops < 0:
            raise ConfigurationError(f"hops must be >= 0, got {self.hops}")
        if not 1 <= self.max_context_tokens <= MAX_CONTEXT_TOKENS:
            raise ConfigurationError(
                f"max_context_tokens must be within 1..{MAX_CONTEXT_TOKENS:,}, "
                f"got {self.max_context_tokens}"
            )
        if self.max_entities is not None and self.max_entities < 1:
            raise ConfigurationError(f"max_entities must be >= 1 or None, got {self.max_entities}")


MAX_ITERATIONS = 100
"""Upper bound of ``max_iterations``."""

MAX_PATH_HOPS = 256
"""Upper bound of ``max_path_hops``: keeps the prompt bounded whatever path arrives."""


@named_fields_only
@dataclass(kw_only=True)
class VerbalizeContext:
    """Runtime settings of the ``verbalize`` graph.

    Pass as ``graph.invoke(inputs, context=VerbalizeContext(...))`` (or a dict of these
    fields from LangGraph Studio / the server's run ``context``).
    """

    model: str = _model_field()
    max_iterations: int = field(
        default=2,
        metadata={
            "description": "Critiques that may fail (1.."
            f"{MAX_ITERATIONS}); the loop refines only while fewer have failed."
        },
    )
    max_path_hops: int = field(
        default=64,
        metadata={
            "description": f"Longest path accepted, in hops (1..{MAX_PATH_HOPS}); a longer "
            "path is refused before any model call."
        },
    )

    def __post_init__(self) -> None:
        check_field_types(self)
        if not 1 <= self.max_iterations <= MAX_ITERATIONS:
            why = (
                " (it counts the critiques that may fail, so 0 would never let a draft be checked)"
                if self.max_iterations < 1
                else ""
            )
            raise ConfigurationError(
                f"max_iterations must be within 1..{MAX_ITERATIONS}, got {self.max_iterations}{why}"
            )
        if not 1 <= self.max_path_hops <= MAX_PATH_HOPS:
            raise ConfigurationError(
                f"max_path_hops must be within 1..{MAX_PATH_HOPS}, got {self.max_path_hops}"
            )


@named_fields_only
@dataclass(kw_only=True)
class OutputGuardContext:
    """Runtime settings of the ``output_guard`` graph.

    The check fields build the default checks, used when the graph was built without
    ``checks=`` (as the graph registered for Studio is): the response mode's checks,
    then sections, on-topic signals and repetition when set.
    """

    model: str = _model_field()
    max_retries: int = field(
        default=2,
        metadata={
            "description": f"Re-asks after the first output fails a check (0..{MAX_RETRIES})."
        },
    )
    mode: str = field(
        default="standard",
        metadata={
            "description": "Response mode of the default checks: short, long, structured "
            "(JSON, with json_schema when given), raw or standard."
        },
    )
    json_schema: dict[str, Any] | None = field(
        default=None,
        metadata={"description": "JSON Schema the output must match (mode 'structured')."},
    )
    required_sections: list[str] = field(
        default_factory=list,
        metadata={"description": "Markdown sections the output must have, e.g. ['Risks']."},
    )
    on_topic_signals: list[str] = field(
        default_factory=list,
        metadata={
            "description": "Words or phrases at least one of which an on-topic output contains."
        },
    )
    check_repetition: bool = field(
        default=True,
        metadata={
            "description": "Flag repeated sections and degenerate loops (fixed when "
            "possible, else re-asked)."
        },
    )

    def __post_init__(self) -> None:
        check_field_types(self)
        if not 0 <= self.max_retries <= MAX_RETRIES:
            raise ConfigurationError(
                f"max_retries must be within 0..{MAX_RETRIES}, got {self.max_retries}"
            )
        for name in ("required_sections", "on_topic_signals"):
            value = getattr(self, name)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigurationError(
                    f"context field {name!r} must be a list of strings, got {value!r}"
                )
        if self.json_schema is not None and not isinstance(self.json_schema, dict):
            raise ConfigurationError(
                f"context field 'json_schema' must be a JSON Schema object, got "
                f"{type(self.json_schema).__name__}"
            )


@named_fields_only
@dataclass(kw_only=True)
class DeliveryAuditContext:
    """Runtime settings of the ``delivery_audit`` graph."""

    model: str = field(
        default=DEFAULT_MODEL,
        metadata={
            "description": "Auditing chat model as 'provider:model' (structured output) or "
            "'replay:PATH' (recorded reviews as JSON text). Ignored when the graph was "
            "built with a chat model object."
        },
    )

    def __post_init__(self) -> None:
        check_field_types(self)
