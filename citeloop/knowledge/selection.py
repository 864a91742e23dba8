"""Choosing what one context holds: the body of :meth:`ContextInjector.inject
<citeloop.knowledge.injector.ContextInjector.inject>`.

:class:`Selector` seeds the ranking (the task's mentions, its words' lexical hits, a
retriever's documents, on a retry the names the answer used or said it lacks), ranks the
neighbourhood of those seeds, chooses the source excerpts, and fills the token budget with
lines and member lists (:mod:`~citeloop.knowledge.budget`,
:mod:`~citeloop.knowledge.member_lists`). The injector renders what it chose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import cache, partial
from typing import NamedTuple

from citeloop.knowledge.assignments import assignment_sites
from citeloop.knowledge.body_lines import focus_terms
from citeloop.knowledge.budget import Filled, fill_budget, line_cost
from citeloop.knowledge.candidate_order import (
    asked_code_of,
    best_hit_first,
    bridges,
    few_of_a_name,
    members_follow,
    parameter_users,
    rank_scores,
    setters,
)
from citeloop.knowledge.excerpts import (
    MAX_EXCERPTS,
    Excerpts,
    candidates,
    choose_excerpts,
    of_members,
    shown_tokens,
    with_asked_lines,
)
from citeloop.knowledge.finding import (
    EntityFinder,
    about_tests,
    kind_factor,
    task_mentions,
    task_words,
)
from citeloop.knowledge.implementations import used_implementations
from citeloop.knowledge.imports import imported_names
from citeloop.knowledge.member_lists import (
    MEMBER_LIST_SHARE,
    REFILL_SHARE,
    MemberList,
    MemberListSettings,
    choose_member_lists,
    list_cost,
    list_label,
    qualifying,
)
from citeloop.knowledge.model import (
    ContextExpansion,
    Entity,
    EntityKind,
    Reason,
    RelationKind,
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
    listed_member,
    member_list_line,
    signature_parameters,
)
from citeloop.knowledge.retrieval import RANK_DECAY, RetrievedSeeds
from citeloop.knowledge.seeds import linked_ids, near_context, nearest_package, owner_id
from citeloop.knowledge.shown_code import shown_callees, shown_members
from citeloop.knowledge.source import LineSource
from citeloop.knowledge.store import BatchedGraphStore

TEST_TASK_TYPES = frozenset({"test", "tests", "testing"})
"""Task types that follow ``tested_by`` relations as if ``include_tested_by`` were set."""

SEED_WEIGHTS = {
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


ISOLATED_HIT_FACTOR = 0.3
"""Weight factor of a lexical hit alone in its file: no other hit of the task's words,
nor a seed found before them (what the task names), is of that file. A task is about
one part of a code base; the words that find it find stray look-alikes elsewhere too,
one per file (a played question about ``TimeBase.cache`` was shown
``clear_download_cache``, ``CacheDamaged`` and ``Convolution.clear_cache``). On the
SWE-QA context benchmark (``benchmarks/bench_context.py``) it raised recall summed over
the four repositories by 3.3 points (pytest 75.2 -> 76.5, sqlfluff 79.1 -> 79.7, xarray
71.5 -> 73.0, sphinx unchanged) and over ten held-out ones by 1.9 (0.2, 0.4 and 0.5
gave less on one or the other)."""

HIT_SHARE_POWER = 2
"""Power of a lexical hit's score against the best hit's in its seed weight. BM25 scores
of one task's hits lie close together (a question about telling cast expressions from
unary ones scored ``_parse_cast_expression`` 32.4 and ``_parse_bin_op_expr``'s nested
``parser`` 21.1: 0.65 of it), so at their plain share the walk's mass over the hits'
calls ranked the helper that calls every parse method first and showed its source, not
the methods the words name. Squared, the share is 0.42. On the SWE-QA context benchmark
(``benchmarks/bench_context.py``) it raised recall summed over the four repositories by
1.1 points (sqlfluff +1.8, sphinx +0.2, pytest -0.7, xarray -0.3) and over ten held-out
ones by 5.9 (up on eight); the reference answers' names in the source lines shown rose
on nine of the fourteen, by 13.0 points summed. A power of 3 cost pytest 4 points."""


class Selection(NamedTuple):
    """What :meth:`Selector.select` chose for a context."""

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
    relations: frozenset[str]
    """The ids of the facts the text writes a relation line for (the budget's,
    :attr:`~citeloop.knowledge.budget.Filled.relations`)."""


class Selector:
    """Chooses what one context holds, with an injector's settings (the attributes of
    :class:`~citeloop.knowledge.injector.ContextInjector` of the same names, read at
    each ``inject``: a caller may change them between calls).

    Args:
        reads: The store's reads (:func:`~citeloop.knowledge.store.batched`).
        finder: Finds the task's mentions, its words' lexical hits and named code.
        retrieved: The retriever's seeds, or ``None`` without a retriever.
        hops: Depth of the neighbourhood ranked around the seeds.
        max_context_tokens: Token budget of a default context.
        max_entities: Optional cap on a default context's entities.
        excerpt_share: Share of the budget source excerpts may take.
        count_tokens: Counts a text's tokens.
        seeds: The core of a task text (its entities named as code), given the text and
            whether the task is about tests; ``None``: ``finder``'s, at most
            ``max_entities`` (an injector passes its own
            :meth:`~citeloop.knowledge.injector.ContextInjector.seeds`, which a subclass
            may override).
    """

    def __init__(
        self,
        reads: BatchedGraphStore,
        finder: EntityFinder,
        retrieved: RetrievedSeeds | None,
        *,
        hops: int,
        max_context_tokens: int,
        max_entities: int | None,
        excerpt_share: float,
        count_tokens: Callable[[str], int],
        seeds: Callable[[str, bool], Sequence[Entity]] | None = None,
    ) -> None:
        self._reads = reads
        self._finder = finder
        self._retrieved = retrieved
        self.hops = hops
        self.max_context_tokens = max_context_tokens
        self.max_entities = max_entities
        self.excerpt_share = excerpt_share
        self.count_tokens = count_tokens
        self._seeds = seeds

    def select(
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
        """What the context holds (``shown``: the lines each entity of the context being
        widened showed, by entity id; shown again, right after the core; ``source``: the
        indexed lines, ``None`` for no excerpts; ``listed``: the ids of the members that
        context listed, listed first again in that order; ``written``: the ids of the
        facts it wrote relation lines for, written again; ``whole``: the ids of those of
        ``pinned`` whose line it wrote whole, whole again while the member lists can
        give way)."""
        follow_tests = widening.include_tested_by or task_type in TEST_TASK_TYPES
        budget = self.max_context_tokens * widening.limit_multiplier
        limit = self.max_entities * widening.limit_multiplier if self.max_entities else None
        # The core is the task's, the same in every widening: following tests does not
        # change which of several namesakes the task means (a played retry had asked for
        # citations of two test classes' `inverse_transform` its first context never held).
        about = task_type in TEST_TASK_TYPES or about_tests(text)
        tests = follow_tests or about
        core = (
            list(self._seeds(text, about))
            if self._seeds is not None
            else self._finder.core(text, about, self.max_entities)
        )
        found = Candidates()
        for entity in core:
            found.seed(entity, Reason.MENTION, SEED_WEIGHTS[Reason.MENTION])
        capitalized = self._finder.capitalized_classes(text, tests)
        for entity in capitalized:
            found.seed(entity, Reason.LEXICAL, SEED_WEIGHTS[Reason.LEXICAL])
        words_of_task = task_words(text)
        self._lexical(words_of_task, found, follow_tests)
        # The members of the classes the task names that its words describe.
        for entity, share in self._finder.members_matching(core, words_of_task, follow_tests):
            found.seed(entity, Reason.LEXICAL, SEED_WEIGHTS[Reason.LEXICAL] * share)
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
        parameters = {name for entity in saw for name in signature_parameters(entity)}
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
            parameters=parameters,
        )
        for entity in named:
            found.seed(entity, Reason.NAMED, SEED_WEIGHTS[Reason.NAMED])
        walk(self._reads, found, self.hops + widening.extra_hops, follow_tests)
        if widening.include_requirement_closure:
            requirement_closure(self._reads, found, SEED_WEIGHTS[Reason.LEXICAL])
        unwalked = [entity_id for entity_id in kept if entity_id not in found.entities]
        for entity_id, entity in kept.items():
            found.entities.setdefault(entity_id, entity)
        pinned = [entity_id for entity_id in pinned if entity_id in found.entities]
        scores = rank_scores(found, follow_tests, damp_tests=not tests)
        ranked = sorted(scores, key=lambda entity_id: (-scores[entity_id], entity_id))
        core_ids = [entity.id for entity in core]
        core_names = [entity.name for entity in core]
        # The names the task writes as code that name no core entity: a parameter's
        # (`title_fontsize`), or a key's; they choose lines as the core's names do.
        unnamed = [
            name
            for name in dict.fromkeys(
                m.name for m in task_mentions(text) if m.form != "capitalized"
            )
            if name.isidentifier() and name not in core_names
        ]
        code_terms = [*core_names, *unnamed]
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
            self._finder.named(
                widening.lacking, near, lacks, seen, nearest, files, sourced, parameters=parameters
            )
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
            # The task's words and the names the answer said lacking choose the lines
            # of a range asked for that does not fit whole.
            terms = focus_terms(words, (), lacking=widening.lacking, core=code_terms)
            holders, shown = self._asked_lines(
                asked_for, found, scores, order, lacking, shown or {}, source, budget, terms
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
                core_ids,
            )
            # What the last answer said it lacks is offered right after the core: past
            # the first `most` candidates it had no excerpt (the demo's `attach_edge`,
            # asked for twice, never showed its body).
            lacked = [*asked_code, *(i for i in lacking if i in scores)]
            # The code between two named entities is the first of the others.
            between = bridges(order, found, core_ids)
            # The methods that set the attributes the task names are named with them.
            setting = setters(order, found, core_ids)
            # and the functions that take a parameter it names.
            classes = [*core_ids, *(entity.id for entity in capitalized)]
            setting += parameter_users(order, found, classes, unnamed)
            best = [*core_ids, *setting, *between, *lacked, *before, *asked, *pinned, *ranked]
            # An answer that said the context lacks code gets twice the share of source.
            said_lacking = lacking or widening.lacking_words
            share = budget * min(1.0, self.excerpt_share * (2 if said_lacking else 1))
            most = MAX_EXCERPTS * widening.limit_multiplier
            focus = self._focus(
                best, found, words, found_by_task, most, widening.lacking, code_terms
            )
            excerpts = choose_excerpts(
                best,
                found.entities,
                source,
                share,
                self.count_tokens,
                focus,
                shown,
                named=[*core_ids, *setting, *asked],
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
        # and what holds asked lines with no excerpt: an attribute's line is its code
        wanted += [i for i in [*lacking, *asked_code, *holders] if i in rank]
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
        # An attribute that holds lines the answer asked for enters anyway, as the core
        # and the pinned do: its line is that code, a line each (a played third context,
        # full with what the second showed, had left out `read = ...` and `write = ...`
        # of the `NDIOMixin` lines asked for twice).
        attributes = [i for i in holders if found.entities[i].kind is EntityKind.ATTRIBUTE]
        filled, listed = self._fill(
            offered,
            found,
            budget,
            limit,
            [*first, *(i for i in attributes if i not in first)],
            owners,
            excerpts,
            [entity_id for entity_id in shown or {} if entity_id in excerpts.blocks],
            [*core_ids, *(entity.id for entity in named)],
            callees,
            MemberListSettings(scores, follow_tests, {}, {i: at for at, i in enumerate(listed)}),
            written,
            whole,
        )
        selected, without_excerpt, brief, _, relations, _ = filled
        chosen = set(selected)
        selected.sort(key=rank.__getitem__)
        owners = {member: owner for member, owner in owners.items() if member in chosen}
        excerpts = excerpts.within(chosen - without_excerpt)
        if source is not None:
            # A merged excerpt may be longer than the two it replaces: it takes no more
            # than the lines and lists leave of the budget.
            piece = line_cost(self.count_tokens)
            newline = piece("\n")
            room = budget - filled.used
            room -= sum(
                piece(member_list_line(list_label(found.entities[i]), *of)) + newline
                for i, of in listed.items()
            )
            excerpts = excerpts.nested_merged(found.entities, source, piece, room)
        return Selection(
            found,
            selected,
            core_ids,
            scores,
            owners,
            excerpts,
            brief,
            callees,
            listed,
            relations,
        )

    def _asked_lines(
        self,
        asked_for: Sequence[tuple[str, int, int]],
        found: Candidates,
        scores: dict[str, float],
        order: list[str],
        lacking: Collection[str],
        shown: Mapping[str, tuple[int, ...]],
        source: LineSource,
        budget: int,
        terms: Mapping[str, int],
    ) -> tuple[list[str], dict[str, tuple[int, ...]]]:
        """The entities that hold the lines a retry's answer asked for (``asked_for``,
        with those that set an attribute it lacks), ranked last in ``scores`` and
        ``order`` when no walk reached them, and ``shown`` with those lines added.

        The lines asked for take half the share of source of an answer that said it
        lacks code; when it also named code it lacks (``lacking``) that no context
        showed, half of what the source shown before leaves, the first looks at that
        code taking the other half (the demo's third context had shown asked lines of
        `compile` and no line of `attach_edge`, asked for by name twice). ``terms``
        choose the lines of a range that does not fit whole."""
        said = budget * min(1.0, self.excerpt_share * 2)
        room = said / 2
        if any(entity_id not in shown for entity_id in lacking):
            before = shown_tokens(shown, found.entities, source, self.count_tokens)
            room = min(room, max(0.0, said - before) / 2)
        asked_lines, asked_groups = of_members(self._reads, asked_for, found)
        holders = list(dict.fromkeys(entity_id for entity_id, _, _ in asked_lines))
        # A method no walk reached is ranked last; one that few_of_a_name counted out
        # (an `__init__` among many) comes back.
        in_order = set(order)
        for entity_id in holders:
            scores.setdefault(entity_id, 0.0)
            if entity_id not in in_order:
                order.append(entity_id)
        shown = with_asked_lines(
            asked_lines,
            found.entities,
            source,
            shown,
            room,
            self.count_tokens,
            terms,
            asked_groups,
        )
        return holders, shown

    def _fill(
        self,
        offered: Mapping[str, None],
        found: Candidates,
        budget: int,
        limit: int | None,
        first: list[str],
        owners: Mapping[str, str],
        excerpts: Excerpts,
        shown_before: list[str],
        full: list[str],
        callees: Mapping[str, Sequence[Entity]],
        settings: MemberListSettings,
        written: Collection[str] = (),
        whole: Collection[str] = (),
    ) -> tuple[Filled, dict[str, MemberList]]:
        """The lines that fit (:func:`~citeloop.knowledge.budget.fill_budget` of the
        ``offered`` ids) and the member lists under them
        (:func:`~citeloop.knowledge.member_lists.choose_member_lists`): the lines leave
        the budget's last :data:`~citeloop.knowledge.member_lists.MEMBER_LIST_SHARE` to
        the lists, and what the lists do not take goes to the lines, filled again once,
        when more than :data:`~citeloop.knowledge.member_lists.REFILL_SHARE` of the
        budget is left and some line was left out; the facts of ``written`` keep their
        relation lines, and the entities of ``whole`` their whole lines, as far as the
        lists' share reaches beyond what the lists listed before take (not at all when
        what enters anyway after them would then overflow the budget). The members the
        context being widened listed (``settings.before``) are listed again, past the
        budget when they must (:func:`~citeloop.knowledge.member_lists.fit_member_lists`);
        the lines leave their lists that room first."""
        piece = line_cost(self.count_tokens)
        room = budget * MEMBER_LIST_SHARE
        # The lists listed before enter anyway with what they listed (a widening had
        # dropped the list an answer cited from): the lines leave them that much, and
        # the lines kept whole only the rest of the lists' share.
        floor = _listed_cost(settings.before.keys(), found.entities, piece)
        before: tuple[Filled, dict[str, MemberList]] | None = None
        whole_ids = frozenset(whole)
        for _ in range(2):
            fill = partial(
                fill_budget,
                offered,
                found.entities,
                found.facts.values(),
                budget - max(room, floor),
                limit,
                first,
                self.count_tokens,
                owners,
                excerpts.blocks,
                shown_before,
                full=full,
                callees=callees,
                rewritten=written,
            )
            filled = fill(whole=whole, whole_room=max(0.0, room - floor))
            if filled.used > budget - floor:  # what entered after the lines kept whole
                filled = fill()  # overflows
            if before is not None and (
                filled.used > budget or (filled.brief - before[0].brief) & whole_ids
            ):
                # Filled again with what the lists left, what enters anyway overflows, or
                # what enters first takes the room of a line kept whole: the first fill.
                return before
            listed = choose_member_lists(
                self._reads,
                found.entities,
                filled.selected,
                owners,
                settings,
                budget - filled.used,
                piece,
                None if limit is None else max(0, limit - len(filled.selected)),
                filled.qualifiers,
            )
            members = (member for of in listed.values() for member in of.members)
            taken = qualifying(members, filled.qualifiers)[0] + sum(
                piece(member_list_line(list_label(found.entities[i]), *of)) + piece("\n")
                for i, of in listed.items()
            )
            if room - taken <= budget * REFILL_SHARE or len(filled.selected) == len(offered):
                break  # the lists took their room, or every line is in already
            room, before = taken, (filled, listed)
        return filled, listed

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

    def _lexical(self, words: Sequence[str], found: Candidates, follow_tests: bool) -> None:
        """Seed the best :attr:`lexical_hits` admissible entities ``words`` find
        (:meth:`~citeloop.knowledge.finding.EntityFinder.lexical`), weighted by their
        score against the best of them to the power :data:`HIT_SHARE_POWER`, and by
        :data:`ISOLATED_HIT_FACTOR` for a hit alone in its file (no other hit, nor a
        seed found before, is of it)."""
        hits = self._finder.lexical(words, follow_tests)
        files = Counter(entity.path for entity, _ in hits)
        files.update({found.entities[i].path for i in found.seeds})
        for entity, share in hits:
            alone = bool(entity.path) and files[entity.path] < 2
            factor = share**HIT_SHARE_POWER * (ISOLATED_HIT_FACTOR if alone else 1.0)
            found.seed(entity, Reason.LEXICAL, SEED_WEIGHTS[Reason.LEXICAL] * factor)

    def _retrieve(self, text: str, found: Candidates, follow_tests: bool) -> None:
        """Seed what the retriever returns for ``text`` (see
        :class:`~citeloop.knowledge.retrieval.RetrievedSeeds`), the n-th at
        :data:`~citeloop.knowledge.retrieval.RANK_DECAY` ``** n`` of the first's weight
        (an attribute's scaled as for a lexical hit)."""
        if self._retrieved is None:
            return
        for rank, entity in enumerate(self._retrieved.entities(text, follow_tests)):
            weight = SEED_WEIGHTS[Reason.RETRIEVED] * kind_factor(entity) * RANK_DECAY**rank
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


def _listed_cost(
    ids: Collection[str], entities: Mapping[str, Entity], piece: Callable[[str], float]
) -> float:
    """What the member lists of ``ids`` (members listed before, by id) take at least
    (:func:`~citeloop.knowledge.member_lists.list_cost`, one list a class or file)."""
    groups: dict[str, list[str]] = {}
    for member_id in ids:
        owner, _, name = member_id.rpartition(".")
        entity = entities.get(member_id)
        groups.setdefault(owner, []).append(
            listed_member(entity) if entity is not None else f"{name}() L0000"
        )
    return sum(
        list_cost(owner.rpartition(".")[2], items, len(items), piece)
        for owner, items in groups.items()
    )
