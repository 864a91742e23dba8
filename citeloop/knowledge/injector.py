"""``ContextInjector``: find what a task is about, rank it, and fill a token budget.

1. **Mentions** (:mod:`~citeloop.grounding.mentions`, :mod:`~citeloop.knowledge.seeds`,
   read by :mod:`~citeloop.knowledge.finding`): the entities the task names as code are
   its **core** (they must be cited).
2. **Lexical hits** (:mod:`~citeloop.knowledge.search`, :mod:`~citeloop.knowledge.finding`):
   the entities the task's words find, for a task that paraphrases (a store without a
   full-text index has none), and on a retry those of the words in which the answer
   said what the context lacks; and,
   with a ``retriever`` (:mod:`~citeloop.knowledge.retrieval`), the entities it returns.
3. **Ranking** (:mod:`~citeloop.knowledge.neighbourhood`,
   :mod:`~citeloop.knowledge.ranking`): personalized PageRank from those seeds over
   their neighbourhood in the graph, calls and inheritance ahead of member lists, hubs
   and private names damped, and test code too unless the task is about tests.
4. **Budget** (:mod:`~citeloop.knowledge.budget`): core entities first, then the others
   in rank order while their lines fit in ``max_context_tokens`` (each line with the
   relation lines it adds), a member of a class bringing its class's name in
   (:mod:`~citeloop.knowledge.render`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from citeloop.knowledge.assignments import assignment_sites
from citeloop.knowledge.body_lines import focus_terms
from citeloop.knowledge.budget import fill_budget, line_cost
from citeloop.knowledge.candidate_order import (
    asked_code_of,
    best_hit_first,
    few_of_a_name,
    members_follow,
    rank_scores,
)
from citeloop.knowledge.excerpts import (
    EXCERPT_SHARE,
    MAX_EXCERPTS,
    Excerpts,
    candidates,
    choose_excerpts,
    of_members,
    shown_tokens,
    with_asked_lines,
)
from citeloop.knowledge.finding import (
    LEXICAL_HITS,
    TEXTS_KEPT,
    EntityFinder,
    about_tests,
    kind_factor,
    task_words,
)
from citeloop.knowledge.implementations import used_implementations
from citeloop.knowledge.imports import imported_names
from citeloop.knowledge.injector_settings import check_settings
from citeloop.knowledge.member_lists import (
    MEMBER_LIST_SHARE,
    REFILL_SHARE,
    MemberList,
    MemberListSettings,
    choose_member_lists,
    list_label,
)
from citeloop.knowledge.model import (
    DEFAULT_MAX_CONTEXT_TOKENS,
    LISTED_BY_OTHERS,
    ContextEntity,
    ContextExpansion,
    Entity,
    EntityKind,
    InjectedContext,
    Reason,
    RelationKind,
    Tier,
    is_example_path,
)
from citeloop.knowledge.neighbourhood import (
    BUILTIN_NAMES,
    Candidates,
    admissible,
    known_callees,
    read_calls,
    requirement_closure,
    walk,
)
from citeloop.knowledge.render import (
    MEMBER_KINDS,
    RENDERED_RELATIONS,
    ContextText,
    member_list_line,
)
from citeloop.knowledge.retrieval import RANK_DECAY, RetrievedSeeds, Retriever
from citeloop.knowledge.reuse import CONTEXTS_KEPT, ReusedContexts, SourceRecorder
from citeloop.knowledge.seeds import linked_ids, near_context, nearest_package, owner_id
from citeloop.knowledge.shown_code import shown_callees, shown_members
from citeloop.knowledge.source import LineSource, SourceReader
from citeloop.knowledge.store import (
    READ_ATTEMPTS,
    BatchedGraphStore,
    GraphStore,
    batched,
    changed_during,
)
from citeloop.text import estimated_tokens

TEST_TASK_TYPES = frozenset({"test", "tests", "testing"})
"""Task types that follow ``tested_by`` relations as if ``include_tested_by`` were set."""

_SEED_WEIGHTS = {
    Reason.MENTION: 1.0,
    Reason.NAMED: 0.6,
    Reason.LEXICAL: 0.5,
    Reason.RETRIEVED: 1.0,
}
"""A seed's weight in the ranking by why it is one. A retriever's first document weighs
as a mention of the task does (it is what the retriever, or a chat model rewriting the
task, says the task is about) without becoming core: with the recorded rewrites of
``benchmarks/bench_context.py`` it gave 1.6 points more recall than a lexical hit's
weight, and more on each repository."""


def _source_root(store: GraphStore) -> tuple[Path, Callable[..., dict[str, str]]] | None:
    """The folder ``store`` was indexed from and its ``file_digests``, when it says
    which (and the digests it indexed) and the folder is there; else ``None`` (no
    excerpts)."""
    source_root = getattr(store, "source_root", None)
    digests = getattr(store, "file_digests", None)
    if not callable(source_root) or not callable(digests):
        return None
    root = source_root()
    return (root, digests) if root is not None and root.is_dir() else None


class _Selection(NamedTuple):
    """What :meth:`ContextInjector._select` chose for a context."""

    found: Candidates
    selected: list[str]
    """The selected ids in rank order (core first, then the pinned)."""
    core_ids: list[str]
    scores: dict[str, float]
    owners: dict[str, str]
    """The class of each selected member, by member id."""
    excerpts: Excerpts
    brief: frozenset[str]
    """The selected ids whose line is brief (:mod:`~citeloop.knowledge.budget`)."""
    callees: dict[str, list[Entity]]
    """What each candidate calls (:func:`known_callees`)."""
    listed: dict[str, MemberList]
    """The members listed under a selected class's line, or a file's heading, by class or
    module id (:mod:`~citeloop.knowledge.member_lists`)."""


def payload_text(payload: str | Mapping[str, Any] | Sequence[Any]) -> str:
    """The text of a payload: a string, or the string values of a mapping or sequence.

    Raises:
        TypeError: If ``payload`` is none of these.
    """
    if isinstance(payload, str):
        return payload
    if isinstance(payload, Mapping):
        values: Collection[Any] = list(payload.values())
    elif isinstance(payload, Sequence) and not isinstance(payload, bytes | bytearray):
        values = payload
    else:
        raise TypeError(
            f"payload must be a str, or a mapping or sequence of str; got "
            f"{type(payload).__name__}. Pass the task text (and payload text) as strings."
        )
    return "\n".join(value for value in values if isinstance(value, str))


class ContextInjector:
    """Builds the graph context injected into a prompt (see the module docstring).

    Tiers: the entities the task names as code are **core** (must be cited); everything
    else is **supporting**. A plain word never makes an entity core. Widening (a
    :class:`ContextExpansion`) raises the budget, walks further and brings in the names
    a previous answer used, but never changes the core.

    Args:
        store: The graph to read; lexical retrieval needs a
            :class:`~citeloop.knowledge.store.SearchableGraphStore`.
        hops: Depth of the neighbourhood ranked around the seeds, >= 0.
        max_context_tokens: Token budget of the context, 1 to
            :data:`~citeloop.knowledge.model.MAX_CONTEXT_TOKENS`.
        max_entities: Optional cap on the entities of the default context (multiplied
            when widened); ``None`` leaves the budget alone to decide.
        lexical_hits: Entities lexical retrieval seeds at most, >= 0 (0: none).
        count_tokens: Counts the tokens of a text: each line, to fill the budget, and
            the whole context, for ``InjectedContext.tokens`` (default: about 4
            characters a token, :func:`citeloop.text.estimated_tokens`, which fills the
            budget to the token).
        excerpt_share: Share of the budget, 0 to 1, that the numbered source lines of
            the best-placed functions and methods may take
            (:mod:`~citeloop.knowledge.excerpts`); 0 for none. They need a store that
            knows its indexed folder and file digests
            (:class:`~citeloop.knowledge.sqlite_store.SqliteGraphStore`) and the
            files as indexed.
        retriever: Optional LangChain retriever over the graph's entities
            (:func:`citeloop.retrievers.entity_documents` loaded into a vector store,
            ``as_retriever()``): the documents it returns for the task seed the
            ranking, the n-th at ``RANK_DECAY ** n`` of the first's weight (reason
            ``retrieved``); a document of an entity the graph no longer has, or of a
            test unless tests are followed, is left out, and so is every one past the
            first ``MAX_RETRIEVED`` (64) left. It is asked once per task text (the
            answer kept for the text's widenings, see
            :data:`~citeloop.knowledge.finding.TEXTS_KEPT`; a blank text is not
            asked); its errors propagate.
        reuse_contexts: Default contexts kept for reuse, >= 0 (0: none): the same task
            text and type again gives the same context, not built again, while the
            graph file and the source lines it read are as they were
            (:mod:`~citeloop.knowledge.reuse`; a store that does not say its version
            reuses nothing).

    Raises:
        ConfigurationError: If ``store`` is no graph store (a path, say), if ``hops``,
            ``max_context_tokens``, ``max_entities``, ``lexical_hits``, ``excerpt_share``
            or ``reuse_contexts`` is out of range, or
            ``retriever`` has no ``invoke`` (or is a class, not an instance); from
            :meth:`inject`, if the retriever returns anything but documents with entity
            ids.

    Example:
        >>> injector = ContextInjector(store)  # doctest: +SKIP
        >>> context = injector.inject("Why does Child override Base.load?")  # doctest: +SKIP
        >>> [e.name for e in context.core]  # doctest: +SKIP
        ['Child', 'load', 'Base']
    """

    def __init__(
        self,
        store: GraphStore,
        *,
        hops: int = 2,
        max_context_tokens: int = DEFAULT_MAX_CONTEXT_TOKENS,
        max_entities: int | None = None,
        lexical_hits: int = LEXICAL_HITS,
        count_tokens: Callable[[str], int] | None = None,
        retriever: Retriever | None = None,
        excerpt_share: float = EXCERPT_SHARE,
        reuse_contexts: int = CONTEXTS_KEPT,
    ) -> None:
        check_settings(
            store,
            hops=hops,
            max_context_tokens=max_context_tokens,
            max_entities=max_entities,
            lexical_hits=lexical_hits,
            excerpt_share=excerpt_share,
            reuse_contexts=reuse_contexts,
        )
        self.store = store
        self.hops = int(hops)
        self.max_context_tokens = int(max_context_tokens)
        self.max_entities = None if max_entities is None else int(max_entities)
        self.lexical_hits = int(lexical_hits)
        self.count_tokens = count_tokens or estimated_tokens
        self._reads = batched(store)
        self._retrieved = (
            None if retriever is None else RetrievedSeeds(retriever, self._reads, TEXTS_KEPT)
        )
        self._finder = EntityFinder(store, self._reads, self.lexical_hits)
        self.excerpt_share = float(excerpt_share)
        self._sources: tuple[Path, SourceReader] | None = None  # (root, reader)
        self._reused = ReusedContexts(reuse_contexts) if reuse_contexts else None

    @property
    def retriever(self) -> Retriever | None:
        """The retriever given at construction, or ``None`` (read-only: the retrieved
        ids are kept for it; build another injector for another retriever)."""
        return None if self._retrieved is None else self._retrieved.retriever

    @property
    def reads(self) -> BatchedGraphStore:
        """The store's reads as the injector makes them (:func:`batched`: the store
        itself when it reads many keys at once)."""
        return self._reads

    def inject(
        self,
        payload: str | Mapping[str, Any] | Sequence[Any],
        task_type: str | None = None,
        expansion: ContextExpansion | None = None,
        *,
        default: InjectedContext | None = None,
        keep: Sequence[str] | Mapping[str, Sequence[int]] = (),
    ) -> InjectedContext:
        """Build the context for a task.

        Args:
            payload: The task text, or a mapping/sequence whose string values are the
                task and payload texts.
            task_type: Optional task type; ``"test"`` (see :data:`TEST_TASK_TYPES`)
                includes tests via ``tested_by``. Other values change nothing.
            expansion: How much to widen the default context; ``None`` for the default.
            default: With ``expansion``, the default context of the same payload and
                task type from this injector's settings (``inject(payload, task_type)``)
                when the caller has it: the widened context keeps its entities without
                selecting them again. Ignored when its snapshot is not the graph's now
                (the default is selected again, as without it).
            keep: With ``expansion``, the entity ids of an earlier widening of the
                same payload (the context a previous retry showed, without the
                ``owner`` and ``member`` entities, :data:`LISTED_BY_OTHERS`): the widened
                context keeps them too, so a context only grows from one retry to the
                next (a class kept lists its members again, as the room allows). Ids
                the graph no longer has, and those of what no context holds (a module,
                an unresolved name), are left out. A mapping also gives, by id, the
                source lines that widening's excerpts showed
                (``dict(context.excerpts)``): they are shown again.

        Returns:
            The rendered text, the entities with tiers and reasons in rank order, the
            facts between them, the graph snapshot id, the tokens used of the budget, and
            the line numbers of each source excerpt the text shows (the very object
            built before, when a default context is reused: see ``reuse_contexts``).

        Raises:
            TypeError: If ``payload`` is not a str, mapping or sequence.
        """
        text = payload_text(payload)
        widening = expansion or ContextExpansion()
        for _ in range(READ_ATTEMPTS):  # its entities, lines and source of one version
            with self._reads.reading() as session:
                reader = self._source_reader() if self.excerpt_share else None
                version = getattr(session, "version", None)
                # The settings are attributes a caller may change between calls.
                settings = (self.hops, self.max_context_tokens, self.max_entities)
                key = (text, task_type, version, *settings, self.count_tokens, self.excerpt_share)
                reuse = self._reused is not None and expansion is None and version is not None
                if reuse and (reused := self._reused.get(key, reader)) is not None:
                    return reused
                source = SourceRecorder(reader) if reuse and reader is not None else reader
                snapshot = self._reads.snapshot()
                chosen = self._read(text, task_type, expansion, default, keep, snapshot, source)
            if not changed_during(session):
                break
        found, selected, core_ids, scores, owners, excerpts, brief, callees, listed = chosen
        entities = [found.entities[entity_id] for entity_id in selected]
        position = {entity_id: at for at, entity_id in enumerate(selected)}
        facts = sorted(
            (
                fact
                for fact in found.facts.values()
                if fact.subject in position and fact.object in position
            ),
            key=lambda fact: (position[fact.subject], position[fact.object]),
        )
        of_files = {
            found.entities[i].path: of
            for i, of in listed.items()
            if found.entities[i].kind is EntityKind.MODULE
        }
        text = ContextText(entities, owners, brief, callees, listed, of_files).render(
            [fact for fact in facts if fact.relation in RENDERED_RELATIONS], excerpts.blocks
        )
        core_set = set(core_ids)
        context_entities = [
            _context_entity(
                entity,
                Tier.CORE if entity.id in core_set else Tier.SUPPORTING,
                found.reasons.get(entity.id, Reason.GRAPH),
                scores.get(entity.id, 0.0),
            )
            for entity in entities
        ]
        context_entities.extend(self._owner_entities(owners, selected, found))
        context_entities.extend(
            _context_entity(member, Tier.SUPPORTING, Reason.MEMBER, scores.get(member.id, 0.0))
            for of_class in listed.values()
            for member in of_class.members
        )
        context = InjectedContext(
            text=text,
            entities=tuple(context_entities),
            facts=tuple(facts),
            snapshot=snapshot,
            expansion=expansion,
            tokens=self.count_tokens(text),
            budget=self.max_context_tokens * widening.limit_multiplier,
            excerpts=tuple(excerpts.shown.items()),
        )
        if reuse and self._reused is not None and not changed_during(session):
            self._reused.put(key, context, source if isinstance(source, SourceRecorder) else None)
        return context

    def _read(
        self,
        text: str,
        task_type: str | None,
        expansion: ContextExpansion | None,
        default: InjectedContext | None,
        keep: Sequence[str] | Mapping[str, Sequence[int]],
        snapshot: str,
        source: LineSource | None,
    ) -> _Selection:
        """:meth:`_select` of :meth:`inject`'s arguments, in the caller's read session
        (of the graph's ``snapshot``): a widening selects the default first, unless
        ``default`` is given and of that snapshot, and keeps it, ``keep`` and the source
        they showed."""
        pinned: list[str] = []
        shown: dict[str, tuple[int, ...]] = {}  # the source shown, kept if widened
        listed: list[str] = []  # the members the default listed: the answer saw them
        if expansion is not None:  # a wider context keeps the default and `keep`
            pinned = _selected_ids(default, snapshot)
            if pinned is None:
                chosen = self._select(text, task_type, ContextExpansion(), [], source=source)
                pinned, shown = chosen.selected, chosen.excerpts.shown
                listed = [member.id for of in chosen.listed.values() for member in of.members]
            elif default is not None:
                shown = dict(default.excerpts)
                listed = [e.id for e in default.entities if e.reason == Reason.MEMBER]
            pinned = list(dict.fromkeys([*pinned, *keep]))
            if isinstance(keep, Mapping):  # only those that showed source
                for entity_id, lines in keep.items():
                    if lines:
                        shown[entity_id] = tuple(sorted({*shown.get(entity_id, ()), *lines}))
        widening = expansion or ContextExpansion()
        return self._select(text, task_type, widening, pinned, shown, source, listed)

    def _select(
        self,
        text: str,
        task_type: str | None,
        widening: ContextExpansion,
        pinned: list[str],
        shown: Mapping[str, tuple[int, ...]] | None = None,
        source: LineSource | None = None,
        listed: Collection[str] = (),
    ) -> _Selection:
        """What the context holds (``shown``: the lines each entity of the context being
        widened showed, by entity id; shown again, right after the core; ``source``: the
        indexed lines, ``None`` for no excerpts; ``listed``: the ids of the members that
        context listed)."""
        follow_tests = widening.include_tested_by or task_type in TEST_TASK_TYPES
        budget = self.max_context_tokens * widening.limit_multiplier
        limit = self.max_entities * widening.limit_multiplier if self.max_entities else None
        # The core is the task's, the same in every widening: following tests does not
        # change which of several namesakes the task means (a played retry had asked for
        # citations of two test classes' `inverse_transform` its first context never held).
        about = task_type in TEST_TASK_TYPES or about_tests(text)
        tests = follow_tests or about
        core = self.seeds(text, tests=about)
        found = Candidates()
        for entity in core:
            found.seed(entity, Reason.MENTION, _SEED_WEIGHTS[Reason.MENTION])
        for entity in self._finder.capitalized_classes(text, tests):
            found.seed(entity, Reason.LEXICAL, _SEED_WEIGHTS[Reason.LEXICAL])
        words_of_task = task_words(text)
        self._lexical(words_of_task, found, follow_tests)
        # The members of the classes the task names that its words describe.
        for entity, share in self._finder.members_matching(core, words_of_task, follow_tests):
            found.seed(entity, Reason.LEXICAL, _SEED_WEIGHTS[Reason.LEXICAL] * share)
        self._retrieve(text, found, follow_tests)
        # The implementation a class found uses of a method found on one of its bases.
        for implementation, base in used_implementations(self._reads, found.seeds, found.entities):
            found.seed(implementation, Reason.GRAPH, found.seeds[base])
        # The names the task found, before an answer's: they choose an excerpt's lines,
        # the same at every widening of the task.
        found_by_task = {found.entities[entity_id].name for entity_id in found.seeds}
        # What the answer said the context lacks in words, searched with the task's when
        # it named none of the code it lacks: beside named code, words such as "fit",
        # "name" or "module" only found look-alikes (on 21 played questions, the widened
        # contexts held no more of the code the reference answers name).
        words = tuple(dict.fromkeys([*widening.lacking_words, *words_of_task]))
        if widening.lacking_words and not widening.lacking:
            self._lexical(words, found, follow_tests)
        # What the answer saw: the names it used mean the entities in or beside it.
        # The context widened (only what a context may hold: `keep` is the caller's).
        kept = {
            entity_id: entity
            for entity_id, entity in (self._reads.get_entities(pinned) if pinned else {}).items()
            if admissible(entity, True)
        }
        saw = [*core, *kept.values()] if widening.names else []
        # What it saw listed too: a file's `helper() L70` as much as a class's members.
        seen = {*(e.id for e in saw), *listed} if saw else set()
        near, lacks = near_context(saw), set(widening.lacking)
        linked = cache(lambda: linked_ids(self._reads, saw))
        # The names the code shown writes that its files do not import (`_args` of
        # `f(*_args)`; not `ContextT` of `Generic[StateT, ContextT]`, imported)
        paths = {entity.path for entity in saw if entity.path}
        local_names = frozenset(widening.written) - imported_names(
            self._reads, widening.written, paths
        )
        nearest, sourced, files = nearest_package(saw, linked), set(shown or ()), widening.files
        named = self._finder.named(
            widening.names,
            near,
            lacks,
            seen,
            nearest,
            files,
            sourced,
            written=local_names,
            linked=linked,
        )
        for entity in named:
            found.seed(entity, Reason.NAMED, _SEED_WEIGHTS[Reason.NAMED])
        walk(self._reads, found, self.hops + widening.extra_hops, follow_tests)
        if widening.include_requirement_closure:
            requirement_closure(self._reads, found, _SEED_WEIGHTS[Reason.LEXICAL])
        unwalked = [entity_id for entity_id in kept if entity_id not in found.entities]
        for entity_id, entity in kept.items():
            found.entities.setdefault(entity_id, entity)
        pinned = [entity_id for entity_id in pinned if entity_id in found.entities]
        scores = rank_scores(found, follow_tests, damp_tests=not tests)
        ranked = sorted(scores, key=lambda entity_id: (-scores[entity_id], entity_id))
        core_ids = [entity.id for entity in core]
        core_names = [entity.name for entity in core]
        first = list(dict.fromkeys([*core_ids, *pinned]))
        order = first + [entity_id for entity_id in ranked if entity_id not in first]
        # The core, what the context keeps, what the answer named, and the members of
        # the classes the task or the answer named are not counted out.
        asked_ids = [entity.id for entity in named]
        named_classes = {*core_ids, *asked_ids}
        exempt = {*first, *asked_ids, *(i for i in order if owner_id(i) in named_classes)}
        order = few_of_a_name(order, found.entities, exempt)
        excerpts = Excerpts({}, {}, 0)
        # The entities the last answer said the context lacks.
        lacked = (
            self._finder.named(widening.lacking, near, lacks, seen, nearest, files, sourced)
            if widening.lacking
            else []
        )
        lacking = dict.fromkeys(entity.id for entity in lacked)
        # The lines the last answer asked for, and those that set an attribute it lacks.
        asked_for = [*widening.lines]
        if source is not None and lacked:
            asked_for += assignment_sites(self._reads, lacked, source)
        holders: list[str] = []  # the entities that hold those lines
        if source is not None and asked_for:
            # The lines asked for take half the share of source of an answer that said
            # it lacks code; when it also named code it lacks that no context showed,
            # half of what the source shown before leaves, the first looks at that code
            # taking the other half (the demo's third context had shown asked lines of
            # `compile` and no line of `attach_edge`, asked for by name twice).
            said = budget * min(1.0, self.excerpt_share * 2)
            room = said / 2
            if any(entity_id not in (shown or {}) for entity_id in lacking):
                before = shown_tokens(shown or {}, found.entities, source, self.count_tokens)
                room = min(room, max(0.0, said - before) / 2)
            asked_lines, asked_groups = of_members(self._reads, asked_for, found)
            holders = list(dict.fromkeys(entity_id for entity_id, _, _ in asked_lines))
            # A method no walk reached is ranked last; one that few_of_a_name counted
            # out (an `__init__` among many) comes back.
            in_order = set(order)
            for entity_id in holders:
                scores.setdefault(entity_id, 0.0)
                if entity_id not in in_order:
                    order.append(entity_id)
            # The task's words and the names the answer said lacking choose the lines
            # of a range asked for that does not fit whole.
            terms = focus_terms(words, (), lacking=widening.lacking, core=core_names)
            shown = with_asked_lines(
                asked_lines,
                found.entities,
                source,
                shown or {},
                room,
                self.count_tokens,
                terms,
                asked_groups,
            )
        members, asked_code = asked_code_of(
            self._reads,
            widening,
            order,
            found,
            scores,
            list(lacking),
            follow_tests,
            source,
            shown,
            # the members of a class said lacking that the words it said it lacks find
            lambda classes: self._finder.members_matching(classes, words, follow_tests),
        )
        if source is not None:
            # A widening shows again the source the context it widens showed (``shown``);
            # what the last answer said it lacks, then the rest it named, look first
            # (choose_excerpts), the core and what was shown before leading the ranks.
            before = [i for i in shown or {} if i in found.entities]
            asked = [entity.id for entity in named if entity.id in scores]
            # An example or documentation script shows source only when named: its
            # usage of the library took the share from the library's own code.
            ranked = best_hit_first(
                [
                    i
                    for i in members_follow(order, found)
                    if not is_example_path(found.entities[i].path)
                ],
                found,
                tests,
            )
            # What the last answer said it lacks is offered right after the core: past
            # the first `most` candidates it had no excerpt (the demo's `attach_edge`,
            # asked for twice, never showed its body).
            lacked = [*asked_code, *(i for i in lacking if i in scores)]
            best = [*core_ids, *lacked, *before, *asked, *pinned, *ranked]
            # An answer that said the context lacks code gets twice the share of source.
            said_lacking = lacking or widening.lacking_words
            share = budget * min(1.0, self.excerpt_share * (2 if said_lacking else 1))
            most = MAX_EXCERPTS * widening.limit_multiplier
            focus = self._focus(
                best, found, words, found_by_task, most, widening.lacking, core_names
            )
            excerpts = choose_excerpts(
                best,
                found.entities,
                source,
                share,
                self.count_tokens,
                focus,
                shown,
                named=[*core_ids, *asked],
                most=most,
                more=[*asked_code, *lacking],
                # What the answer did not name shows no more source than in a first
                # context: played widenings had filled the larger share with bodies no
                # answer asked for (`run_command`, `_validate_key`, unrelated tests).
                rest_budget=self.max_context_tokens * self.excerpt_share,
            )
        # What the source shown calls, and the attributes it reads on `self`, come
        # after it, though counted out among namesakes (:mod:`shown_code`).
        called = [
            entity_id
            for entity_id in [
                *shown_callees(found, excerpts),
                *shown_members(self._reads, found, excerpts),
            ]
            if admissible(found.entities[entity_id], follow_tests)
        ]
        ranked_ids = set(order)
        order += [entity_id for entity_id in called if entity_id not in ranked_ids]
        owners = self._owners(order, found)
        # An entity with an excerpt is offered right after the core and the pinned, its
        # line and its excerpt costed together: both fit in the budget, or neither shows
        # (a core or pinned entity enters anyway; its excerpt only if it fits). What the
        # last answer said the context lacks, with its source, then without (a constant
        # such as `_IS_32BIT` has none: asked for twice, it had been offered in rank
        # order after the pinned, and never came), and what holds the lines it asked
        # for that no context held (a played `Response.__init__`, which sets the
        # `_content` asked for, had been offered after the pinned and left out), then
        # the best members of a class it said the context lacks (those that use another
        # name it said lacking first, with their source), come before the pinned: they
        # still enter, their lines brief where whole ones would not fit beside it.
        rank = {entity_id: at for at, entity_id in enumerate(order)}
        blocks = [entity_id for entity_id in excerpts.blocks if entity_id in rank]
        sought = {*lacking, *asked_code, *(i for i in holders if i not in first)}
        wanted = [i for i in blocks if i in sought]
        wanted += [i for i in [*lacking, *asked_code] if i in rank]
        offered = dict.fromkeys(
            [
                *core_ids,
                *wanted,
                *members,
                *first,
                *blocks,
                *called,
                *order,
            ]
        )
        callees = known_callees(self._reads, found, scores)
        # A kept entity the walk did not reach: what it calls, read whole (its calls
        # line had read as all it calls, its facts seen only from its callees').
        callees.update(read_calls(self._reads, found, unwalked, scores))
        # The lines leave the budget's last share to the member lists; what the lists
        # do not take goes to the lines, filled again (once, and only when some line
        # was left out).
        piece = line_cost(self.count_tokens)
        room = budget * MEMBER_LIST_SHARE
        listable: dict[str, list[Entity]] = {}  # the members of the holders, read once
        for _ in range(2):
            selected, without_excerpt, brief, used = fill_budget(
                offered,
                found.entities,
                found.facts.values(),
                budget - room,
                limit,
                first,
                self.count_tokens,
                owners,
                excerpts.blocks,
                [entity_id for entity_id in shown or {} if entity_id in excerpts.blocks],
                full=[*core_ids, *(entity.id for entity in named)],
                callees=callees,
            )
            chosen = set(selected)
            listed = choose_member_lists(
                self._reads,
                found.entities,
                selected,
                owners,
                MemberListSettings(scores, follow_tests, listable),
                budget - used,
                piece,
                None if limit is None else max(0, limit - len(selected)),
            )
            taken = sum(
                piece(member_list_line(list_label(found.entities[i]), *of))
                for i, of in listed.items()
            )
            if room - taken <= budget * REFILL_SHARE or len(selected) == len(offered):
                break  # the lists took their room, or every line is in already
            room = taken
        selected.sort(key=rank.__getitem__)
        owners = {member: owner for member, owner in owners.items() if member in chosen}
        excerpts = excerpts.within(chosen - without_excerpt)
        if source is not None:
            excerpts = excerpts.nested_merged(found.entities, source)
        return _Selection(
            found, selected, core_ids, scores, owners, excerpts, brief, callees, listed
        )

    def _focus(
        self,
        best: Sequence[str],
        found: Candidates,
        words: Sequence[str],
        found_by_task: Collection[str],
        most: int,
        lacking: Sequence[str],
        core: Sequence[str],
    ) -> Callable[[Entity], dict[str, int]]:
        """The terms that choose the lines of an entity's long excerpt
        (:func:`~citeloop.knowledge.body_lines.focus_terms`): the names of what it calls
        (but a builtin's or a builtin type's method it calls unresolved: every body
        calls ``getattr``, ``isinstance`` or a dict's ``.get``, and a played excerpt of
        flask's ``add_url_rule`` had shown those lines, not the branches the task asked
        about), those the task found weighing more, the task's words, the names of the
        core (``core``) wherever a line uses them, and the names a retry's answer said
        the context lacks weighing most (a name a later answer merely used does not
        change them)."""
        ids = [entity.id for entity in candidates(best, found.entities, most)]
        calls = {
            entity_id: [
                name
                for fact in facts
                if fact.relation is RelationKind.CALLS and fact.subject == entity_id
                for name in [fact.object.rpartition(".")[2].lstrip("?")]
                if not (fact.object.startswith("?") and name in BUILTIN_NAMES)
            ]
            for entity_id, facts in self._reads.facts_of_many(ids).items()
        }
        return lambda entity: focus_terms(
            words, calls.get(entity.id, ()), found_by_task, lacking, core
        )

    def _source_reader(self) -> SourceReader | None:
        """The reader of the folder the graph was indexed from (a new one when a
        re-index names another folder: the snapshot id stays the same when the code
        does), or ``None`` for a store that does not say which, or whose folder is gone
        (no excerpts)."""
        found = _source_root(self.store)
        if found is None:
            return None
        root, digests = found
        sources = self._sources
        if sources is None or sources[0] != root:
            sources = self._sources = (root, SourceReader(root, digests))
        return sources[1]

    # -- seeds ----------------------------------------------------------------------

    def seeds(self, text: str, *, tests: bool | None = None) -> list[Entity]:
        """The entities ``text`` names as code (its core), in order of first mention.

        Args:
            text: Task and payload text.
            tests: Whether the task is about tests: an ambiguous name then does not
                prefer its definition outside test code. ``None``: when the text speaks
                of tests (``test``, ``fixture``, ``conftest``, ``pytest``, ``mock``...).

        Returns:
            The entities, at most ``max_entities`` when a cap is set.
        """
        return self._finder.core(text, tests, self.max_entities)

    def _lexical(self, words: Sequence[str], found: Candidates, follow_tests: bool) -> None:
        """Seed the best :attr:`lexical_hits` admissible entities ``words`` find
        (:meth:`~citeloop.knowledge.finding.EntityFinder.lexical`), weighted by their
        score against the best of them."""
        for entity, share in self._finder.lexical(words, follow_tests):
            found.seed(entity, Reason.LEXICAL, _SEED_WEIGHTS[Reason.LEXICAL] * share)

    def _retrieve(self, text: str, found: Candidates, follow_tests: bool) -> None:
        """Seed what the retriever returns for ``text`` (see
        :class:`~citeloop.knowledge.retrieval.RetrievedSeeds`), the n-th at
        :data:`~citeloop.knowledge.retrieval.RANK_DECAY` ``** n`` of the first's weight
        (an attribute's scaled as for a lexical hit)."""
        if self._retrieved is None:
            return
        for rank, entity in enumerate(self._retrieved.entities(text, follow_tests)):
            weight = _SEED_WEIGHTS[Reason.RETRIEVED] * kind_factor(entity) * RANK_DECAY**rank
            found.seed(entity, Reason.RETRIEVED, weight)

    def _owners(self, ids: list[str], found: Candidates) -> dict[str, str]:
        """The class of each member among ``ids`` that a class defines, by member id, in
        the order of ``ids`` (a member's line names its class: ``Owner.member``); a
        class read for it joins ``found.entities``."""
        members = [e for e in ids if found.entities[e].kind in MEMBER_KINDS]
        parents = dict.fromkeys(member.rpartition(".")[0] for member in members)
        missing = [parent for parent in parents if parent not in found.entities]
        for parent, entity in self._reads.get_entities(missing).items():
            if entity.kind is EntityKind.CLASS:
                found.entities[parent] = entity
        return {
            member: parent
            for member in members
            if (parent := member.rpartition(".")[0]) in found.entities
            and found.entities[parent].kind is EntityKind.CLASS
        }

    def _owner_entities(
        self, owners: Mapping[str, str], selected: list[str], found: Candidates
    ) -> list[ContextEntity]:
        """The classes named only by their members' lines, as supporting entities."""
        extra = dict.fromkeys(owner for owner in owners.values() if owner not in selected)
        return [
            _context_entity(found.entities[owner], Tier.SUPPORTING, Reason.OWNER, 0.0)
            for owner in extra
        ]


def takes_keep(injector: Any) -> bool:
    """Whether ``injector.inject`` takes ``keep=`` (:meth:`ContextInjector.inject`'s, or
    a ``**kwargs`` that forwards it): a subclass or a user's injector whose own
    ``inject`` has no ``keep`` is called without it, as before ``keep`` existed. The
    answer is kept per ``inject`` function (a graph asks it at every widening)."""
    inject = getattr(injector, "inject", None)
    function = getattr(inject, "__func__", inject)  # a method's function, shared by instances
    try:
        return _takes_keep(function)
    except TypeError:  # an unhashable callable: asked afresh
        return _takes_keep.__wrapped__(function)


@lru_cache(maxsize=64)
def _takes_keep(inject: Any) -> bool:
    try:
        parameters = inspect.signature(inject).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        parameter.kind is inspect.Parameter.VAR_KEYWORD
        or (parameter.name == "keep" and parameter.kind is not inspect.Parameter.VAR_POSITIONAL)
        for parameter in parameters
    )


def _selected_ids(default: InjectedContext | None, snapshot: str) -> list[str] | None:
    """The ids :meth:`ContextInjector._select` chose for ``default``, in order (its
    entities without the owners and listed members appended after them), or ``None``
    when ``default`` is missing, widened itself, or of another snapshot."""
    if default is None or default.expansion is not None or default.snapshot != snapshot:
        return None
    return [entity.id for entity in default.entities if entity.reason not in LISTED_BY_OTHERS]


def _context_entity(entity: Entity, tier: Tier, reason: Reason, score: float) -> ContextEntity:
    return ContextEntity(
        entity.name,
        entity.kind,
        tier,
        entity.id,
        entity.path,
        entity.line,
        entity.end_line,
        entity.signature,
        entity.summary,
        reason.value,
        round(score, 6),
    )
