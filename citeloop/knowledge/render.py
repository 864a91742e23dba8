"""Rendering an injected context in the documented text format.

The entities come in groups, one per file (files in the order of their best-ranked
entity, entities in line order), each under a heading with the file's path; then one
line per relation (those the budget has room for,
:data:`~citeloop.knowledge.budget.RELATION_SHARE`), a caller's calls on one line; then
the requirements and the decisions, each under its heading::

    # path/to/mod.py
    class Name(Base, ...)  # L12-80 — Summary.               a class
    def function_name(arg: int = 1) -> str  # L40-52 — ...   a function (or test)
    Owner.method(x) -> None  # L55 — ...                     a method, by its class
    async Owner.get() -> Msg  # L60-64                       (``async def``: ``async``)
    Owner.attribute: int = 3  # L20 — ...                    an attribute or property
    Name members: size L84, run() L90; not shown: 3 more      a class's other members
    module members: helper() L70, Other L75     (under a heading: the file's other code)
    NAME = 'value'  # L3                                     a module attribute
    Child inherits from Base
    Child.run() overrides Base.run()    (a property's without brackets)
    caller() calls callee(), other()    (Owner.caller() when another entity has its name)
    caller() calls callee(); not shown: other() and 2 more    (callees not in the context)
    Name (a/mod.py:12) inherits from Name (b/base.py:40)    (module-level twins: places)
    ## Requirements
    REQ-008-013 requirement title
    ## Prior decisions
      DEC-7: rationale text

What follows ``  # `` on an entity line is its line in the file (``L40``, so the file's
heading and the line give ``path:line``) and the first sentence of its docstring;
everything before it is code as the indexer keeps it, the signature bounded to about
:data:`MAX_LINE_SIGNATURE` characters (a method's ``self``/``cls`` left out). A *brief*
line (the budget's tail, :mod:`citeloop.knowledge.budget`) has no summary and no
decorators but those of :data:`BRIEF_DECORATORS`, and a function's parameters are
``(...)`` unless its signature is short: ``Owner.method(...) -> Result  # L55-70``. Facts
are rendered only between entities of the context, so every name the text introduces is an
entity of the context (but for what follows ``; not shown:`` on a calls line: the best
ranked callee the context does not hold, which names no entity of it,
:func:`omitted_callees`). A relation line names an entity whose name another entity of the
context has by its class (``Owner.name``, and its place too when another class of the
context has that class's name), or, when it has none, by its name and place
(``Name (path:line)``, the form a citation's location takes), so that each side of a
relation is one entity. ``GraphContextValidator`` parses the text back
(:mod:`citeloop.grounding.context_text`), and the line shapes of the older format
(``class Name(Base): a, b``, ``def f(a, b)``, ``Class.method()``) still parse.

Every line is passed through :func:`citeloop.text.data_line`: text from the indexed code
(summaries, requirement titles, decision headings, file names) cannot break a line, open
a code fence or write a tag such as ``</context>``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from itertools import pairwise

from citeloop.knowledge.model import (
    Entity,
    EntityKind,
    Fact,
    RelationKind,
    enclosing,
    module_name,
)
from citeloop.knowledge.names import RECEIVERS
from citeloop.text import data_line

DECISIONS_HEADING = "## Prior decisions"
REQUIREMENTS_HEADING = "## Requirements"
"""The heading of a context's requirements, after the relation lines: without one, a
requirement's line read as code of the file heading above it (a newcomer's `REQ-001`,
written in `store.py`, had shown under `# inventory/items.py`)."""

MAX_LINE_SUMMARY = 100
"""Longest docstring summary on a line, in characters (cut at a word, ``…``)."""

MAX_LINE_SIGNATURE = 100
"""Longest signature on a line, in characters: longer parameter lists end in ``...``
(the return annotation is kept)."""

MAX_BRIEF_SIGNATURE = 24
"""Longest signature a brief line keeps whole, in characters (``(key, default=None)``)."""

MAX_BRIEF_RETURN = 40
"""Longest return annotation a brief line keeps, in characters (a longer one goes)."""

MEMBER_KINDS = frozenset({EntityKind.METHOD, EntityKind.ATTRIBUTE, EntityKind.TEST})
"""Kinds of entity a line names by its class (``Owner.member``) when it has one."""

MODULE_LABEL = "module"
"""What a file's list of its other classes and functions starts with (``module
members: ...``, under the file's heading)."""

RENDERED_RELATIONS = (RelationKind.INHERITS, RelationKind.OVERRIDES, RelationKind.CALLS)
"""The relations a context text has lines for (the others only rank its entities)."""


def owner_name(entity: Entity, owners: Mapping[str, str]) -> str:
    """Short name of the class that defines ``entity`` (from ``owners`` or its id)."""
    owner_id = owners.get(entity.id) or entity.id.rpartition(".")[0]
    return owner_id.rpartition(".")[2] or entity.name


def member_owner(entity: Entity, owners: Mapping[str, str]) -> str | None:
    """The short name of the class a member belongs to (``owners``: class id by member
    id), or ``None`` for an entity its line does not name by a class."""
    if entity.kind not in MEMBER_KINDS or entity.id not in owners:
        return None
    return owner_name(entity, owners)


def name_claims(entity: Entity, owners: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The ``(name, id)`` pairs the lines of ``entity`` write: its name for its id and,
    for a member of a class, the class's short name for the class's id (its line reads
    ``Owner.name``, whether or not the class has a line of its own). A name claimed for
    two ids is ambiguous on a relation line: ``Interval.low`` of a dataclass beside the
    constraint class ``Interval`` makes ``Interval inherits from _Constraint`` name its
    place."""
    if member_owner(entity, owners) is None:
        return ((entity.name, entity.id),)
    owner_id = owners[entity.id]
    return (entity.name, entity.id), (owner_id.rpartition(".")[2], owner_id)


def _parenthesized(signature: str, member: bool = False) -> str:
    """A signature as it follows a name, at most about :data:`MAX_LINE_SIGNATURE`
    characters: the indexer's already starts with ``(`` or ``[``; a user store's bare
    ``"a, b"`` is put in parentheses; a member's ``self``/``cls`` goes."""
    type_params, params, rest, commas = _parts(signature, member)
    written = type_params + params + rest
    if len(written) <= MAX_LINE_SIGNATURE:
        return written
    returns = _returns(rest)
    tail = f" -> {returns}" if returns else ""
    room = MAX_LINE_SIGNATURE - len(returns) - len(type_params)
    cut = max((at for at in commas if at <= room), default=None)
    if cut is None:  # not even the first parameter fits
        return f"{type_params}(...){tail}"
    return f"{type_params}{params[:cut]}, ...){tail}"


def signature_cut(entity: Entity) -> bool:
    """Whether the whole line of a function or method cuts its signature (parameters
    past about :data:`MAX_LINE_SIGNATURE` characters written ``...``): then an excerpt
    of its body shows its signature's lines (the defaults a question may be about)."""
    if not entity.signature or entity.kind not in _CALLABLE_KINDS:
        return False
    method = entity.kind is EntityKind.METHOD and not _static(entity)
    type_params, params, rest, _ = _parts(entity.signature, method)
    return len(type_params + params + rest) > MAX_LINE_SIGNATURE


def _static(entity: Entity) -> bool:
    """Whether a member is a static method: its first parameter is no receiver (a
    played line had read ``Invalid.__getattr__(nanana) @staticmethod`` of
    ``def __getattr__(self, nanana)``, whose ``self`` is what the test is about)."""
    return any(_decorator(name)[1] == "staticmethod" for name in entity.decorators)


def _decorator(name: str) -> tuple[str, str]:
    """``(module, name)`` of a decorator as written, its arguments left out
    (``functools.lru_cache(maxsize=8)`` gives ``("functools", "lru_cache")``)."""
    module, _, last = name.partition("(")[0].rpartition(".")
    return module, last


_CALLABLE_KINDS = frozenset({EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.TEST})


def signature_parameters(entity: Entity) -> frozenset[str]:
    """The parameter names of a function's or method's signature (``(x, *, key=None,
    **kw)`` gives ``x``, ``key`` and ``kw``; a method's ``self`` or ``cls`` too); empty
    for other kinds, or a signature the indexer did not keep."""
    if not entity.signature or entity.kind not in _CALLABLE_KINDS:
        return frozenset()
    _, params, _, commas = _parts(entity.signature, False)
    bounds = [0, *commas, len(params) - 1]
    names = set()
    for start, end in pairwise(bounds):
        piece = params[start + 1 : end].strip().lstrip("*")
        name = piece.split(":", 1)[0].split("=", 1)[0].strip()
        if name.isidentifier():
            names.add(name)
    return frozenset(names)


@lru_cache(maxsize=4096)
def _parts(signature: str, member: bool) -> tuple[str, str, str, tuple[int, ...]]:
    """``(type parameters, parameter list, what follows it, the positions of the commas
    between the list's parameters)`` of a signature (see :func:`_parenthesized`)."""
    if signature[:1] not in ("(", "["):
        signature = f"({signature})"
    # Type parameters (``[T](self, x: T)``) come first; the receiver is the first parameter.
    type_params, found, params = signature.partition("](") if signature[0] == "[" else ("", "", "")
    if found:
        type_params, signature = type_params + "]", "(" + params
    elif type_params:  # type parameters only: a generic class without bases (``[T]``)
        type_params = ""
    end, commas = _parameter_list(signature)
    # The receiver, annotated or not (``cls: type[FileRenderer]``), is left out.
    first = commas[0] if commas else end
    if member and signature[1:first].split(":", 1)[0].strip() in RECEIVERS:
        rest = signature[first + 1 :].lstrip() if commas else signature[end:]
        signature = "(" + rest
        end, commas = _parameter_list(signature)
    return type_params, signature[: end + 1], signature[end + 1 :], tuple(commas)


def _parameter_list(signature: str) -> tuple[int, list[int]]:
    """``(end, commas)`` of the parameter list ``signature`` opens at 0: the index of its
    closing ``)`` (the last index when it has none) and of the commas between its
    parameters, brackets and quoted strings (a default ``') -> '``) skipped. Linear: it
    reads only the characters that open or close something, or separate."""
    depth, quote, escaped, commas = 0, "", -1, []
    for mark in _PARAMETER_MARKS.finditer(signature):
        index, char = mark.start(), mark.group()
        if index == escaped:
            continue
        if quote:
            if char == "\\":
                escaped = index + 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index, commas
        elif char == "," and depth == 1:
            commas.append(index)
    return len(signature) - 1, commas


_PARAMETER_MARKS = re.compile(r"[\\'\"()\[\]{},]")
"""What :func:`_parameter_list` reads of a signature."""


def _returns(rest: str) -> str:
    """The return annotation of what follows a parameter list (``" -> int"``), or ``""``."""
    return rest.removeprefix(" -> ") if rest.startswith(" -> ") else ""


MAX_DECORATORS_SHOWN = 3
"""Most decorators an entity line shows (after its place)."""


BRIEF_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "abstractmethod", "overload", "dataclass", "final"}
)
"""The decorators a brief line keeps, by the last part of the name written: a method's
line leaves out its receiver, and the first two say it has none or takes its class;
``abstractmethod`` says a subclass must override it (a played answer had named only the
abstract methods whose lines were whole), and typing's ``overload`` that the definition
is a signature, not the implementation (another library's, such as
``numba.extending.overload``, is not kept: :data:`TYPING_MODULES`); a class's
``dataclass`` (with its arguments: ``frozen=True``) says what Python writes for it, and
``final`` that nothing subclasses it (judges of played answers had found the brief lines
of frozen dataclasses and final classes that said neither, and a model that could not
tell whether a class was immutable)."""

TYPING_MODULES = frozenset({"typing", "typing_extensions", "t", "te", "tp"})
"""What an ``overload`` a brief line keeps may be written on: the typing modules, and
the names they are commonly imported as (``import typing as t``)."""


def _brief_kept(name: str) -> bool:
    """Whether a brief line keeps the decorator ``name`` (:data:`BRIEF_DECORATORS`;
    its arguments, when written, do not count)."""
    module, last = _decorator(name)
    if last == "overload":
        return module == "" or module in TYPING_MODULES
    return last in BRIEF_DECORATORS


def _decorators(entity: Entity, brief: bool = False) -> str:
    """`` @functools.total_ordering @dataclass``: the decorators of a class or function
    as written (at most :data:`MAX_DECORATORS_SHOWN`; ``brief``: only those of
    :data:`BRIEF_DECORATORS`); an attribute's, which only a property has, always: its
    line reads as an attribute (``Table.registry = ...``), and ``@property`` says that
    it is computed, not assigned."""
    kept = entity.kind is EntityKind.ATTRIBUTE or not brief
    names = [name for name in entity.decorators if name and (kept or _brief_kept(name))]
    return "".join(f" @{name}" for name in names[:MAX_DECORATORS_SHOWN])


def _where(entity: Entity, brief: bool = False) -> str:
    """``"  # L12-40 @dataclass — summary"`` (the definition's first and last line, its
    decorators, and what it is defined inside when that is not its module or its class:
    ``inside _fit_context``; for an instance attribute, the method that sets it: ``set
    in __init__`` (``declared in _eval`` for ``self.x: str``, which sets nothing); for
    an attribute set by several statements, how many: ``set 4 times``; the clause of
    its body it is defined under: ``under except ImportError (L34)``), or what of it
    the entity has (``L12`` for a one-line definition or an unknown end); ``brief``: no
    summary, and only the decorators of :data:`BRIEF_DECORATORS`. The decorators
    stand after the place, where a line names nothing."""
    parts: list[str] = []
    if entity.path and entity.line:
        end = entity.end_line
        place = f"L{entity.line}-{end}" if end and end > entity.line else f"L{entity.line}"
        inside = enclosing(entity) or _class_inside(entity)
        where = f" inside {inside}" if inside else ""
        if entity.set_in and entity.kind is EntityKind.ATTRIBUTE:  # `self.x = ...` there
            where = f" set in {entity.set_in}"
            if not entity.assignments and "=" not in entity.signature:  # `self.x: str`
                where = f" declared in {entity.set_in}"
            if entity.assignments > 1:  # the value shown is the first of several
                where = f" set {entity.assignments} times, first in {entity.set_in}"
        elif entity.kind is EntityKind.ATTRIBUTE and entity.assignments > 1:
            where = f" set {entity.assignments} times"  # `model = ...` twice in a module
        elif entity.assignments > 1:  # `def swap` under `if` and under `else`
            where += f"{',' if where else ''} defined {entity.assignments} times"
        if entity.under:  # `except ImportError (L34)`: it exists when that clause runs
            where += f"{',' if where else ''} under {_clause(entity.under)}"
        parts.append(place + _decorators(entity, brief) + where)
    summary = "" if brief else entity.summary
    if len(summary) > MAX_LINE_SUMMARY:
        summary = _code_closed(summary[: MAX_LINE_SUMMARY - 1].rsplit(" ", 1)[0]) + "…"
    if summary:
        parts.append(_PLACE_MARK.sub(" #", summary))
    return f"  # {' — '.join(parts)}" if parts else ""


def _clause(under: str) -> str:
    """A clause label (``except ImportError (L34)``) as a line writes it: no place mark
    of its own, and a code span its header opens closed (``if x == "`" (L15)``)."""
    header, mark, line = under.rpartition(" (L")
    if not mark:
        header, line = under, ""
    return _PLACE_MARK.sub(" #", _code_closed(header)) + (f"{mark}{line}" if mark else "")


def _class_inside(entity: Entity) -> str | None:
    """What a member's class is defined inside, when that is not its module: a test's
    local ``class View`` reads as the library's ``View`` otherwise (a played context had
    listed ``View.index`` and ``View.methods`` of ``tests/test_views.py`` beside
    ``flask.views.View``)."""
    if entity.kind not in MEMBER_KINDS or "." not in entity.id or not entity.path:
        return None
    owner = entity.id.rpartition(".")[0]
    if owner.rpartition(".")[2] == module_name(entity.path):
        return None  # its file's variable: `mag` of `units/function/units.py` is inside none
    return enclosing(replace(entity, id=owner, kind=EntityKind.CLASS))


_BACKTICKS = re.compile("`+")


def _code_closed(text: str) -> str:
    """``text`` with the code span it opens and does not close closed (a summary cut
    inside `` `unified content descriptor` ``): a model that quotes it would pair the
    lone backtick with the next of its own answer, and its words between the two would
    read as code (a played answer was failed for inventing `` `are` ``). A run of
    backticks closes the span a run of the same length opened (Markdown code spans,
    https://spec.commonmark.org/0.31.2/#code-spans)."""
    opened: re.Match[str] | None = None
    for run in _BACKTICKS.finditer(text):
        if opened is None:
            opened = run
        elif len(run.group()) == len(opened.group()):
            opened = None
    return text if opened is None else text + opened.group()


LINES_KEPT = 8192
"""Entity lines :func:`entity_line` keeps (an entity is immutable, and the store's read
cache hands the same entities to every run, so budgeting and rendering reuse them)."""


@lru_cache(maxsize=LINES_KEPT)
def entity_line(entity: Entity, owner: str | None, brief: bool = False) -> str:
    """The line of one entity, passed through :func:`~citeloop.text.data_line`; ``owner``
    is its class's short name when it is a member of a class (``None`` for a module-level
    entity); ``brief`` asks for its brief line (see the module docstring; a requirement's
    and a decision's line is always whole). Memoized (see :data:`LINES_KEPT`)."""
    return data_line(_line(entity, owner, brief))


def _line(entity: Entity, owner: str | None, brief: bool) -> str:
    kind, name, signature = entity.kind, entity.name, entity.signature
    if kind is EntityKind.REQUIREMENT:
        return f"{name} {signature}".rstrip()
    if kind is EntityKind.DECISION:
        return f"  {name}: {signature or name}"
    if kind is EntityKind.CLASS:
        code = f"class {name}{_parenthesized(signature) if signature else ''}"
    elif kind is EntityKind.ATTRIBUTE and owner:
        code = f"{owner}.{name}{signature or ' = ...'}"
    elif kind is EntityKind.ATTRIBUTE:
        # A value not shown is `= ...`; a bare annotation (`example: Set[str]`) has none.
        declared = signature.startswith(":") and not entity.assignments
        code = f"{name}{signature if ' = ' in signature or declared else signature + ' = ...'}"
    elif owner and kind in MEMBER_KINDS:
        code = f"{owner}.{name}{_signature(signature, not _static(entity), brief)}"
    else:
        code = f"def {name}{_signature(signature, False, brief)}"
    if entity.asynchronous and kind in _ASYNC_KINDS:
        code = "async " + code  # a coroutine function: `async def fetch(...)`
    return _PLACE_MARK.sub(" #", code) + _where(entity, brief)


_ASYNC_KINDS = frozenset({EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.TEST})
"""Kinds of entity whose line says ``async`` when it is a coroutine function."""

_PLACE_MARK = re.compile(r"(?<! ) {2,}#")
"""Spaces before a ``#`` in a signature or a summary (a default ``"  # L9"``): written
as one, since two start the line's place (``  # L12-40``), which is read back as the
first such mark of the line. Linear: a match starts only where a run of spaces does."""


def _signature(signature: str, member: bool, brief: bool) -> str:
    """A function's signature as its line writes it; ``brief``: ``(...) -> Result`` when
    it is longer than :data:`MAX_BRIEF_SIGNATURE` characters (``()`` when it has no
    parameters, its type parameters kept), the return annotation kept when it is at most
    :data:`MAX_BRIEF_RETURN`."""
    written = _parenthesized(signature, member)
    if not brief or len(written) <= MAX_BRIEF_SIGNATURE:
        return written
    type_params, params, rest, _ = _parts(signature, member)
    returns = _returns(rest)
    keep = f" -> {returns}" if returns and len(returns) <= MAX_BRIEF_RETURN else ""
    return type_params + ("()" if params == "()" else "(...)") + keep


def file_heading(path: str) -> str:
    """The heading of a file's group of entity lines (through
    :func:`~citeloop.text.data_line`)."""
    return data_line(f"# {path}")


_NOT_CALLED = frozenset({EntityKind.ATTRIBUTE, EntityKind.MODULE})
"""Kinds of a caller that is no function: its ``calls`` line writes it without brackets."""


def place(entity: Entity) -> str:
    """`` (path:line)``: where ``entity`` is defined, as a relation line writes it after
    a name that several entities of the context have and no class tells apart (``""``
    for an entity without a path and line, or whose path has a bracket: the text's
    parser could not tell such a place from the names around it)."""
    path, line = entity.path, entity.line
    if not path or not line or "(" in path or ")" in path:
        return ""
    return f" ({path}:{line})"


def relation_name(
    entity: Entity, owners: Mapping[str, str], ambiguous: bool, owner_ambiguous: bool = False
) -> tuple[str, str]:
    """How a relation line names ``entity``, and what follows the name (``owners``: class
    id by member id): when another entity of the context has its name (``ambiguous``),
    ``Owner.name`` for a class's member (and its :func:`place` when another class of the
    context has the class's name, ``owner_ambiguous``: two test classes
    ``TestUpdateLeapSeconds``), else its name and :func:`place`; else its name alone, but
    for a special method (``__init__``), which names its class as if ambiguous: every
    class has one. The text (:class:`ContextText`) and its budget
    (:mod:`~citeloop.knowledge.budget`) both name entities by it."""
    special = entity.name.startswith("__") and entity.name.endswith("__")
    if not (ambiguous or (special and entity.kind is EntityKind.METHOD)):
        return entity.name, ""
    owner = member_owner(entity, owners)
    if owner is None:
        return entity.name, place(entity)
    return f"{owner}.{entity.name}", place(entity) if owner_ambiguous else ""


def listed_member(entity: Entity) -> str:
    """A member as a member list writes it: ``name() L13`` (a method, function or test),
    ``name L5`` (an attribute, property or class), with its first line when it has one
    (the line a citation of it gives; its last line would cost a fifth more of the
    list)."""
    brackets = "" if entity.kind in (EntityKind.ATTRIBUTE, EntityKind.CLASS) else "()"
    return f"{entity.name}{brackets}{f' L{entity.line}' if entity.line else ''}"


def member_list_line(owner: str, members: Sequence[Entity], omitted: int) -> str:
    """The member list under a class's line (:mod:`~citeloop.knowledge.member_lists`):
    ``Owner members: a() L3, b L12; not shown: 4 more``, through :func:`data_line`; the
    members in the order of their lines, as the class writes them (a NamedTuple's fields
    are its constructor's parameters: a played answer had mapped them by sorting a list
    in rank order, ``segment L15, ..., ref_str L14``)."""
    more = f"; not shown: {omitted} more" if omitted else ""
    ordered = sorted(members, key=lambda member: (member.line or 0, member.id))
    return data_line(f"{owner} members: {', '.join(map(listed_member, ordered))}{more}")


def omitted_callees(count: int, name: str | None = None) -> str:
    """What a ``calls`` line says of the ``count`` callees of its caller that the
    context does not hold: ``; not shown: name() and 3 more``, naming ``name`` (the best
    ranked whose name no entity of the context has), or ``; not shown: 4 more`` when no
    such name, ``""`` for none. One name only: each costs the budget room (on the
    SWE-QA questions, one cost about a point of recall against the count alone's 0.7).
    Without a comma, so that the text's parser (:mod:`~citeloop.grounding.context_text`)
    reads no entity in it: a model can name the callee as lacking, not cite it."""
    if count < 1:
        return ""
    if name is None:
        return f"; not shown: {count} more"
    return f"; not shown: {name}()" + (f" and {count - 1} more" if count > 1 else "")


def relation_line(
    fact: Fact,
    subject: str,
    objects: Sequence[str],
    subject_kind: EntityKind | None = None,
    places: Sequence[str] = (),
    omitted: int = 0,
    omitted_name: str | None = None,
) -> str:
    """The line of an ``inherits`` or ``overrides`` fact (``Sub.run() overrides
    Base.run()``, a property's without brackets), or of a caller's ``calls`` facts
    (through :func:`~citeloop.text.data_line`): ``caller() calls a(), b()``, the caller without
    brackets when ``subject_kind`` says it is a variable or a module (a module variable
    set by a call: ``formatter calls StrictFormatter()``). ``places``: what follows
    each name (:func:`place`, or ``""``), the subject's first, then each object's;
    ``omitted``, ``omitted_name``: how many of the caller's callees the context does not
    hold, and the one to name (:func:`omitted_callees`: a line that lists some callees
    does not read as all)."""
    after = [*places, *[""] * (1 + len(objects))][: 1 + len(objects)]
    if fact.relation is RelationKind.INHERITS:
        return data_line(f"{subject}{after[0]} inherits from {objects[0]}{after[1]}")
    brackets = "" if subject_kind in _NOT_CALLED else "()"
    if fact.relation is RelationKind.OVERRIDES:
        overridden = f"{objects[0]}{brackets}{after[1]}"
        return data_line(f"{subject}{brackets}{after[0]} overrides {overridden}")
    caller = f"{subject}{brackets}"
    callees = ", ".join(f"{name}(){where}" for name, where in zip(objects, after[1:], strict=True))
    return data_line(f"{caller}{after[0]} calls {callees}{omitted_callees(omitted, omitted_name)}")


class ContextText:
    """Names the entities of a context as its lines write them, and assembles the text.

    Args:
        entities: The context's entities, in rank order.
        owners: Owning class id of each member, by member id.
        brief: The ids of the entities whose line is brief (see the module docstring).
        callees: What each caller is known to call, best first, by caller id: its
            ``calls`` line names those the context does not hold
            (:func:`omitted_callees`).
        member_lists: The members listed under a class's line, and how many more it
            has, by class id (:mod:`~citeloop.knowledge.member_lists`).
        module_lists: The classes and functions listed under a file's heading, and how
            many more it has, by path.
    """

    def __init__(
        self,
        entities: Sequence[Entity],
        owners: Mapping[str, str],
        brief: Collection[str] = frozenset(),
        callees: Mapping[str, Sequence[Entity]] | None = None,
        member_lists: Mapping[str, tuple[Sequence[Entity], int]] | None = None,
        module_lists: Mapping[str | None, tuple[Sequence[Entity], int]] | None = None,
    ) -> None:
        self.entities = list(entities)
        self.member_lists = member_lists or {}
        self.module_lists = module_lists or {}
        self.owners = owners
        self.brief = brief
        claims: dict[str, set[str]] = {}
        for entity in entities:
            for name, claimed in name_claims(entity, owners):
                claims.setdefault(name, set()).add(claimed)
        # A listed member's name is the context's too: a relation line's bare
        # `_symbol_lookup()` beside another class's list naming its own had been read
        # as that one (the budget costs this, member_lists.qualifying).
        for members, _ in (*self.member_lists.values(), *self.module_lists.values()):
            for member in members:
                claims.setdefault(member.name, set()).add(member.id)
        self._ambiguous = {name for name, ids in claims.items() if len(ids) > 1}
        self._by_id = {entity.id: entity for entity in entities}
        self._named = {entity.name for entity in entities}
        # The names a calls line's tail does not write: a listed member is an entity
        # of the context too (`not shown: _owner_entities()` beside a list naming it),
        # and so is the class a member's line names (`not shown: CompiledStateGraph()`
        # under `CompiledStateGraph.attach_node(...)`).
        self._unnamed = (
            self._named
            | {
                member.name
                for members, _ in (*self.member_lists.values(), *self.module_lists.values())
                for member in members
            }
            | {owner for entity in entities if (owner := member_owner(entity, owners))}
        )
        self._callees = callees or {}

    def owner(self, entity: Entity) -> str | None:
        """The short name of the class a member belongs to, or ``None``."""
        return member_owner(entity, self.owners)

    def written(self, entity_id: str) -> tuple[str, str]:
        """How a relation line names an entity, and what follows the name
        (:func:`relation_name`: ``Owner.name``, or ``name (path:line)`` for a
        module-level twin such as a dialect's ``LimitClauseSegment`` and the one it
        inherits from, when another entity of the context, the class of a member the
        context holds, or a member a list names has its name: :func:`name_claims`)."""
        entity = self._by_id[entity_id]
        owner = member_owner(entity, self.owners)
        ambiguous = self._ambiguous
        return relation_name(entity, self.owners, entity.name in ambiguous, owner in ambiguous)

    def render(
        self, facts: Sequence[Fact], excerpts: Mapping[str, Sequence[str]] | None = None
    ) -> str:
        """The context text (see the module docstring), each entity of ``excerpts`` (by
        id) followed by its excerpt lines (:mod:`citeloop.knowledge.excerpts`)."""
        excerpts = excerpts or {}
        groups: dict[str, list[Entity]] = {}
        for entity in self.entities:
            if entity.kind not in (EntityKind.DECISION, EntityKind.REQUIREMENT):
                groups.setdefault(entity.path or "", []).append(entity)
        lines: list[str] = []
        for path, entities in groups.items():
            if path:
                lines.append(file_heading(path))
                if listed := self.module_lists.get(path):
                    lines.append(member_list_line(MODULE_LABEL, *listed))
            entities.sort(key=lambda entity: entity.line or 0)
            for entity in entities:
                lines.append(entity_line(entity, self.owner(entity), entity.id in self.brief))
                lines.extend(excerpts.get(entity.id, ()))
                if listed := self.member_lists.get(entity.id):
                    lines.append(member_list_line(entity.name, *listed))
        lines.extend(self._relation_lines(facts))
        requirements = [e for e in self.entities if e.kind is EntityKind.REQUIREMENT]
        if requirements:
            lines.append(REQUIREMENTS_HEADING)
            lines.extend(entity_line(entity, None) for entity in requirements)
        decisions = [e for e in self.entities if e.kind is EntityKind.DECISION]
        if decisions:
            lines.append(DECISIONS_HEADING)
            lines.extend(entity_line(entity, None) for entity in decisions)
        # Every line went through data_line (entity_line, file_heading, relation_line):
        # text from the indexed code can neither break a line (and add an entity the
        # graph does not have) nor close the prompt's <context> block.
        return "\n".join(lines)

    def _relation_lines(self, facts: Sequence[Fact]) -> list[str]:
        """One line per ``inherits`` and ``overrides`` fact, one per caller for its
        ``calls`` facts."""
        inherits: list[str] = []
        calls: dict[str, tuple[Fact, list[str]]] = {}
        for fact in {fact.fact_id: fact for fact in facts}.values():  # each fact once
            if (
                fact.relation not in RENDERED_RELATIONS
                or fact.subject not in self._by_id
                or fact.object not in self._by_id
            ):
                continue
            if fact.relation is not RelationKind.CALLS:
                (subject, before), (base, after) = map(self.written, (fact.subject, fact.object))
                kind = self._by_id[fact.subject].kind
                inherits.append(relation_line(fact, subject, [base], kind, [before, after]))
            else:
                calls.setdefault(fact.subject, (fact, []))[1].append(fact.object)
        lines = []
        for subject, (fact, callees) in calls.items():
            names, places = zip(*map(self.written, (subject, *callees)), strict=True)
            kind = self._by_id[subject].kind
            omitted = [e.name for e in self._callees.get(subject, ()) if e.id not in self._by_id]
            # The name written is the best one no entity of the context has, listed or
            # not (the demo had read `compile() calls validate(); not shown: validate()
            # and 4 more`); the budget costed the longest of those with no line.
            name = next((name for name in omitted if name not in self._unnamed), None)
            line = relation_line(fact, names[0], names[1:], kind, places, len(omitted), name)
            lines.append(line)
        return inherits + lines
