"""Parse entity names back out of context text in the documented format.

The format (rendered by ``citeloop.knowledge.ContextInjector``, or written by hand)::

    # path/to/module.py                           a file's heading: names nothing
    class Name(Base, ...)  # L12-80 @dataclass — Summary.
    def function_name(arg: int = 1) -> str  # L40-52 — Summary.
    ClassName.method(x) -> None  # L55            (or ClassName.method())
    async ClassName.get() -> Msg  # L60          (``async def fetch()`` likewise)
    ClassName.attribute: int = 3  # L20
    ClassName members: size L84, run() L90; not shown: 3 more
    module members: helper() L70, Other L75    (under a file heading: its other code)
    NAME = 'value'  # L3
    Child inherits from Base
    Child.load() overrides Base.load()   (a property's line without brackets)
    caller() calls callee(), other()     (Owner.caller() calls Other.callee() likewise;
                                          "; not shown: x() and 2 more" names nothing)
    formatter calls StrictFormatter()    (a variable set by a call: no brackets)
    Name (a/mod.py:12) inherits from Name (b/base.py:40)     (twins told apart by place)
    ## Requirements
    REQ-008-013 graph context validation
    ## Prior decisions
      DEC-7: rationale text

A source excerpt under an entity line (``    41 | code``, indented, a line number, then
`` | ``; ``       | … 12 more lines (L53-64)``) is code to read, not a line of the format:
it names nothing, whatever its code says.

The older format's lines (``class Name(Base): method_a, method_b``, ``def f(a, b)``,
``ClassName.method()``, one callee per ``calls`` line, a requirement with no heading of
its own) parse the same way, so a context saved before still validates.

Which parts are entities (the shared cases in ``shared/cases/graph_context.json`` pin
this down): the class name of a ``class`` line, but neither its bases (a base is an
entity only when an ``inherits`` line names it) nor its member list (a member is an
entity only when a member line names it); the function name of a ``def`` line, not its
arguments; both sides of ``inherits from``, ``overrides`` and ``calls`` (not the
`` (path:line)`` after a name there, which only says which of two entities of one name
it is); both parts of ``Owner.member`` on a member line (``Owner.member(`` or
``Owner.member: ``/`` = ``); the name of a module attribute line (``NAME = ...``); each
name of a class's member list (``Owner members: a() L3, b L12``, or a file's: ``module
members: f() L3, Cls L40``, but a class's when the line above is ``class module``'s;
what follows ``; not shown:`` names nothing), defined at its
``L<line>`` (the member's first line: a place of one line); every ``REQ-...`` id, except
in a rendered line's place and summary (from ``  # L<line>`` on, which names nothing);
the id before ``:`` on each line under ``## Prior decisions``.

The place of a defined entity is its file's heading and the ``L<start>-<end>`` (or
``L<line>``) after ``  # `` on its line (:attr:`ParsedEntity.places`). On ``inherits``
and ``calls`` lines, builtins, keywords and ``typing`` names (``Protocol``, ``object``,
``len``, ``self``, ...) are noise, not entities; a name that a ``class``, ``def`` or
``Owner.member()`` line defines is always an entity, even when it is also a builtin's
name (``def compile(...)``, ``Parser.format()``).
"""

from __future__ import annotations

import builtins
import keyword
import re
import typing
from dataclasses import dataclass, replace
from typing import NamedTuple

from citeloop.grounding.matching import TOKEN_PATTERN

NOISE_WORDS: frozenset[str] = frozenset(
    {name for name in dir(builtins) if not name.startswith("_")}
    | set(keyword.kwlist)
    | set(keyword.softkwlist)
    | set(typing.__all__)
    # Receivers and the standard base classes an `inherits` line may name.
    | {"self", "cls", "ABC", "ABCMeta", "Enum", "IntEnum", "StrEnum"}
)
"""Names that are not entities when an ``inherits`` or ``calls`` line mentions them."""
_KEYWORDS = frozenset(keyword.kwlist) | {"self", "cls"}

# Each pattern is anchored, applied to one line, and has no nested quantifiers.
_NAME = r"[\w.]+"
_CLASS_LINE = re.compile(r"\s*class\s+(\w+)")
_DEF_LINE = re.compile(r"\s*(?:async\s+)?def\s+(\w+)")
_INHERITS_LINE = re.compile(rf"\s*({_NAME})\s+inherits\s+from\s+({_NAME})")
_CALLS_LINE = re.compile(rf"\s*({_NAME})(\([^)]*\))?\s+calls\s+({_NAME})")
_OVERRIDES_LINE = re.compile(rf"\s*({_NAME})(\([^)]*\))?\s+overrides\s+({_NAME})")
_MORE_CALLEES = re.compile(rf",\s*({_NAME})")
_PLACE = re.compile(r" \([^()\r\n]*:\d+\)")
"""A place after a name on a relation line (``Name (pkg/mod.py:12)``, a path without
brackets, spaces and commas allowed): names nothing. Linear: a match can only start at
`` (`` and its path stops at the next bracket."""
_MEMBER_LINE = re.compile(rf"\s*({_NAME})\([^)]*\)\s*$")
_SIGNATURE_LINE = re.compile(r"\s*(?:async\s+)?(\w+\.\w+)[(\[]")
_ATTRIBUTE_LINE = re.compile(r"\s*(\w+\.\w+)(?::\s|\s=\s)")
_MODULE_ATTRIBUTE_LINE = re.compile(r"(\w+)(?::\s.*?)?\s=\s")
_DECISION_LINE = re.compile(r"\s*([\w-]+)\s*:")
_MEMBERS_LINE = re.compile(r"\s*(\w+) members: ")
_LISTED_MEMBER = re.compile(r"(\w+)(\(\))?(?: L(\d+))?")
_NOT_SHOWN = "; not shown:"
_MODULE_LABEL = "module"
_DECISIONS_HEADING = "prior decisions"
_WHERE = re.compile(r"  # L(\d+)(?:-(\d+))?")
_REQUIREMENT_PREFIX = "REQ-"
_LINE_END = re.compile(r"\r\n?|\n")
_EXCERPT_LINE = re.compile(r" +[0-9]* \| ")
"""A source excerpt's line (``    12 | code``, ``       | … 3 more lines``): names nothing."""
_MAX_LINE_DIGITS = 9
"""Longest line number read, in digits (no int() of a huge digit string)."""


class Place(NamedTuple):
    """Where an entity is defined: ``path`` relative to the indexed root, its first and
    last line (1-based, inclusive), and the short name of the class it is a member of
    (``""`` for a module-level definition, or when the context does not say)."""

    path: str
    start: int
    end: int
    owner: str = ""


@dataclass(frozen=True, slots=True)
class ParsedEntity:
    """An entity parsed from context text.

    Attributes:
        name: The name an answer references and cites.
        kind: ``"class"``, ``"function"``, ``"method"``, ``"attribute"``,
            ``"requirement"`` or ``"decision"``.
        places: Where lines of the text define it: one :class:`Place` per defining line
            with a file heading above it and an ``L<line>`` (several entities of one
            short name, in different classes or files, give several).
    """

    name: str
    kind: str
    places: tuple[Place, ...] = ()


def _reference(dotted: str, kind: str) -> list[ParsedEntity]:
    """Entities named by a reference: ``Owner.member`` names both, longer paths the last."""
    parts = [part for part in dotted.split(".") if part]
    if len(parts) == 2:
        member = "method" if kind == "function" else kind
        return [ParsedEntity(parts[0], "class"), ParsedEntity(parts[1], member)]
    return [ParsedEntity(parts[-1], kind)] if parts else []


def _parse_line(line: str) -> tuple[list[ParsedEntity], bool]:
    """The entities of one line, and whether the line defines them (no noise filter)."""
    if match := _CLASS_LINE.match(line):
        return [ParsedEntity(match[1], "class")], True
    if match := _DEF_LINE.match(line):
        return [ParsedEntity(match[1], "function")], True
    relation = _PLACE.sub(" ", line) if " (" in line else line
    if match := _INHERITS_LINE.match(relation):
        return _reference(match[1], "class") + _reference(match[2], "class"), False
    if match := _OVERRIDES_LINE.match(relation):
        kind = "function" if match[2] else "attribute"  # a property's line has no brackets
        return _reference(match[1], kind) + _reference(match[3], kind), False
    if match := _CALLS_LINE.match(relation):
        callees = [match[3]]
        # "caller() calls a(), b()": every callee of the line
        callees.extend(more[1] for more in _MORE_CALLEES.finditer(relation, match.end()))
        # a caller without brackets is a variable set by a call ("formatter calls F()")
        found = _reference(match[1], "function" if match[2] else "attribute")
        for callee in callees:
            found += _reference(callee, "function")
        return found, False
    if match := _MEMBER_LINE.match(line) or _SIGNATURE_LINE.match(line):
        return _reference(match[1], "function"), True
    if match := _ATTRIBUTE_LINE.match(line):
        return _reference(match[1], "attribute"), True
    if match := _MODULE_ATTRIBUTE_LINE.match(line):
        return [ParsedEntity(match[1], "attribute")], True
    return [], False


def _listed_members(
    items: str, owner: str, path: str | None, module: bool
) -> list[tuple[ParsedEntity, Place | None]]:
    """The members a member list names (``a() L3, b L12; not shown: 4 more``), each with
    its place (its first line) when the file is known: a class's methods and attributes,
    or, ``module``, a file's functions and classes."""
    found = []
    called, bare = ("function", "class") if module else ("method", "attribute")
    for item in items.partition(_NOT_SHOWN)[0].split(", "):
        if match := _LISTED_MEMBER.fullmatch(item.strip()):
            entity = ParsedEntity(match[1], called if match[2] else bare)
            line = _line_number(match[3])
            place = Place(path, line, line, "" if module else owner) if path and line else None
            found.append((entity, place))
    return found


def _line_number(digits: str | None) -> int | None:
    """The line ``digits`` write, or ``None`` for none, or more than
    :data:`_MAX_LINE_DIGITS` digits."""
    return int(digits) if digits and len(digits) <= _MAX_LINE_DIGITS else None


def _is_heading(stripped: str) -> bool:
    return stripped.startswith("#")


def _file_heading(stripped: str) -> str | None:
    """The path of a file heading (``# pkg/mod.py``): one ``#`` and one word."""
    path = stripped[1:].strip()
    if stripped.startswith("# ") and path and not any(char.isspace() for char in path):
        return path
    return None


def parse_context_entities(text: str) -> tuple[ParsedEntity, ...]:
    """Parse the entities of context text in the documented format.

    Lines that match no pattern are ignored, so any text is accepted. Work is linear in
    the length of ``text``.

    Args:
        text: Context text, e.g. ``InjectedContext.text``.

    Returns:
        The entities in order of first appearance, without duplicates (the first kind
        seen wins) and without noise words (see the module docstring).

    Example:
        >>> [e.name for e in parse_context_entities("class A(Protocol): x\\nA.run()")]
        ['A', 'run']
    """
    found: dict[str, ParsedEntity] = {}

    def add(entity: ParsedEntity, defined: bool = False) -> None:
        noise = entity.name in _KEYWORDS if defined else entity.name in NOISE_WORDS
        if not noise and entity.name not in found:
            found[entity.name] = entity

    places: dict[str, list[Place]] = {}
    in_decisions = False
    path: str | None = None
    # The class the line before defines: `module members:` under `class module` is that
    # class's list, not its file's.
    above: str | None = None
    # Only \n, \r\n and \r end a line: a U+2028 or a form feed inside a rendered summary
    # is text of that line, never a line that could add an entity.
    for line in _LINE_END.split(text):
        if _EXCERPT_LINE.match(line):
            continue
        stripped = line.strip()
        if _is_heading(stripped):
            in_decisions = stripped.lstrip("#").strip().lower() == _DECISIONS_HEADING
            path = _file_heading(stripped)
            above = None
            continue
        of_class, above = above, (match[1] if (match := _CLASS_LINE.match(line)) else None)
        if in_decisions and (match := _DECISION_LINE.match(line)):
            add(ParsedEntity(match[1], "decision"))
        elif match := _MEMBERS_LINE.match(line):
            module = match[1] == _MODULE_LABEL and of_class != _MODULE_LABEL
            for entity, place in _listed_members(line[match.end() :], match[1], path, module):
                add(entity, True)
                if place is not None:
                    places.setdefault(entity.name, []).append(place)
        else:
            start = end = None
            if where := _WHERE.search(line):  # a rendered line's place and summary
                line = line[: where.start()]  # name nothing
                start = _line_number(where[1])
                end = _line_number(where[2]) if where[2] else start
            entities, defined = _parse_line(line)
            for entity in entities:
                add(entity, defined)
            if defined and entities and path and start is not None and end is not None:
                # The line defines its last entity (`Owner.member`: the member).
                owner = entities[0].name if len(entities) == 2 else ""
                places.setdefault(entities[-1].name, []).append(Place(path, start, end, owner))
        if _REQUIREMENT_PREFIX in line:
            for token in TOKEN_PATTERN.findall(line):
                if token.startswith(_REQUIREMENT_PREFIX):
                    add(ParsedEntity(token, "requirement"))
    return tuple(
        replace(entity, places=tuple(places[name])) if name in places else entity
        for name, entity in found.items()
    )
