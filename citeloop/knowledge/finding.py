"""Finding a context's seeds: the entities a text names as code, the classes its
capitalized words name, the entities an answer's names mean, and the entities words
find (lexical hits).

:class:`EntityFinder` reads them from a graph for
:class:`~citeloop.knowledge.injector.ContextInjector`, which weighs and ranks them. The
task's mentions, words and whether it speaks of tests are kept per text
(:data:`TEXTS_KEPT`): a retry widens the context of the same task.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Collection, Sequence
from functools import lru_cache

from citeloop.grounding.mentions import (
    STOP_WORDS,
    Mention,
    code_mentions,
    identifier_words,
    product_names,
    query_words,
    same_file,
    word_stem,
)
from citeloop.knowledge.excerpts import excerptable
from citeloop.knowledge.model import (
    Entity,
    EntityKind,
    RelationKind,
    is_example_path,
    is_test_path,
)
from citeloop.knowledge.names import RECEIVERS, python_attribute
from citeloop.knowledge.neighbourhood import admissible, defined_by
from citeloop.knowledge.search import MemoryIndex
from citeloop.knowledge.seeds import (
    choose,
    entities_by_name,
    family_heads,
    hit_weights,
    is_plain_word,
    named_groups,
    namesake_hints,
    owner_id,
    quoted_code,
)
from citeloop.knowledge.store import BatchedGraphStore, GraphStore, SearchableGraphStore
from citeloop.text import normalize_text, without_invisible

LEXICAL_HITS = 24
"""Entities lexical retrieval contributes as seeds."""

SEARCH_FACTOR = 3
"""Hits read per lexical seed wanted (and the growth of that number while too few are
admissible): a test (unless tests are followed) is skipped without taking a seed's
place."""

MAX_SEARCH = 2_000
"""Most hits one lexical lookup reads, however many tests crowd the best ones."""

ATTRIBUTE_SEED_FACTOR = 0.5
"""Seed weight of an attribute found by its words, against a class or function's: the
walk leads nowhere from it (nothing it calls or inherits), and its words are often a
bare name."""

_MODULE_LEVEL_KINDS = frozenset({EntityKind.CLASS, EntityKind.FUNCTION})
"""Kinds of a short name's entity a widening brings beside no class the answer read."""

TEXTS_KEPT = 256
"""Task texts whose mentions, query words and retrieved ids (per injector) are kept: a
retry widens the context of the same task, and its default context was read from the
same text."""


@lru_cache(maxsize=TEXTS_KEPT)
def task_mentions(text: str) -> tuple[Mention, ...]:
    """The names ``text`` writes as code (:func:`~citeloop.grounding.mentions.code_mentions`)."""
    return tuple(code_mentions(text))


_PARAMETER_NOUN = r"(?:parameters?|arguments?|kwargs?|keyword arguments?)\b"
_QUOTE_OPEN = "[`'\"\u2018\u201c]"
_QUOTE_CLOSE = "[`'\"\u2019\u201d]"
_PARAMETERS = re.compile(
    _QUOTE_OPEN + r"([A-Za-z_]\w*)" + _QUOTE_CLOSE + r"(?:'s|\u2019s)?[\t ]+" + _PARAMETER_NOUN
    + r"|\b" + _PARAMETER_NOUN + r"[\t ]+" + _QUOTE_OPEN + r"([A-Za-z_]\w*)" + _QUOTE_CLOSE,
    re.IGNORECASE,
)  # fmt: skip
"""A name a text writes as a parameter, in backticks or quotes: "the `pos_label`
parameter", "the 'fill_value' argument", "the argument `axis`" (no nested repeats:
linear)."""


@lru_cache(maxsize=TEXTS_KEPT)
def parameter_names(text: str) -> frozenset[str]:
    """The names ``text`` writes in backticks or quotes as a parameter's or an
    argument's (``"the `response_method` parameter's 'auto'"`` gives
    ``response_method``, "the 'fill_value' argument" ``fill_value``)."""
    return frozenset(a or b for a, b in _PARAMETERS.findall(text))


@lru_cache(maxsize=TEXTS_KEPT)
def task_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` worth a lexical lookup
    (:func:`~citeloop.grounding.mentions.query_words`), then its compounds written as
    one word (:func:`compound_words`), then the names its neighbouring words spell
    (:func:`joined_words`)."""
    return tuple(dict.fromkeys([*query_words(text), *compound_words(text), *joined_words(text)]))


_PIECE_ENDS = string.punctuation + "\u201c\u201d\u2018\u2019\u00ab\u00bb"
"""Characters stripped from both ends of a white-space-separated piece of text."""

MAX_COMPOUNDS = 16
"""Most compounds a task searches (its other words are bounded too)."""


def compound_words(text: str, limit: int = MAX_COMPOUNDS) -> list[str]:
    """Each compound of ``text`` as one lower-case word, in order of first appearance.

    English hyphenates what code writes as one word, so "class-like" finds
    ``PyClasslike`` (whose words are ``py`` and ``classlike``), "read-only" ``readonly``
    and "pkg-config" ``pkgconfig``; and a name in mixed case is one word in a module's
    name, so "BigQuery's" finds ``dialect_bigquery`` (whose words are ``dialect`` and
    ``bigquery``), as "PostgreSQL" ``postgresql``.

    A hyphenated compound is letters joined by single hyphens ("3-way", "--verbose" and
    "a--b" are none); a mixed-case one is letters with a capital after the first (a
    possessive "'s" left out). Each is a piece of the text split at white space, its
    punctuation ends stripped (one pass over the text, no regex: linear); at most
    ``limit`` of them.
    """
    found: dict[str, None] = {}
    for piece in without_invisible(normalize_text(text)).split():
        piece = piece.strip(_PIECE_ENDS)
        parts = piece.split("-")
        word = piece.removesuffix("'s").removesuffix("\u2019s")
        if len(parts) > 1 and all(part.isalpha() for part in parts):
            found.setdefault("".join(parts).lower())
        elif word.isalpha() and not word.isupper() and not word[1:].islower() and word[1:]:
            found.setdefault(word.lower())
        if len(found) >= limit:
            break
    return list(found)


MAX_JOINED = 24
"""Most joined words a task searches."""


def joined_words(text: str, limit: int = MAX_JOINED) -> list[str]:
    """The names a task's neighbouring words spell, as one lower-case word each, in order
    of first appearance: a word joined to the next word, and to the one after that.

    Code names a thing by the words prose uses for it, run together: "the state
    persistence manager" is ``StateManager`` and "the event handler decorator"
    ``EventHandler``. The index holds each name whole (``statemanager``), so such a
    word finds the name itself, and rarely anything else. Words are joined within a
    clause only (punctuation ends one), both letters only and neither a stop word; at
    most ``limit`` of them. One pass over the text's pieces: linear.
    """
    found: dict[str, None] = {}
    clause: list[str | None] = []  # the clause's words so far; None for a stop word
    for piece in without_invisible(normalize_text(text)).split():
        word = piece.strip(_PIECE_ENDS)
        if word != piece.rstrip(_PIECE_ENDS):  # "(state": a clause starts
            clause = []
        word = word.removesuffix("'s").removesuffix("\u2019s").lower()
        if not word.isalpha():
            clause = []
            continue
        content = word if len(word) > 1 and word not in STOP_WORDS else None
        if content is not None:
            for before in clause[-2:]:
                if before is not None and len(found) < limit:
                    found.setdefault(before + content)
        clause.append(content)
        if piece.rstrip(_PIECE_ENDS) != piece:  # "manager,": the clause ends
            clause = []
    return list(found)


_TESTS_WORDS = re.compile(
    r"\b(?:test\w*|fixtures?|conftest|pytest|unittest|mock\w*|doctests?)\b", re.IGNORECASE
)
"""Words that make a task about tests (one pass over the text: linear)."""


@lru_cache(maxsize=TEXTS_KEPT)
def about_tests(text: str) -> bool:
    """Whether a task speaks of tests (``test``, ``testing``, ``test_foo``, ``fixture``,
    ``conftest``, ``pytest``, ``unittest``, ``mock``...): then test code is neither
    damped in its ranking nor passed over for an ambiguous name."""
    return _TESTS_WORDS.search(text) is not None


def kind_factor(entity: Entity) -> float:
    """A found entity's seed weight factor: :data:`ATTRIBUTE_SEED_FACTOR` for an
    attribute, else 1."""
    return ATTRIBUTE_SEED_FACTOR if entity.kind is EntityKind.ATTRIBUTE else 1.0


BASE_LEVELS = 3
"""Levels of bases whose members are beside a class the task names
(:meth:`EntityFinder.core`)."""

MEMBERS_MATCHING = 2
"""Members of a class the task names that its words seed at most
(:meth:`EntityFinder.members_matching`)."""

MAX_LACKING_NAMESAKES = 8
"""Entities of one bare name an answer said the context lacks beyond which a widening
brings only those of the classes the context holds (:meth:`EntityFinder.named`)."""

MIN_NAME_CHARS = 3
"""A name an answer writes with fewer characters (``X``, ``K``, ``df``) is a variable of
the code it saw, read as a plain word is (:meth:`EntityFinder.named`)."""


class EntityFinder:
    """The entities a text names or its words find, read from one graph.

    Args:
        store: The graph; lexical hits need a
            :class:`~citeloop.knowledge.store.SearchableGraphStore` (else none).
        reads: The store's reads as the injector makes them
            (:func:`~citeloop.knowledge.store.batched`).
        lexical_hits: Entities a lexical lookup returns at most, >= 0 (an attribute of
            that name, which the injector sets to its own at each ``inject``).
    """

    def __init__(self, store: GraphStore, reads: BatchedGraphStore, lexical_hits: int) -> None:
        self._store = store
        self._reads = reads
        self._searchable = isinstance(store, SearchableGraphStore)
        self.lexical_hits = lexical_hits

    @property
    def _lexical_hits(self) -> int:
        """:attr:`lexical_hits`, or 0 for a store without full-text search."""
        return self.lexical_hits if self._searchable else 0

    def core(self, text: str, tests: bool | None, limit: int | None) -> list[Entity]:
        """The entities ``text`` names as code, in order of first mention, an ambiguous
        name's definition in or beside what the text's other words find (see
        :mod:`~citeloop.knowledge.seeds`), then outside test code, preferred unless the
        text is about tests (``tests``; ``None``: :func:`about_tests`); at most
        ``limit`` when given. A variable of an example or documentation script
        (:func:`~citeloop.knowledge.model.is_example_path`) is never core, nor a
        module's variable of test code unless the text is about tests: "the
        `sample_weight` parameter" names no ``sample_weight = ...`` of a gallery script
        or a test module (a played retry had asked to cite a test module's
        ``sample_weight = rng.rand(N)``; a test's form's ``Meta.fields`` may be core)."""
        library = not (about_tests(text) if tests is None else tests)
        mentioned = self._mentioned(text, capitalized=False)
        variables = [e for group in mentioned for e in group if e.kind is EntityKind.ATTRIBUTE]
        tested = [e for e in variables if library and is_test_path(e.path)]
        scripts = {e.id for e in variables if is_example_path(e.path)}
        scripts |= {e.id for e in self._module_level(tested)} if tested else set()
        # "the `response_method` parameter" names a parameter, not the attribute of
        # another class that stores one so named (a played retry asked to cite the
        # threshold classifier's `response_method`): only a named class's is meant.
        # A name with an underscore written bare in prose ("the flow between y_true and
        # y_score") is a parameter or a variable as often as a class's attribute: not
        # the attribute of a class no word of the task hints at (a played retry asked to
        # cite a regression display's `y_true` in a question about a metrics test; "the
        # function name segment class's match_grammar" is a segment's, and "warm_start in
        # _posterior_mode()" that method's class's).
        # (A trailing underscore, `coef_`, is an attribute's by convention: it stays.)
        bare = {
            m.name
            for m in task_mentions(text)
            if m.form == "underscore" and not m.name.endswith("_")
        }
        if (parameters := parameter_names(text)) or bare:
            named = {m.name.rpartition(".")[2] for m in task_mentions(text)}
            unnamed = [e for e in variables if owner_id(e.id).rpartition(".")[2] not in named]
            attributes = [e for e in unnamed if e.name in bare]
            in_modules = {e.id for e in self._module_level(attributes)} if attributes else set()
            stems = {word_stem(word) for word in task_words(text)}
            # the classes of the other code it names (`_posterior_mode()`'s class)
            holders = {owner_id(e.id) for group in mentioned for e in group if e.name not in bare}
            scripts |= {e.id for e in unnamed if e.name in parameters}
            scripts |= {
                e.id
                for e in attributes
                if e.id not in in_modules
                and owner_id(e.id) not in holders
                and not any(
                    word_stem(word) in stems
                    for word in identifier_words(owner_id(e.id).rpartition(".")[2])
                )
            }
        groups = [[e for e in group if e.id not in scripts] for group in mentioned]
        groups = [group for group in groups if group]
        hints: dict[str, float] = {}
        bases: set[str] = set()
        quoted: dict[str, int] = {}
        if ambiguous := [group for group in groups if len(group) > 1]:
            bases = self._bases(groups)
            # What the task's other words find tells the namesakes apart.
            named = {
                word
                for group in groups
                for word in (group[0].name.lower(), *identifier_words(group[0].name))
            }
            other = [word for word in task_words(text) if word not in named]
            held = hit_weights(self.lexical(other, follow_tests=not library))
            for group in ambiguous:
                hints.update(namesake_hints(group, held))
            mentions = [m.name for m in task_mentions(text) if m.form != "capitalized"]
            quoted = quoted_code(self._reads, ambiguous, mentions)
        return choose(groups, limit, library, self._heads, hints, bases, quoted)

    def capitalized_classes(self, text: str, tests: bool | None) -> list[Entity]:
        """The classes named by a capitalized word inside a sentence (``the Frozen
        wrapper``), chosen among same-named ones as core entities are (``tests`` as for
        :meth:`core`): a hint, never core, because English capitalizes proper nouns too
        (``Python's dictionary protocol``)."""
        library = not (about_tests(text) if tests is None else tests)
        return choose(self._mentioned(text, capitalized=True), None, library, self._heads)

    def _heads(self, group: list[Entity]) -> list[Entity]:
        """:func:`~citeloop.knowledge.seeds.family_heads` in this graph."""
        return family_heads(self._reads, group)

    def _module_level(self, group: list[Entity]) -> list[Entity]:
        """The entities of ``group`` that no class defines (a method, or an attribute
        whose owner is a class, is left out)."""
        owners = self._reads.get_entities(
            [owner_id(e.id) for e in group if e.kind is EntityKind.ATTRIBUTE]
        )
        return [
            entity
            for entity in group
            if entity.kind is not EntityKind.METHOD
            and getattr(owners.get(owner_id(entity.id)), "kind", None) is not EntityKind.CLASS
        ]

    def _mentioned(self, text: str, *, capitalized: bool) -> list[list[Entity]]:
        """The candidate groups of the task's mentions written as code, or (with
        ``capitalized``) of its capitalized words and the products it names
        (:func:`~citeloop.grounding.mentions.product_names`), which name classes only."""
        mentions = [m for m in task_mentions(text) if (m.form == "capitalized") == capitalized]
        if capitalized:
            mentions += [Mention(name, "capitalized") for name in product_names(text)]
        if not mentions:
            return []
        named = entities_by_name(self._reads, [m.name for m in mentions])
        if not named:
            return []
        groups = []
        for mention in mentions:
            for group in named_groups(mention.name, named, self._module_level):
                if capitalized:
                    group = [entity for entity in group if entity.kind is EntityKind.CLASS]
                if group:
                    groups.append(group)
        return groups

    def named(
        self,
        names: Sequence[str],
        near: Callable[[list[Entity]], list[Entity]],
        lacking: Collection[str],
        seen: Collection[str] = (),
        nearest: Callable[[list[Entity]], list[Entity]] | None = None,
        files: Collection[str] = (),
        sourced: Collection[str] = (),
        *,
        written: Collection[str] = (),
        linked: Callable[[], Collection[str]] = frozenset,
        parameters: Collection[str] = (),
    ) -> list[Entity]:
        """The entities of names a previous answer used, in the order the answer used
        them, then by id: the entities of a bare name; of a dotted one
        (``StateGraph.validate``), the entities its qualified tail names, as for a
        mention (:func:`~citeloop.knowledge.seeds.named_groups`).

        A name it used without saying the context lacks it means what it saw: of its
        entities, those the context showed (``seen``, by id), and only those (the
        ``inverse_transform`` of the scaler shown, not every scaler's). When the
        context showed none of them: for a plain word, the members so named of the
        classes it showed (``compile`` beside ``StateGraph``), else none
        (:func:`~citeloop.knowledge.seeds.is_plain_word`: ``value``, ``name`` or
        ``args`` in its prose are no code it asks for; a bare dunder such as
        ``__init__``, which every class has, likewise; and a name shorter than
        :data:`MIN_NAME_CHARS`, such as ``X``); else of several, those ``near`` the
        context (:func:`~citeloop.knowledge.seeds.near_context`), and when none is,
        the best of them as for a mention (:func:`~citeloop.knowledge.seeds.choose`:
        ``func.restype`` in its example is no cue to bring every ``func`` of the code
        base). On 33 played questions, the names their answers used brought 983
        entities into the third context; seen first, 880, and the third contexts held
        78.0% of the reference answers' names instead of 77.1%.

        A name the answer said the context lacks (``lacking``) brings all of them (a
        plain word: all those near the context): the one shown is not the one missing,
        or is, for more of its source; but when some are members of a class it said the
        context lacks by name (``its `from_json` `` beside `` `DragDataItem` ``; "the
        `deconstruct()` of the base class `Field`", a plain word too), only those, else
        when a class it showed inherits some and no class it showed defines one, those
        of the nearest base (:data:`BASE_LEVELS` at most: `is_valid` beside a form class
        is the form's base's, not a namesake in a file it showed), else
        when some are near the context without being in what it showed (``seen``, by
        id: ``Base`` defined in a test file it showed), only those, else those near it
        and, of the rest, those ``nearest`` it (by package,
        :func:`~citeloop.knowledge.seeds.nearest_package`); when some are defined in a
        file it said lacking code is in (``files``: "the body of `predict` in
        `sklearn/ensemble/_bagging.py`", a plain word too), only those. Of a function or
        method the context showed without its source (``sourced``: the ids whose source
        it showed), that one: "the body of `ASTType.get_id`" is the body of the one whose
        line it read, not another package's namesake (a played widening had brought the
        C domain's beside the C++ one shown). A bare name shorter than
        :data:`MIN_NAME_CHARS` (``X``, ``df``: a parameter's or a local's, as often as
        not), said lacking or not, brings only a class or function so named, or a
        member of a class it showed (a played widening had brought the example scripts'
        ``X = ...``; a class ``Q`` still comes). A bare
        name of more than
        :data:`MAX_LACKING_NAMESAKES` such entities brings only those of the classes the
        context holds, when some are (a played answer that lacked `` `get_id` `` had
        brought 90 methods of the file it showed). The same answer
        widens the same way in every process (a set's order would depend on the string
        hash seed).

        A name it used without saying the context lacks it, that the context's text
        writes (``written``: its identifiers) and that names none of the context's
        entities, none ``near`` it and none a fact ties to it (``linked``: the ids, read
        when first needed), is a name of the code it read, not code elsewhere: it brings
        none (a played answer that quoted ``f(*_args)`` and ``mock.return_value`` from
        the source shown had brought a test fixture ``_args`` and a debugger's
        ``CallFrame.return_value``). A bare name that is a parameter of a function or
        method the context showed (``parameters``) means that parameter, said lacking or
        not: it brings only entities a fact ties to the context (a played answer
        that asked where `subplot_kws` of the `__init__` shown comes from had brought a
        test class's ``subplot_kws``). A variable of an example or documentation script
        (:func:`~citeloop.knowledge.model.is_example_path`) comes only when the context
        showed it or the answer named its file, as no such variable is ever core. A
        special attribute Python gives every object, read alone or through a variable
        (``__name__``, ``self.object.__name__``:
        :func:`~citeloop.knowledge.names.python_attribute`), brings none (a played
        widening had brought a mock's and a record's ``__name__``)."""
        wanted = [name for name in dict.fromkeys(names) if not python_attribute(name)]
        if not wanted:
            return []
        found = {
            name: sorted(entities, key=lambda e: e.id)
            for name, entities in entities_by_name(self._reads, wanted).items()
        }
        chosen: dict[str, Entity] = {}
        lacking_owners = {name for name in lacking if "." not in name}  # classes said lacking
        inherited = lru_cache(maxsize=1)(lambda: self._inherited(seen))  # read when needed
        for name in wanted:
            groups = [found.get(name, [])] if name in found else named_groups(name, found)
            group = groups[0] if groups else []
            if name.partition(".")[0] in RECEIVERS and name.count(".") == 1:
                # `self._path`: a member of a class whose code the answer read, the one
                # it showed or one near it, not every class's (a played widening had
                # brought four `_path` attributes of other packages)
                read_in = [e for e in group if e.id in seen or owner_id(e.id) in seen]
                group = read_in or near(group) or group
            # `fit`, `X`, `df`, and `fit.transform` when it names `fit`, its first part
            # (a group has one name); `Ledger.record` names a member, not a plain word
            read = group[0].name if group and "." in name else name
            read = name if read == name.rpartition(".")[2] else read
            plain = is_plain_word(read) or len(read) < MIN_NAME_CHARS
            # `its from_json` beside `DragDataItem`: the member of a class it lacks
            owned = self._members_of_classes(
                [
                    e
                    for e in (group if name in lacking else ())
                    if owner_id(e.id).rpartition(".")[2] in lacking_owners
                ]
            )
            shown = [e for e in group if e.id in seen] if name not in lacking else []
            if plain and name not in lacking and not shown:  # `compile` of the class shown
                shown = [e for e in group if owner_id(e.id) in seen]
            if name in written and name not in lacking and not shown:  # the code's own name
                group = near(group) or [e for e in group if e.id in linked()]
            elif name in parameters and not shown:  # a parameter of the code shown
                group = [e for e in group if e.id in linked()]
            # `predict` "in `sklearn/ensemble/_bagging.py`": that file's, not every one
            in_files = [
                e
                for e in group
                if name in lacking and e.path and any(same_file(f, e.path) for f in files)
            ]
            owned = owned or in_files
            if owned:
                group = owned
            elif shown or (plain and name not in lacking):
                # A name it used, not said lacking, is one it saw: `inverse_transform`
                # beside the scaler shown is not every scaler's; a plain word it saw
                # nowhere (`value`, `__init__`, `X`), nor as a member of a class it saw,
                # is no code it asks for.
                group = shown
            elif len(group) > 1 and name in lacking and not plain:
                # The function it read the line of, not its source: its source. Else
                # `Base` in a file it saw: that one, unless the context showed it; else
                # the one shown (more of its source) and those of the nearest package
                bodiless = [e for e in group if e.id in seen and e.id not in sourced]
                close = near(group)
                new = [e for e in close if e.id not in seen]
                classes, bases = inherited()
                if not any(owner_id(e.id) in classes for e in new):
                    # none a class shown defines: the one a class shown inherits, of the
                    # nearest base that defines one
                    levels = {
                        e.id: bases[o]
                        for e in group
                        if (o := owner_id(e.id)) in bases and e.id not in seen
                    }
                    if levels:
                        first = min(levels.values())
                        new = [e for e in group if levels.get(e.id) == first]
                group = (
                    [e for e in bodiless if excerptable(e)]
                    or new
                    or [*close, *(nearest or list)([e for e in group if e not in close])]
                )
            if not (owned or shown) and group and (len(group) > 1 or plain):
                close = near(group)
                if plain or (close and name not in lacking):  # lacking: another, or its body
                    group = close
                elif name not in lacking:
                    group = choose([group], heads=self._heads)
            if len(read) < MIN_NAME_CHARS and not owned:
                # `X`, `df`: a parameter or a local, or a member of a class it read, or a
                # module's class or function (`Q`); not the module-level `X = ...` of an
                # example script beside the context, nor another class's member
                group = [
                    e for e in group if e.kind in _MODULE_LEVEL_KINDS or owner_id(e.id) in seen
                ]
            if name in lacking and "." not in name and len(group) > MAX_LACKING_NAMESAKES:
                group = [e for e in group if owner_id(e.id) in seen] or group
            # A variable of an example or documentation script only when it was shown or
            # its file named: `cluster_centers` said lacking was a local of the method
            # read, and a played widening had brought a gallery script's.
            group = [
                e
                for e in group
                if e.kind is not EntityKind.ATTRIBUTE
                or not is_example_path(e.path)
                or e.id in seen
                or any(same_file(f, e.path or "") for f in files)
            ]
            for entity in group:
                chosen.setdefault(entity.id, entity)
        return list(chosen.values())

    def members_matching(
        self, classes: Sequence[Entity], words: Sequence[str], follow_tests: bool
    ) -> list[tuple[Entity, float]]:
        """Of each class of ``classes`` (the task names it), the best
        :data:`MEMBERS_MATCHING` members a context may hold that ``words`` (the task's)
        find among its members, each with its score against the class's best (0 to 1;
        an attribute's at :data:`ATTRIBUTE_SEED_FACTOR`), the class's own name words left
        out (every member has them): "how does
        `IndexVariable` enforce ... during initialization" is about
        ``IndexVariable.__init__``, which the lexical hits of the whole graph had ranked
        30th, past the first :data:`LEXICAL_HITS` (its words are every class's). None
        when lexical retrieval is off (``lexical_hits`` 0)."""
        classes = [e for e in classes if e.kind is EntityKind.CLASS]
        if not self._lexical_hits or not classes or not words:
            return []
        defined = defined_by(self._reads, [c.id for c in classes])
        entities = self._reads.get_entities([i for ids in defined.values() for i in ids])
        found: list[tuple[Entity, float]] = []
        for owner in classes:
            members = [
                entities[i]
                for i in defined[owner.id]
                if i in entities and admissible(entities[i], follow_tests)
            ]
            own = {owner.name.lower(), *identifier_words(owner.name)}
            hits = MemoryIndex(members).search([w for w in words if w not in own], MEMBERS_MATCHING)
            by_id = {e.id: e for e in members}
            top = hits[0][1] if hits else 1.0
            found.extend((by_id[i], score / top * kind_factor(by_id[i])) for i, score in hits)
        return found

    def _bases(self, groups: list[list[Entity]]) -> set[str]:
        """The classes the unambiguous class mentions of ``groups`` inherit from, up to
        :data:`BASE_LEVELS` levels: a member of one is beside the class (the
        ``predict_proba`` of a task about ``NuSVC`` is the one ``NuSVC`` inherits from
        ``BaseSVC``, not a calibration class's)."""
        return set(
            self._bases_of(
                [g[0].id for g in groups if len(g) == 1 and g[0].kind is EntityKind.CLASS]
            )
        )

    def _inherited(self, ids: Collection[str]) -> tuple[frozenset[str], dict[str, int]]:
        """The classes among ``ids``, and the classes they inherit from, each with the
        level it is first found at (1: a direct base; :meth:`_bases_of`)."""
        entities = self._reads.get_entities(sorted(ids))
        classes = frozenset(i for i, e in entities.items() if e.kind is EntityKind.CLASS)
        return classes, self._bases_of(sorted(classes))

    def _bases_of(self, level: list[str]) -> dict[str, int]:
        """The ids of the classes the classes of ``level`` (ids) inherit from, up to
        :data:`BASE_LEVELS` levels, each with the level it is first found at."""
        found: dict[str, int] = {}
        for depth in range(1, BASE_LEVELS + 1):
            if not level:
                break
            facts = self._reads.facts_of_many(level)
            level = list(
                dict.fromkeys(
                    fact.object
                    for class_id in level
                    for fact in facts.get(class_id, ())
                    if fact.relation is RelationKind.INHERITS
                    and fact.subject == class_id
                    and not fact.object.startswith("?")
                    and fact.object not in found
                )
            )
            found.update(dict.fromkeys(level, depth))
        return found

    def _members_of_classes(self, entities: list[Entity]) -> list[Entity]:
        """Those of ``entities`` defined in a class (not a module: a played answer that
        lacked `` `check_ucd` `` and a parameter `` `ucd` `` had brought only the
        ``check_ucd`` of module ``ucd``)."""
        if not entities:
            return []
        owners = self._reads.get_entities(list(dict.fromkeys(owner_id(e.id) for e in entities)))
        return [
            e
            for e in entities
            if (owner := owners.get(owner_id(e.id))) is not None and owner.kind is EntityKind.CLASS
        ]

    def lexical(self, words: Sequence[str], follow_tests: bool) -> list[tuple[Entity, float]]:
        """The best ``lexical_hits`` entities ``words`` find that a context may hold
        (a test only when ``follow_tests``), best first, each with its score against
        the best one's (0 to 1; an attribute's at :data:`ATTRIBUTE_SEED_FACTOR`: it
        leads nowhere). The search reads :data:`SEARCH_FACTOR` times as many hits, and
        more while the skipped ones (tests) crowd them out."""
        if not self._lexical_hits or not words:
            return []
        search = self._store.search  # type: ignore[attr-defined]
        wanted = self._lexical_hits * SEARCH_FACTOR
        while True:
            hits = search(list(words), wanted)
            entities = self._reads.get_entities([entity_id for entity_id, _ in hits])
            seeds = []
            for entity_id, score in hits:
                entity = entities.get(entity_id)
                if entity is not None and admissible(entity, follow_tests):
                    seeds.append((entity, score * kind_factor(entity)))
            if len(seeds) >= self._lexical_hits or len(hits) < wanted or wanted >= MAX_SEARCH:
                break
            wanted = min(wanted * SEARCH_FACTOR, MAX_SEARCH)
        seeds = seeds[: self._lexical_hits]
        top = max((score for _, score in seeds), default=0.0) or 1.0
        return [(entity, score / top) for entity, score in seeds]
