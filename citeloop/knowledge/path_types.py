"""The types of a retrieval path: :class:`RetrievalPath`, its :class:`PathHop` and
:class:`EntityRef`, their JSON form (:meth:`RetrievalPath.to_dict` and
:meth:`RetrievalPath.from_dict`, strict about what it reads) and their text form
(:func:`render_hops`). :mod:`citeloop.knowledge.paths` finds paths in a graph and
re-exports these names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from citeloop.errors import ConfigurationError
from citeloop.knowledge.model import Entity, Provenance

MAX_FACT_ID_CHARS = 256
"""Longest fact id a path may carry (the graph's own are 18 characters): bounds the
prompt and the fact-id scan of a narrative."""

MAX_NAME_CHARS = 512
"""Longest entity name, kind, id or relation a path read by ``from_dict`` may carry
(paths found in the graph carry the graph's names as they are)."""


@dataclass(frozen=True, slots=True)
class EntityRef:
    """A typed reference to an entity: what a path shows of it.

    Attributes:
        kind: The entity kind (``EntityKind`` value, or any string for user paths).
        name: The short name a narrative uses.
        id: The entity id in the graph, when known.
    """

    kind: str
    name: str
    id: str = ""

    @classmethod
    def of(cls, entity: Entity) -> EntityRef:
        return cls(str(entity.kind), entity.name, entity.id)

    def label(self) -> str:
        """``"class StateGraph"``, ``"method StateGraph.compile"`` (a method with its
        class, from the id, since many classes share method names); just the name when
        the kind is empty, or the id a name the indexer could not resolve (``?len``,
        ``?items.values``: its kind is a guess, so none is said)."""
        name = self.name
        if self.id.startswith("?"):
            return self.id[1:] or name
        if self.kind == "method" and self.id.endswith("." + name):
            owner = self.id[: -len(name) - 1].rpartition(".")[2]
            name = f"{owner}.{name}" if owner else name
        return f"{self.kind} {name}" if self.kind else name


@dataclass(frozen=True, slots=True)
class PathHop:
    """One step of a path: the fact followed and the entity reached.

    Attributes:
        entity: The entity this hop reaches.
        fact_id: The id of the fact followed; a narrative must mention it.
        provenance: Where the fact was read from, or ``None``.
        relation: The fact's relation (``"calls"``), or ``""`` when unknown.
        forward: ``True`` when the fact reads previous-entity ``relation`` ``entity``;
            ``False`` when it reads ``entity`` ``relation`` previous-entity.
    """

    entity: EntityRef
    fact_id: str
    provenance: Provenance | None = None
    relation: str = ""
    forward: bool = True

    def __post_init__(self) -> None:
        _bounded(self.fact_id, "fact_id", MAX_FACT_ID_CHARS)
        if any(char in self.fact_id for char in "\r\n\x00"):
            raise ConfigurationError(f"fact_id {self.fact_id!r} contains a line break or NUL")


def _bounded(value: str, where: str, limit: int) -> None:
    if len(value) > limit:
        raise ConfigurationError(
            f"{where} is {len(value)} characters long; at most {limit} are accepted "
            f"(starts {value[:40]!r})"
        )


@dataclass(frozen=True, slots=True)
class RetrievalPath:
    """A chain of facts from ``source``.

    Attributes:
        source: The entity the path starts from.
        hops: The hops, in order; empty for a path that goes nowhere.
        strength: The PathRAG flow that reaches the end, in (0, 1]; 1 for no hops.
    """

    source: EntityRef
    hops: tuple[PathHop, ...] = ()
    strength: float = 1.0

    def __len__(self) -> int:
        return len(self.hops)

    @property
    def target(self) -> EntityRef:
        """The entity the path ends at (the source for an empty path)."""
        return self.hops[-1].entity if self.hops else self.source

    @property
    def fact_ids(self) -> tuple[str, ...]:
        """The fact id of every hop, in order."""
        return tuple(hop.fact_id for hop in self.hops)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` reads it back."""
        return {
            "source": _ref_dict(self.source),
            "hops": [
                {
                    "entity": _ref_dict(hop.entity),
                    "fact_id": hop.fact_id,
                    "relation": hop.relation,
                    "forward": hop.forward,
                    "provenance": None
                    if hop.provenance is None
                    else {
                        "path": hop.provenance.path,
                        "start_line": hop.provenance.start_line,
                        "end_line": hop.provenance.end_line,
                        "digest": hop.provenance.digest,
                    },
                }
                for hop in self.hops
            ],
            "strength": self.strength,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrievalPath:
        """Read a path from :meth:`to_dict`'s shape (as sent by Studio or a JSON file).

        Only ``source.name``, and each hop's ``entity.name`` and ``fact_id``, are
        required; everything else has a default.

        Raises:
            ConfigurationError: Names the first missing or mistyped field.
        """
        if not isinstance(data, Mapping):
            raise ConfigurationError(
                f"a retrieval path must be an object with 'source' and 'hops', "
                f"got {type(data).__name__}"
            )
        hops_data = data.get("hops", [])
        if not isinstance(hops_data, list):
            raise ConfigurationError(
                f"path.hops must be a list of hops, got {type(hops_data).__name__}"
            )
        hops = []
        for index, hop in enumerate(hops_data):
            where = f"path.hops[{index}]"
            if not isinstance(hop, Mapping):
                raise ConfigurationError(f"{where} must be an object, got {type(hop).__name__}")
            provenance = hop.get("provenance")
            hops.append(
                PathHop(
                    entity=_ref_from(hop.get("entity"), f"{where}.entity"),
                    fact_id=_string(
                        hop.get("fact_id"),
                        f"{where}.fact_id",
                        required=True,
                        limit=MAX_FACT_ID_CHARS,
                    ),
                    provenance=None
                    if provenance is None
                    else _provenance_from(provenance, f"{where}.provenance"),
                    relation=_string(hop.get("relation", ""), f"{where}.relation"),
                    forward=_flag(hop.get("forward", True), f"{where}.forward"),
                )
            )
        strength = data.get("strength", 1.0)
        if (
            isinstance(strength, bool)
            or not isinstance(strength, int | float)
            or not 0.0 < strength <= 1.0
        ):
            raise ConfigurationError(f"path.strength must be a number in (0, 1], got {strength!r}")
        return cls(_ref_from(data.get("source"), "path.source"), tuple(hops), float(strength))


def _ref_dict(ref: EntityRef) -> dict[str, str]:
    return {"kind": ref.kind, "name": ref.name, "id": ref.id}


def _string(value: Any, where: str, *, required: bool = False, limit: int = MAX_NAME_CHARS) -> str:
    if required and (not isinstance(value, str) or not value.strip()):
        raise ConfigurationError(f"{where} must be a non-empty string, got {short_repr(value)}")
    if not isinstance(value, str):
        raise ConfigurationError(f"{where} must be a string, got {short_repr(value)}")
    _bounded(value, where, limit)
    return value


def short_repr(value: Any) -> str:
    """``repr(value)``, cut to 80 characters for an error message."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigurationError(f"{where} must be true or false, got {value!r}")
    return value


def _ref_from(value: Any, where: str) -> EntityRef:
    if isinstance(value, str):
        return EntityRef("", _string(value, where, required=True))
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"{where} must be an object with 'name' (and 'kind', 'id'), got {value!r}"
        )
    return EntityRef(
        _string(value.get("kind", ""), f"{where}.kind"),
        _string(value.get("name"), f"{where}.name", required=True),
        _string(value.get("id", ""), f"{where}.id"),
    )


def _line(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{where} must be a line number >= 1, got {value!r}")
    return value


def _provenance_from(value: Any, where: str) -> Provenance:
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"{where} must be an object with 'path' and 'start_line' (and 'end_line', "
            f"'digest'), or null; got {value!r}"
        )
    start = _line(value.get("start_line"), f"{where}.start_line")
    end = _line(value.get("end_line", start), f"{where}.end_line")
    if end < start:
        raise ConfigurationError(f"{where}.end_line {end} is before start_line {start}")
    return Provenance(
        _string(value.get("path"), f"{where}.path", required=True),
        start,
        end,
        _string(value.get("digest", ""), f"{where}.digest"),
    )


def coerce_path(value: RetrievalPath | Mapping[str, Any]) -> RetrievalPath:
    """A :class:`RetrievalPath` from itself or from its JSON dict.

    Raises:
        ConfigurationError: ``value`` is neither.
    """
    return value if isinstance(value, RetrievalPath) else RetrievalPath.from_dict(value)


def describe_hop(previous: EntityRef, hop: PathHop) -> str:
    """The hop's fact as a sentence fragment: ``"class A inherits class B"``.

    Without a relation, just the entity reached.
    """
    if not hop.relation:
        return hop.entity.label()
    subject, object_ = (previous, hop.entity) if hop.forward else (hop.entity, previous)
    return f"{subject.label()} {hop.relation} {object_.label()}"


def render_hops(path: RetrievalPath, limit: int | None = None) -> str:
    """The path as numbered lines, one per hop: fact id, the fact, and the provenance
    marker only when the hop has one::

        1. [f-0123456789abcdef] class StateGraph defines method compile (graph/state.py:8)

    Args:
        path: The path.
        limit: Render only the first ``limit`` hops (``None``: all).
    """
    lines = []
    previous = path.source
    for number, hop in enumerate(path.hops[:limit], start=1):
        marker = f" ({hop.provenance.marker()})" if hop.provenance is not None else ""
        lines.append(f"{number}. [{hop.fact_id}] {describe_hop(previous, hop)}{marker}")
        previous = hop.entity
    return "\n".join(lines)


__all__ = [
    "MAX_FACT_ID_CHARS",
    "MAX_NAME_CHARS",
    "EntityRef",
    "PathHop",
    "RetrievalPath",
    "coerce_path",
    "describe_hop",
    "render_hops",
]
