"""The knowledge-graph data model: entities, relations as facts, provenance.

Every relation between two entities is a *fact* with a stable ``fact_id`` derived from
its content (subject, relation, object), so the id survives re-indexing of unchanged
files and line moves. Provenance records where the fact was read from.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache


class EntityKind(StrEnum):
    """What an entity is."""

    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    METHOD = "method"
    ATTRIBUTE = "attribute"
    """A class attribute, dataclass or pydantic field, instance attribute set in a method,
    property, or module-level variable or constant."""
    TEST = "test"
    REQUIREMENT = "requirement"
    DECISION = "decision"
    FACT = "fact"
    """A generic entity from user-supplied triples."""


class RelationKind(StrEnum):
    """How two entities are related (subject -> object)."""

    DEFINES = "defines"
    """module -> class/function/attribute/test, class -> method/attribute, function ->
    nested function or class."""
    INHERITS = "inherits"
    """class -> base class."""
    CALLS = "calls"
    """function/method/test -> callee (resolved entity, or an unresolved name)."""
    TESTED_BY = "tested_by"
    """function/method/class -> test that calls it."""
    TRACES = "traces"
    """entity -> requirement (``REQ-...``) it implements."""
    DECIDED = "decided"
    """decision -> entity it names."""
    REFERENCES = "references"
    """function/method/attribute -> class it names in a string literal (a grammar's
    ``Ref("SelectClauseSegment")``, an ORM's ``ForeignKey("Author")``), or that a
    function passes, raises or catches as a value (``vo_warn(W39)``, ``isinstance(x,
    Bit)``, ``raise ParseError``, ``except ParseError:``)."""
    USES_TYPE = "uses_type"
    """function/method/attribute -> class its annotations name (``x: Model``,
    ``-> list["Model"]``)."""
    OVERRIDES = "overrides"
    """method/property -> the definition of the same name its class would have without
    it: the nearest up its bases, in Python's method resolution order (C3). A call
    ``self.name()`` in a base's method runs the override on an instance of the
    subclass."""


UNWALKED_RELATIONS = frozenset({RelationKind.USES_TYPE, RelationKind.REFERENCES})
"""Relations a path search does not walk: they tie nearly every function to the few
types it handles, so they rank a context's entities but would make hubs of those types
on a path (and let its search grow with them)."""


class Tier(StrEnum):
    """How an entity in an injected context must be treated by the answer."""

    CORE = "core"
    """Must be cited."""
    SUPPORTING = "supporting"
    """May be cited."""


DEFAULT_MAX_CONTEXT_TOKENS = 2_000
"""Default token budget of a context, in estimated tokens (``ceil(chars / 4)``)."""

MAX_CONTEXT_TOKENS = 1_000_000_000
"""Upper bound of a context's token budget: far past what any model reads, and the
budget times a widening's :attr:`ContextExpansion.limit_multiplier` stays a float."""

MAX_LIMIT_MULTIPLIER = 1_000_000
"""Upper bound of :attr:`ContextExpansion.limit_multiplier`."""

MAX_HOPS = 10
"""Upper bound of a path search's ``max_hops``
(:func:`~citeloop.knowledge.paths.recall_paths`): the number of simple paths grows with
degree ** hops."""

MAX_DOCSTRING_CHARS = 4_000
"""Longest docstring kept whole; a longer one is cut at a line end and marked ``…``."""

MAX_SUMMARY_CHARS = 200
"""Longest summary (first sentence) of a docstring; a longer one is cut at a word."""

SUMMARIES_KEPT = 8192
"""Docstring summaries :func:`first_sentence` keeps (docstrings are bounded)."""

_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "resp.", "no."})
_OPENERS = "([{<\"'`*_\u201c\u2018"
"""What may open a word before an abbreviation: ``(i.e.``, ```e.g.``, ``*e.g.``."""

SECTION_NAMES = frozenset(
    {
        "args", "arguments", "attributes", "example", "examples", "keyword args",
        "keyword arguments", "methods", "note", "notes", "other parameters", "parameters",
        "params", "raises", "receives", "references", "return", "returns", "see also",
        "todo", "warning", "warnings", "warns", "yield", "yields",
    }
)  # fmt: skip
"""Section names of a docstring (lower case) that open no summary: numpydoc's
(https://numpydoc.readthedocs.io/en/latest/format.html, a name over a line of ``-``)
and Google style's (https://google.github.io/styleguide/pyguide.html#s3.8.3, a name and
``:`` on its own line)."""


@lru_cache(maxsize=SUMMARIES_KEPT)
def first_sentence(text: str) -> str:
    """The first sentence of a docstring's first paragraph, whitespace collapsed.

    A sentence ends at ``.``, ``!`` or ``?`` followed by whitespace (not after a common
    abbreviation such as ``e.g.``), or at the end of the first paragraph (PEP 257's
    summary line, https://peps.python.org/pep-0257/), or before a section's heading
    (:data:`SECTION_NAMES`: ``Parameters`` over ``----------``, ``Args:``; a docstring
    that opens with one has no summary, ``""``). Cut at a word to at most
    :data:`MAX_SUMMARY_CHARS` characters, ending with ``…`` when cut.

    Memoized: an entity's summary is read for its line and for its structured form in
    every context it enters (see :data:`SUMMARIES_KEPT`).

    Example:
        >>> first_sentence("Return the sum, e.g. of two ints. Never raises.")
        'Return the sum, e.g. of two ints.'
    """
    paragraph: list[str] = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line or _opens_section(line):
            break
        if len(line) >= 3 and not line.strip("-=~_*^#"):  # a rule (reStructuredText's)
            if not paragraph:
                continue  # a heading's overline, or a rule above the text
            if _is_section_name(paragraph[-1]):  # numpydoc's `Parameters` over its rule
                paragraph.pop()
            break
        paragraph.append(line)
    words = " ".join(paragraph).split()
    taken: list[str] = []
    for word in words:
        taken.append(word)
        # "(i.e." and "`e.g." open a parenthesis or a span: no sentence ends there
        if word[-1:] in ".!?" and word.lower().lstrip(_OPENERS) not in _ABBREVIATIONS:
            break
    sentence = " ".join(taken)
    if len(sentence) <= MAX_SUMMARY_CHARS:
        return sentence
    cut = sentence[: MAX_SUMMARY_CHARS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def _opens_section(line: str) -> bool:
    """Whether ``line`` (stripped) is a Google-style section heading: ``Returns:``."""
    return line.endswith(":") and _is_section_name(line[:-1].rstrip())


def _is_section_name(title: str) -> bool:
    """Whether ``title`` names a docstring section (:data:`SECTION_NAMES`, any case)."""
    return title.lower() in SECTION_NAMES


class Visibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


def visibility_of(name: str) -> Visibility:
    """Private when the last dotted part of ``name`` starts with ``_`` (Python convention)."""
    last = name.rsplit(".", 1)[-1]
    return Visibility.PRIVATE if last.startswith("_") else Visibility.PUBLIC


@lru_cache(maxsize=8192)  # asked for every candidate of every context
def enclosing(entity: Entity) -> str | None:
    """What a function or class is defined inside, when it is not its module: the
    dotted path from its module (``_fit_context`` for ``sklearn.base._fit_context.
    decorator`` of ``sklearn/base.py``; ``Header._relativeinsert``; ``Model`` for a
    nested ``Meta``), so that a line does not read as a module-level definition.
    ``None`` for a module-level one, a method or attribute (its line names its class),
    or an id that does not hold its file's module name."""
    if entity.kind not in (EntityKind.FUNCTION, EntityKind.CLASS) or not entity.path:
        return None
    module = module_name(entity.path)
    parts = entity.id.split(".")[:-1]
    if module not in parts:
        return None
    inner = parts[len(parts) - parts[::-1].index(module) :]
    return ".".join(inner) or None


def module_name(path: str) -> str:
    """The last part of the dotted name of the module at ``path`` (a file's name without
    its suffix; a package's ``__init__.py``, its folder's name)."""
    folder, _, file_name = path.replace("\\", "/").rpartition("/")
    module = file_name.rpartition(".")[0] or file_name
    return folder.rpartition("/")[2] if module == "__init__" else module


@lru_cache(maxsize=8192)  # asked for every candidate of every context
def is_test_path(path: str | None) -> bool:
    """Whether ``path`` (POSIX, relative to the indexed root) holds tests: a file named
    ``test_*.py``, ``*_test.py``, ``tests.py`` (Django's) or ``conftest.py``, or one below
    a ``tests`` or ``test`` folder or one named ``*_tests`` (pytest's test discovery
    conventions). ``None`` (no file) is not a test path."""
    if not path:
        return False
    *folders, name = path.split("/")
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name in ("tests.py", "conftest.py")
        or any(part in ("tests", "test") or part.endswith("_tests") for part in folders)
    )


EXAMPLE_FOLDERS = frozenset(
    {"examples", "example", "doc", "docs", "tutorials", "tutorial", "gallery", "galleries"}
)
"""Folders of a source tree that hold example and documentation scripts, not the
library (scikit-learn's ``examples/``, matplotlib's ``galleries/``)."""

BENCHMARK_FOLDERS = frozenset({"benchmarks", "benchmark", "asv_bench", "asv_benchmarks"})
"""Top-level folders of a source tree that hold its benchmark suite, not the library
(xarray's ``asv_bench/``, scikit-learn's ``asv_benchmarks/``: a played question about
xarray's ``Rolling`` was shown the suite's class of that name). Below the top a folder
so named may be the library (HELM's ``src/helm/benchmark/``)."""


def is_example_path(path: str | None) -> bool:
    """Whether ``path`` (POSIX, relative to the indexed root) is a script below one of
    :data:`EXAMPLE_FOLDERS`, or below a top-level one of :data:`BENCHMARK_FOLDERS`: its
    module-level variables (``sample_weight = ...``, ``y_true = ...``) share their
    names with the library's parameters."""
    if not path:
        return False
    folders = path.split("/")[:-1]
    return bool(folders) and (
        folders[0] in BENCHMARK_FOLDERS or any(part in EXAMPLE_FOLDERS for part in folders)
    )


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a fact was read from.

    Attributes:
        path: POSIX path relative to the indexed root.
        start_line: First line, 1-based.
        end_line: Last line, 1-based, inclusive.
        digest: SHA-256 hex digest of the whole file's bytes.
    """

    path: str
    start_line: int
    end_line: int
    digest: str

    def marker(self) -> str:
        """Short human-readable marker, e.g. ``"pkg/mod.py:10-14"``."""
        if self.start_line == self.end_line:
            return f"{self.path}:{self.start_line}"
        return f"{self.path}:{self.start_line}-{self.end_line}"


@dataclass(frozen=True, slots=True)
class Entity:
    """A node of the knowledge graph.

    Attributes:
        id: Stable unique id: the dotted qualified name for code entities, as Python
            imports it (``"pkg.mod.Class.method"``; a nested function is
            ``"pkg.mod.outer.inner"``), the id itself for requirements and decisions
            (``"REQ-008-013"``, ``"DEC-7"``), ``"?name"`` for an unresolved target.
        kind: The entity kind.
        name: The short name used in context text and citations (``"method"``).
        path: Source path relative to the indexed root, or ``None``.
        line: 1-based first line of the definition: its first decorator's, as CPython
            (``co_firstlineno``), :func:`inspect.getsourcelines` and griffe count it,
            else the ``def``/``class`` keyword's, or the assignment's; or ``None``.
        signature: What follows the name where it is defined. Functions and methods: the
            parameters with annotations, defaults and ``/``/``*`` markers, and the return
            type (``"(self, key: str, default: int = 0) -> int"``); classes: type
            parameters and bases (``"(Base, Mixin)"``); attributes: the annotation and
            the value, bounded (``": int = 3"``); decisions and requirements: the title.
            User-supplied entities may hold bare argument names (``"a, b"``).
        resolved: ``False`` for a target that could not be resolved to a definition.
        end_line: Last line of the definition, inclusive, or ``None``.
        docstring: The docstring, cleaned (:func:`inspect.cleandoc`) and bounded to
            :data:`MAX_DOCSTRING_CHARS`; ``""`` when there is none.
        decorators: The decorators as written, with their arguments when those are
            short (``"property"``, ``"functools.cache"``,
            ``"dataclasses.dataclass(frozen=True)"``; ``"app.route"`` for a long
            ``@app.route(...)``), innermost last.
        set_in: For an instance attribute, the method of its class that sets it first
            (``"__init__"``), where its ``line`` is; ``""`` for any other entity.
        assignments: For an attribute, how many statements assign it: of an instance
            attribute, its class's methods' (``self.x = ...``); of a module or class
            attribute, its body's (``x = ...``, ``x += ...``) and its methods'; a bare
            annotation (``cookies: CookieJar``, or ``self.x: str`` in a method) declares
            it and counts none, and
            ``line`` and ``signature`` are then the declaration's. More than
            one when branches or methods set it differently, of which ``line`` and
            ``signature`` show the first. For a function or method, how many ``def``
            statements of its scope define it when more than one (conditional
            definitions, of which ``line`` and ``signature`` show the first). ``0``
            for any other entity (and for one a user's store gives without saying).
        under: For a class, function or attribute of a module's or class's body, the
            innermost clause of a compound statement of that body it is defined in, as
            its header reads, with its line: ``"except ImportError (L34)"``, ``"if
            TYPE_CHECKING (L12)"``, ``"else of if sys.version_info >= (3, 11) (L40)"``
            (it exists only when that clause runs); ``""`` at the body's top level and
            for any other entity.
        asynchronous: Whether a function or method is defined with ``async def`` (a
            coroutine function, or an asynchronous generator's); ``False`` for any
            other entity.
    """

    id: str
    kind: EntityKind
    name: str
    path: str | None = None
    line: int | None = None
    signature: str = ""
    resolved: bool = True
    end_line: int | None = None
    docstring: str = ""
    decorators: tuple[str, ...] = ()
    set_in: str = ""
    assignments: int = 0
    under: str = ""
    asynchronous: bool = False

    @property
    def visibility(self) -> Visibility:
        return visibility_of(self.name)

    @property
    def summary(self) -> str:
        """The docstring's first sentence (at most :data:`MAX_SUMMARY_CHARS`), or ``""``."""
        return first_sentence(self.docstring)


def make_fact_id(subject: str, relation: RelationKind | str, object_: str) -> str:
    """Stable fact id: ``"f-"`` + the first 16 hex digits of SHA-256 of the triple."""
    digest = hashlib.sha256(f"{subject}\x1f{relation}\x1f{object_}".encode()).hexdigest()
    return f"f-{digest[:16]}"


@dataclass(frozen=True, slots=True)
class Fact:
    """A relation ``subject -relation-> object`` between two entity ids."""

    subject: str
    relation: RelationKind
    object: str
    provenance: Provenance | None = None
    fact_id: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.fact_id:
            object.__setattr__(
                self, "fact_id", make_fact_id(self.subject, self.relation, self.object)
            )


class Reason(StrEnum):
    """Why an entity is in an injected context."""

    MENTION = "mention"
    """The task names it as code."""
    LEXICAL = "lexical"
    """The task's words match its name, signature or docstring."""
    RETRIEVED = "retrieved"
    """The injector's retriever returned it (:mod:`citeloop.knowledge.retrieval`)."""
    GRAPH = "graph"
    """It is related to those (personalized PageRank over the graph)."""
    NAMED = "named"
    """A previous answer named it (a widened context brings it in)."""
    OWNER = "owner"
    """It is the class of a member in the context (its line names it)."""
    MEMBER = "member"
    """It is listed on its class's member line (:mod:`~citeloop.knowledge.member_lists`)."""


LISTED_BY_OTHERS = frozenset({Reason.OWNER, Reason.MEMBER})
"""Reasons of the entities a context names on other entities' lines, not selected: a
widening keeps what was selected and lists these again."""


@dataclass(frozen=True, slots=True)
class ContextEntity:
    """One entity of an injected context, as the validator sees it.

    Attributes:
        name: The short name an answer references and cites.
        kind: Entity kind.
        tier: ``core`` (must be cited) or ``supporting`` (may be cited).
        id: The entity id in the graph (qualified name), when known.
        path: Source path relative to the indexed root, when known.
        line: First line of the definition (1-based), when known.
        end_line: Last line of the definition, inclusive, when known.
        signature: The signature as the graph holds it (see :class:`Entity`).
        summary: The first sentence of its docstring.
        reason: Why it is in the context (a :class:`Reason` value), when injected.
        score: Its rank score in the context (personalized PageRank, damped), in [0, 1].
    """

    name: str
    kind: EntityKind
    tier: Tier = Tier.CORE
    id: str = ""
    path: str | None = None
    line: int | None = None
    end_line: int | None = None
    signature: str = ""
    summary: str = ""
    reason: str = ""
    score: float = 0.0

    @property
    def visibility(self) -> Visibility:
        return visibility_of(self.name)


_NAME_FIELDS = ("names", "lacking", "lacking_words", "members", "files", "callers", "written")
"""The fields of :class:`ContextExpansion` that hold names (or words, or paths)."""


def _check_names(field_name: str, value: object) -> None:
    """Raise ``TypeError`` unless ``value`` is a sequence of str (a str itself would be
    searched one character at a time)."""
    if isinstance(value, str):
        raise TypeError(
            f"{field_name} must be a sequence of str, got the str {value!r}; wrap it: ({value!r},)"
        )
    if not isinstance(value, tuple | list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{field_name} must be a sequence of str, got {value!r}")


@dataclass(frozen=True, slots=True)
class ContextExpansion:
    """How much wider than the default a context goes.

    Attributes:
        extra_hops: Hops of neighbourhood beyond the injector's default, >= 0.
        include_tested_by: Also follow ``tested_by`` relations to tests.
        include_requirement_closure: Also add every entity that traces to a requirement
            already in the context.
        limit_multiplier: Multiplies the injector's token budget (and entity limit), 1 to
            :data:`MAX_LIMIT_MULTIPLIER`.
        names: Names a previous answer used: the entities the graph has of them come in
            as supporting entities (never core).
        lacking: Those of ``names`` the answer said the context lacks ("the body of
            `add_edge` is not shown"): a source excerpt shown before shows up to
            :data:`~citeloop.knowledge.excerpts.FIRST_LOOK_LINES` more of its lines;
            of an attribute of a class, the statements of the class's methods that set
            it are shown as lines asked for
            (:func:`~citeloop.knowledge.assignments.assignment_sites`).
        lacking_words: The words in which the answer said what the context lacks where
            it named no code ("the context does not show the test that checks term
            references": ``test``, ``checks``, ``term``, ``references``; see
            :func:`citeloop.grounding.lacking.lacking_words`): they choose the lines of
            long excerpts, and when ``lacking`` is empty (it named none of the code it
            lacks), with the task's words they find entities as a task's words do
            (lexical hits).
        members: Those of ``lacking`` whose body or members the answer said the context
            lacks ("the test methods of `Mixin`"; see
            :func:`citeloop.grounding.lacking.lacking_members`): of such a class, the
            widened context holds its best members, at most
            :data:`~citeloop.knowledge.candidate_order.MEMBERS_ASKED`, before what the context
            it widens held.
        lines: ``(entity id, first, last)`` of the source lines the answer said the
            context lacks ("L366-371 are not shown"): the widened context shows those
            of them that are code of a body (not its signature or docstring, which the
            entity line gives), at most
            :data:`~citeloop.knowledge.excerpts.MAX_EXCERPT_LINES` a range,
            :data:`~citeloop.knowledge.excerpts.MAX_ASKED_LINES` in all and half the
            widened context's share of source.
        files: The paths of the files the answer said code it lacks is in ("the
            body of `predict` in `sklearn/ensemble/_bagging.py`"; see
            :func:`citeloop.grounding.lacking.lacking_files`): a name of ``lacking``
            that several entities have means those defined there, when some are.
        callers: Those of ``lacking`` whose callers the answer said the context lacks
            ("the method that calls `save_session`"; see
            :func:`citeloop.grounding.lacking.lacking_callers`): the widened context
            shows the code that calls such an entity, at most
            :data:`~citeloop.knowledge.neighbourhood.CALLERS_ASKED` of each, with its
            source, before what the context it widens held.
        written: Those of ``names`` that the text of the context the answer saw
            writes as identifiers (its graph lines and the source lines it showed). One
            that the answer did not say the context lacks, and that names no entity of
            that context, none defined beside it, none a fact ties to it and nothing
            its files import, is a name of the code shown (``_args`` of ``f(*_args)``,
            ``return_value`` of ``mock.return_value``), not a namesake elsewhere: it
            brings none.
    """

    extra_hops: int = 0
    include_tested_by: bool = False
    include_requirement_closure: bool = False
    limit_multiplier: int = 1
    names: tuple[str, ...] = ()
    lacking: tuple[str, ...] = ()
    lacking_words: tuple[str, ...] = ()
    lines: tuple[tuple[str, int, int], ...] = ()
    members: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    callers: tuple[str, ...] = ()
    written: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.extra_hops < 0:
            raise ValueError(f"extra_hops must be >= 0, got {self.extra_hops}")
        if not 1 <= self.limit_multiplier <= MAX_LIMIT_MULTIPLIER:
            raise ValueError(
                f"limit_multiplier must be within 1..{MAX_LIMIT_MULTIPLIER:,}, "
                f"got {self.limit_multiplier}"
            )
        for field_name in _NAME_FIELDS:
            _check_names(field_name, getattr(self, field_name))
        for item in self.lines:
            if not (
                isinstance(item, tuple | list)
                and len(item) == 3
                and isinstance(item[0], str)
                and all(isinstance(n, int) and not isinstance(n, bool) for n in item[1:])
            ):
                raise TypeError(
                    f"lines must hold (entity id, first line, last line) tuples, got {item!r}"
                )

    @classmethod
    def for_attempt(
        cls,
        attempt: int,
        names: tuple[str, ...] = (),
        lacking: tuple[str, ...] = (),
        lacking_words: tuple[str, ...] = (),
        lines: tuple[tuple[str, int, int], ...] = (),
        members: tuple[str, ...] = (),
        files: tuple[str, ...] = (),
        callers: tuple[str, ...] = (),
        written: tuple[str, ...] = (),
    ) -> ContextExpansion:
        """The widening used for retry ``attempt`` (0-based) of the grounded-answer loop.

        ``extra_hops = attempt + 1``, tested_by and requirement closure included,
        ``limit_multiplier = attempt + 2``, the ``names`` the previous answer used, those
        of them it said the context lacks (``lacking``), the words in which it said
        what else the context lacks (``lacking_words``), the source lines it said
        the context lacks (``lines``), the classes whose members it said the
        context lacks (``members``), the files it said code it lacks is in
        (``files``), the names whose callers it said the context lacks
        (``callers``), and the identifiers the text of the context it saw writes
        (``written``).
        """
        for field_name, value in zip(
            _NAME_FIELDS,
            (names, lacking, lacking_words, members, files, callers, written),
            strict=True,
        ):
            if isinstance(value, str):  # checked before it becomes a tuple of characters
                _check_names(field_name, value)
        return cls(
            extra_hops=attempt + 1,
            include_tested_by=True,
            include_requirement_closure=True,
            limit_multiplier=attempt + 2,
            names=tuple(names),
            lacking=tuple(lacking),
            lacking_words=tuple(lacking_words),
            lines=tuple(lines),
            members=tuple(members),
            files=tuple(files),
            callers=tuple(callers),
            written=tuple(written),
        )


@dataclass(frozen=True, slots=True)
class InjectedContext:
    """What ``ContextInjector.inject`` returns.

    Attributes:
        text: The context block in the documented text format.
        entities: The same content as structured entities with tiers, in rank order.
        facts: The facts between them (the relation lines of the text and more).
        snapshot: The graph snapshot id the context was read from.
        expansion: The expansion used, or ``None`` for the default context.
        tokens: Tokens of ``text`` (as the injector counts them).
        budget: The token budget it was filled to (core entities may exceed it).
        excerpts: ``(entity id, line numbers shown)`` of each entity whose source
            the text shows (:mod:`citeloop.knowledge.excerpts`), best first.
        relations: The ids of the facts the text writes a relation line for (of
            ``facts``, in their order): a widening writes them again.
        brief: The ids of the entities whose line the text writes brief (a function's
            parameters ``(...)``, no summary; :mod:`citeloop.knowledge.budget`), in
            rank order: a widening writes the others' whole again (``inject(whole=)``).
    """

    text: str
    entities: tuple[ContextEntity, ...]
    facts: tuple[Fact, ...] = ()
    snapshot: str = ""
    expansion: ContextExpansion | None = None
    tokens: int = 0
    budget: int = 0
    excerpts: tuple[tuple[str, tuple[int, ...]], ...] = ()
    relations: tuple[str, ...] = ()
    brief: tuple[str, ...] = ()

    @property
    def core(self) -> tuple[ContextEntity, ...]:
        return tuple(e for e in self.entities if e.tier is Tier.CORE)
