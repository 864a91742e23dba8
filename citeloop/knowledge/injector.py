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
   (:mod:`~citeloop.knowledge.render`), and member lists in the last share
   (:mod:`~citeloop.knowledge.member_lists`).

:class:`~citeloop.knowledge.selection.Selector` chooses what a context holds (steps 1 to
4); the injector reads the graph for it in one session, widens a default context on a
retry, renders the text and reuses a default context built before.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from citeloop.knowledge.excerpts import (
    EXCERPT_SHARE,
)
from citeloop.knowledge.finding import (
    LEXICAL_HITS,
    TEXTS_KEPT,
    EntityFinder,
)
from citeloop.knowledge.injector_settings import check_settings, check_values
from citeloop.knowledge.model import (
    DEFAULT_MAX_CONTEXT_TOKENS,
    LISTED_BY_OTHERS,
    ContextEntity,
    ContextExpansion,
    Entity,
    EntityKind,
    InjectedContext,
    Reason,
    Tier,
)
from citeloop.knowledge.neighbourhood import (
    Candidates,
)
from citeloop.knowledge.render import (
    ContextText,
)
from citeloop.knowledge.retrieval import RetrievedSeeds, Retriever
from citeloop.knowledge.reuse import CONTEXTS_KEPT, ReusedContexts, SourceRecorder
from citeloop.knowledge.selection import Selection, Selector
from citeloop.knowledge.source import LineSource, SourceReader
from citeloop.knowledge.store import (
    READ_ATTEMPTS,
    BatchedGraphStore,
    GraphStore,
    batched,
    changed_during,
)
from citeloop.text import estimated_tokens


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
            or ``reuse_contexts`` is out of range, ``count_tokens`` is not callable, or
            ``retriever`` has no ``invoke`` (or is a class, not an instance); from
            :meth:`inject`, if one of those settings was set out of range since, or the
            retriever returns anything but documents with entity ids.

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
            count_tokens=count_tokens,
        )
        self._store = store
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
    def store(self) -> GraphStore:
        """The graph store given at construction (read-only: the injector's reads, its
        finder and its reused contexts are of it; build another injector for another
        store)."""
        return self._store

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
        relations: Collection[str] = (),
        listed: Sequence[str] = (),
        whole: Collection[str] = (),
    ) -> InjectedContext:
        """Build the context for a task.

        Args:
            payload: The task text, or a mapping/sequence whose string values are the
                task and payload texts.
            task_type: Optional task type; ``"test"`` (see
                :data:`~citeloop.knowledge.selection.TEST_TASK_TYPES`)
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
            relations: With ``expansion``, the ids of the facts that widening wrote
                relation lines for (``context.relations``): written again, whatever
                share of the budget relation lines take (those of ``default`` too),
                so that no relation line a model read goes missing on the retry.
            listed: With ``expansion``, the ids of the members that widening listed
                (its entities of reason ``member``, in order): listed first again, in
                that order, before those ``default`` listed, as the room allows.
            whole: With ``expansion``, the ids of ``keep`` whose line that widening
                wrote whole (its entities but those of ``context.brief``): their lines
                stay whole, the member lists giving way to them (those of ``default``
                too), so that no signature or summary a model read goes missing.

        Returns:
            The rendered text, the entities with tiers and reasons in rank order, the
            facts between them, the graph snapshot id, the tokens used of the budget, and
            the line numbers of each source excerpt the text shows (the very object
            built before, when a default context is reused: see ``reuse_contexts``).

        Raises:
            TypeError: If ``payload`` is not a str, mapping or sequence, or ``keep``,
                ``relations``, ``listed`` or ``whole`` is not a collection of str ids (a
                str itself would be read one character at a time).
            ConfigurationError: If ``hops``, ``max_context_tokens``, ``max_entities``,
                ``lexical_hits`` or ``excerpt_share``, set since, is out of range, or
                ``count_tokens``, set since, is not callable.
        """
        text = payload_text(payload)
        for name, ids in (
            ("keep", keep),
            ("relations", relations),
            ("listed", listed),
            ("whole", whole),
        ):
            _check_ids(name, ids)
        widening = expansion or ContextExpansion()
        # The settings are attributes a caller may change between calls.
        check_values(
            hops=self.hops,
            max_context_tokens=self.max_context_tokens,
            max_entities=self.max_entities,
            lexical_hits=self.lexical_hits,
            excerpt_share=self.excerpt_share,
            count_tokens=self.count_tokens,
        )
        self._finder.lexical_hits = self.lexical_hits
        for _ in range(READ_ATTEMPTS):  # its entities, lines and source of one version
            with self._reads.reading() as session:
                reader = self._source_reader() if self.excerpt_share else None
                version = getattr(session, "version", None)
                settings = (self.hops, self.max_context_tokens, self.max_entities)
                key = (
                    text,
                    task_type,
                    version,
                    *settings,
                    self.lexical_hits,
                    self.count_tokens,
                    self.excerpt_share,
                )
                reuse = self._reused is not None and expansion is None and version is not None
                if reuse and (reused := self._reused.get(key, reader)) is not None:
                    return reused
                source = SourceRecorder(reader) if reuse and reader is not None else reader
                snapshot = self._reads.snapshot()
                chosen = self._read(
                    text,
                    task_type,
                    expansion,
                    default,
                    keep,
                    snapshot,
                    source,
                    relations,
                    listed,
                    whole,
                )
            if not changed_during(session):
                break
        found, selected, core_ids, scores, owners, excerpts, brief, callees, listed, lines = chosen
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
        written = [fact for fact in facts if fact.fact_id in lines]
        text = ContextText(entities, owners, brief, callees, listed, of_files).render(
            written, excerpts.blocks
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
        members = {member.id for of in listed.values() for member in of.members}
        context_entities.extend(self._owner_entities(owners, {*selected, *members}, found))
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
            relations=tuple(fact.fact_id for fact in written),
            brief=tuple(entity_id for entity_id in selected if entity_id in brief),
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
        relations: Collection[str] = (),
        listed_before: Sequence[str] = (),
        whole_before: Collection[str] = (),
    ) -> Selection:
        """:meth:`_select` of :meth:`inject`'s arguments, in the caller's read session
        (of the graph's ``snapshot``): a widening selects the default first, unless
        ``default`` is given and of that snapshot, and keeps it, ``keep`` and the source,
        relation lines, member lists and whole lines they showed."""
        pinned: list[str] = []
        shown: dict[str, tuple[int, ...]] = {}  # the source shown, kept if widened
        listed: list[str] = []  # the members the default listed: the answer saw them
        written: set[str] = set()  # the facts whose relation lines it read
        whole: set[str] = set()  # the entities whose whole line it read
        if expansion is not None:  # a wider context keeps the default and `keep`
            written.update(relations)
            whole.update(whole_before)
            pinned = _selected_ids(default, snapshot)
            if pinned is None:
                chosen = self._select(text, task_type, ContextExpansion(), [], source=source)
                pinned, shown = chosen.selected, chosen.excerpts.shown
                listed = [member.id for of in chosen.listed.values() for member in of.members]
                written.update(chosen.relations)
                whole.update(i for i in chosen.selected if i not in chosen.brief)
            elif default is not None:
                shown = dict(default.excerpts)
                listed = [e.id for e in default.entities if e.reason == Reason.MEMBER]
                written.update(default.relations)
                brief = set(default.brief)
                whole.update(i for i in pinned if i not in brief)
            pinned = list(dict.fromkeys([*pinned, *keep]))
            listed = list(dict.fromkeys([*listed_before, *listed]))
            if isinstance(keep, Mapping):  # only those that showed source
                for entity_id, lines in keep.items():
                    if lines:
                        shown[entity_id] = tuple(sorted({*shown.get(entity_id, ()), *lines}))
        widening = expansion or ContextExpansion()
        return self._select(
            text, task_type, widening, pinned, shown, source, listed, written, whole
        )

    def _select(
        self,
        text: str,
        task_type: str | None,
        widening: ContextExpansion,
        pinned: list[str],
        shown: Mapping[str, tuple[int, ...]] | None = None,
        source: LineSource | None = None,
        listed: Collection[str] = (),
        written: Collection[str] = (),
        whole: Collection[str] = (),
    ) -> Selection:
        """:meth:`~citeloop.knowledge.selection.Selector.select` with this injector's
        settings as they are now."""
        selector = Selector(
            self._reads,
            self._finder,
            self._retrieved,
            hops=self.hops,
            max_context_tokens=self.max_context_tokens,
            max_entities=self.max_entities,
            excerpt_share=self.excerpt_share,
            count_tokens=self.count_tokens,
            # `seeds` is public: a subclass's own chooses the core, as it always did.
            seeds=lambda task, tests: self.seeds(task, tests=tests),
        )
        return selector.select(
            text, task_type, widening, pinned, shown, source, listed, written, whole
        )

    def _source_reader(self) -> SourceReader | None:
        """The reader of the folder the graph was indexed from (a new one when a
        re-index names another folder: the snapshot id stays the same when the code
        does), or ``None`` for a store that does not say which, or whose folder is gone
        (no excerpts)."""
        found = _source_root(self._store)
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

    def _owner_entities(
        self, owners: Mapping[str, str], selected: Collection[str], found: Candidates
    ) -> list[ContextEntity]:
        """The classes named only by their members' lines, as supporting entities (not
        those of ``selected``, nor a class a file's list names: it is one of the
        context's members, cited at its place there)."""
        extra = dict.fromkeys(owner for owner in owners.values() if owner not in selected)
        return [
            _context_entity(found.entities[owner], Tier.SUPPORTING, Reason.OWNER, 0.0)
            for owner in extra
        ]


def taken_options(injector: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``options`` (keyword arguments added to :meth:`ContextInjector.inject` over
    time: ``keep``, ``relations``, ``listed``, ``whole``) that ``injector.inject``
    takes, by name or through a ``**kwargs`` that forwards them: a subclass or a user's
    injector whose own ``inject`` lacks one is called without it, as before it existed.
    Which names an ``inject`` takes is kept per ``inject`` function (a graph asks at
    every widening)."""
    inject = getattr(injector, "inject", None)
    function = getattr(inject, "__func__", inject)  # a method's function, shared by instances
    try:
        names = _keywords(function)
    except TypeError:  # an unhashable callable: asked afresh
        names = _keywords.__wrapped__(function)
    return {name: value for name, value in options.items() if names is None or name in names}


@lru_cache(maxsize=64)
def _keywords(inject: Any) -> frozenset[str] | None:
    """The names ``inject`` takes by keyword; ``None`` for any (a ``**kwargs``)."""
    try:
        parameters = inspect.signature(inject).parameters.values()
    except (TypeError, ValueError):
        return frozenset()
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
        return None
    by_keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return frozenset(parameter.name for parameter in parameters if parameter.kind in by_keyword)


def _check_ids(name: str, ids: object) -> None:
    """Raise ``TypeError`` unless ``ids`` is a collection of str (``keep`` may be a
    mapping of them to collections of int line numbers), naming the argument and the
    fix."""
    if isinstance(ids, str | bytes):
        raise TypeError(
            f"{name} must be a collection of entity or fact ids, got the str {ids!r}; "
            f"wrap it: [{ids!r}]"
        )
    if not isinstance(ids, Collection):
        raise TypeError(
            f"{name} must be a collection of entity or fact ids (a list, a tuple, a set), "
            f"got {type(ids).__name__}"
        )
    for item in ids:
        if not isinstance(item, str):
            raise TypeError(
                f"{name} must hold str ids (as InjectedContext gives them), got {item!r}"
            )
    if isinstance(ids, Mapping):  # `keep`: the source lines shown, by entity id
        for entity_id, lines in ids.items():
            if isinstance(lines, str | bytes) or not isinstance(lines, Collection):
                raise TypeError(
                    f"{name}[{entity_id!r}] must be a collection of line numbers (as "
                    f"dict(context.excerpts) gives them), got {lines!r}"
                )
            if any(not isinstance(line, int) or isinstance(line, bool) for line in lines):
                raise TypeError(f"{name}[{entity_id!r}] must hold int line numbers, got {lines!r}")


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
