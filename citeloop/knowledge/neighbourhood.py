"""The candidates of a context: its seeds and their neighbourhood in the graph.

:class:`Candidates` collects the entities around a task, the facts between them and why
each is there; :func:`walk` adds the facts of the candidates and their other ends, hop
by hop (the strongest relations first, an entity's own facts before those about it,
:data:`MAX_NEIGHBOURS` an entity, at most :data:`MAX_CANDIDATES` in all), following
an unresolved call to the few entities its name may mean; :func:`requirement_closure`
seeds what traces to a requirement among them; :func:`known_callees` says what each
candidate calls among them. :mod:`~citeloop.knowledge.ranking` then scores the
candidates.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from citeloop.knowledge.imports import outside_imports
from citeloop.knowledge.model import Entity, EntityKind, Fact, Reason, RelationKind, is_test_path
from citeloop.knowledge.ranking import WEIGHTS
from citeloop.knowledge.seeds import RANK
from citeloop.knowledge.store import BatchedGraphStore

MAX_CANDIDATES = 600
"""Entities ranked at most (the seeds and their neighbourhood)."""

MAX_NEIGHBOURS = 40
"""Facts followed out of one entity per hop, strongest relations first."""

MAX_GUESSES = 3
"""Entities an unresolved call's name may stand for, at most, to be followed."""

BUILTIN_NAMES = frozenset(
    name
    for namespace in (builtins, dict, list, str, bytes, set, tuple, int, float, object)
    for name in dir(namespace)
)
"""Names an unresolved call is not guessed by: a builtin's, or a builtin type's method
(``.items()``, ``.format()``, ``next()`` are rarely calls into the repository)."""

_STRENGTH = {relation: round(sum(weights), 9) for relation, weights in WEIGHTS.items()}
_STRENGTHS = sorted(set(_STRENGTH.values()), reverse=True)
RELATION_RANKS = {relation: _STRENGTHS.index(strength) for relation, strength in _STRENGTH.items()}
"""The order in which an entity's facts are followed: the relations by the sum of their
:data:`~citeloop.knowledge.ranking.WEIGHTS` (strongest first, equal sums one rank),
then by fact id; a relation not listed comes last."""


@dataclass(slots=True)
class Candidates:
    """The entities around a task, with the facts between them and why each is there.

    Attributes:
        entities: The candidates by id.
        facts: The facts read among and around them, by fact id.
        reasons: Why a seed is there, by entity id (a neighbour has none: graph).
        seeds: Restart weight of each seed of the ranking walk, by entity id.
        guesses: ``calls`` facts to what an unresolved call's name may mean (ranked
            along, never rendered).
    """

    entities: dict[str, Entity] = field(default_factory=dict)
    facts: dict[str, Fact] = field(default_factory=dict)
    reasons: dict[str, Reason] = field(default_factory=dict)
    seeds: dict[str, float] = field(default_factory=dict)
    guesses: list[Fact] = field(default_factory=list)

    def seed(self, entity: Entity, reason: Reason, weight: float) -> None:
        """Add ``entity`` as a seed (its first reason kept, its highest weight)."""
        self.entities.setdefault(entity.id, entity)
        self.reasons.setdefault(entity.id, reason)
        self.seeds[entity.id] = max(self.seeds.get(entity.id, 0.0), weight)


def admissible(entity: Entity, follow_tests: bool) -> bool:
    """Whether a context may hold ``entity``: resolved, of a ranked kind, and a test only
    when tests are followed."""
    if not entity.resolved or entity.kind not in RANK:
        return False
    return entity.kind is not EntityKind.TEST or follow_tests


def walk(reads: BatchedGraphStore, found: Candidates, hops: int, follow_tests: bool) -> None:
    """Add the facts of the candidates, and their other ends, ``hops`` deep."""
    frontier = list(found.entities)
    for depth in range(hops + 1):
        if not frontier:
            return
        reached: list[str] = []
        unresolved: list[tuple[str, str, str | None]] = []
        for entity_id, facts in _first_facts(reads, frontier).items():
            for fact in facts:
                if fact.relation is RelationKind.TESTED_BY and not follow_tests:
                    continue
                found.facts.setdefault(fact.fact_id, fact)
                other = fact.object if fact.subject == entity_id else fact.subject
                if other.startswith("?") and fact.relation is RelationKind.CALLS:
                    path = fact.provenance.path if fact.provenance else None
                    unresolved.append((fact.subject, other[1:], path))
                elif other not in found.entities:
                    reached.append(other)
        if depth == hops:
            return  # the last level only adds the facts among what is there
        reached.extend(_guess_callees(reads, unresolved, found))
        room = MAX_CANDIDATES - len(found.entities)
        new = reads.get_entities(list(dict.fromkeys(reached))[: max(room, 0)])
        frontier = []
        for entity_id, entity in new.items():
            if entity.resolved and entity.kind is not EntityKind.MODULE:
                found.entities[entity_id] = entity
                frontier.append(entity_id)


def _first_facts(reads: BatchedGraphStore, entity_ids: list[str]) -> dict[str, list[Fact]]:
    """The first :data:`MAX_NEIGHBOURS` facts of each id in :data:`RELATION_RANKS` order,
    in each relation the facts it is the subject of first (what a function calls is
    bounded by its body, what calls it is not: a popular function's hundred callers
    would leave out what it delegates to), then by fact id; chosen by the store when it
    can (``first_facts_of_many``, as
    :class:`~citeloop.knowledge.sqlite_store.SqliteGraphStore` does), else sorted here."""
    first = getattr(reads, "first_facts_of_many", None)
    if first is not None:
        return first(entity_ids, RELATION_RANKS, MAX_NEIGHBOURS)
    last = len(_STRENGTHS)
    return {
        entity_id: sorted(
            facts,
            key=lambda fact: (
                RELATION_RANKS.get(fact.relation, last),
                fact.subject != entity_id,
                fact.fact_id,
            ),
        )[:MAX_NEIGHBOURS]
        for entity_id, facts in reads.facts_of_many(entity_ids).items()
    }


def _guess_callees(
    reads: BatchedGraphStore,
    unresolved: list[tuple[str, str, str | None]],
    found: Candidates,
) -> list[str]:
    """The entities an unresolved call may mean, by its name (``request.applymarker``
    on an untyped ``request``: the ``applymarker`` methods): ranking follows them,
    but they are guesses, so no relation line shows them. A call through a name its
    file imports from a module outside the graph (``np.diff`` after ``import numpy as
    np``, ``dd`` after ``from numpy import diff as dd``, ``os.path.join``) calls that
    library: it is not guessed (a played context had shown an array library's own
    ``diff`` for a transformer's ``np.diff``)."""
    calls = [
        (subject, written.rpartition(".")[2], written, path)
        for subject, written, path in unresolved
    ]
    calls = [call for call in calls if len(call[1]) > 3 and call[1] not in BUILTIN_NAMES]
    if not calls:
        return []
    heads = [(path, written.partition(".")[0]) for *_, written, path in calls]
    outside = outside_imports(reads, heads)
    calls = [call for call in calls if (call[3], call[2].partition(".")[0]) not in outside]
    named = reads.entities_named_many({name for _, name, _, _ in calls})
    reached = []
    for subject, name, _, _ in calls:
        candidates = named.get(name, [])
        if 0 < len(candidates) <= MAX_GUESSES:
            for entity in candidates:
                found.guesses.append(Fact(subject, RelationKind.CALLS, entity.id))
                reached.append(entity.id)
    return reached


def requirement_closure(reads: BatchedGraphStore, found: Candidates, weight: float) -> None:
    """Seed, at ``weight``, every entity that traces to a requirement among the
    candidates."""
    requirements = [
        entity_id
        for entity_id, entity in found.entities.items()
        if entity.kind is EntityKind.REQUIREMENT
    ]
    tracing = [
        fact
        for facts in reads.facts_of_many(requirements).values()
        for fact in facts
        if fact.relation is RelationKind.TRACES
    ]
    for fact in tracing:
        found.facts.setdefault(fact.fact_id, fact)
    entities = reads.get_entities(list(dict.fromkeys(f.subject for f in tracing)))
    for entity in entities.values():
        if entity.resolved and entity.kind in RANK:
            found.seed(entity, Reason.GRAPH, weight)


_CALLABLE = frozenset({EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.CLASS})


def defined_by(reads: BatchedGraphStore, ids: Sequence[str]) -> dict[str, list[str]]:
    """What each of ``ids`` defines (``defines`` facts: a module's classes and
    functions, a class's members), in fact order, by id; one batched read."""
    facts = reads.facts_of_many(list(ids)) if ids else {}
    return {
        owner: list(
            dict.fromkeys(
                fact.object
                for fact in facts.get(owner, ())
                if fact.relation is RelationKind.DEFINES and fact.subject == owner
            )
        )
        for owner in ids
    }


def all_defined_by(reads: BatchedGraphStore, ids: Sequence[str]) -> list[str]:
    """What ``ids`` define (:func:`defined_by`), all in one list, in order, each once."""
    return list(dict.fromkeys(i for defined in defined_by(reads, ids).values() for i in defined))


CALLERS_ASKED = 3
"""Most callers of one entity a widening shows because the last answer said the context
lacks the code that calls it (:func:`callers_of`)."""

MAX_CALLERS_READ = 200
"""Most callers of one entity read to choose those (a hub's thousands are not)."""


def callers_of(
    reads: BatchedGraphStore,
    ids: Sequence[str],
    follow_tests: bool,
    rank: Mapping[str, float],
    most: int = CALLERS_ASKED,
) -> list[Entity]:
    """Of each of ``ids`` (in order), the ``most`` best entities a context may hold
    (:func:`admissible`) that call it (``calls`` facts; itself left out): code before
    tests, then by ``rank`` (a score by id, higher first; 0 for one it lacks), then by
    id; of the first :data:`MAX_CALLERS_READ` callers by id."""
    if not ids:
        return []
    facts = reads.facts_of_many(list(ids))
    wanted = {
        entity_id: sorted(
            {
                fact.subject
                for fact in facts.get(entity_id, ())
                if fact.relation is RelationKind.CALLS
                and fact.object == entity_id
                and fact.subject != entity_id
            }
        )[:MAX_CALLERS_READ]
        for entity_id in ids
    }
    entities = reads.get_entities([i for callers in wanted.values() for i in callers])
    found: dict[str, Entity] = {}
    for callers in wanted.values():
        admitted = [entities[i] for i in callers if i in entities]
        admitted = [e for e in admitted if admissible(e, follow_tests)]
        admitted.sort(
            key=lambda e: (
                e.kind is EntityKind.TEST or is_test_path(e.path),
                -rank.get(e.id, 0.0),
                e.id,
            )
        )
        for entity in admitted[:most]:
            found.setdefault(entity.id, entity)
    return list(found.values())


def known_callees(
    reads: BatchedGraphStore, found: Candidates, scores: Mapping[str, float]
) -> dict[str, list[Entity]]:
    """What each candidate calls among the functions, methods and classes of the graph,
    by the ``calls`` facts the walk read (``found``), best ranked first, by caller id: a
    ``calls`` line names those its context does not hold
    (:func:`~citeloop.knowledge.render.omitted_callees`; played answers had read
    ``_set_params() calls BaseEstimator.set_params()`` as all it calls, and never asked
    for ``_replace_estimator``). A callee the walk did not add to the candidates is read
    too (a widened ``field() calls _cache_field()`` had lost its "not shown: ... and 2
    more" once the candidates were full). After them, the unresolved calls the walk
    guessed code of the graph for (:func:`_guessed_calls`)."""
    facts = found.facts.values()
    beyond = {
        fact.object
        for fact in facts
        if fact.relation is RelationKind.CALLS
        and fact.object not in found.entities
        and not fact.object.startswith("?")
    }
    read = reads.get_entities(sorted(beyond)) if beyond else {}
    callees = _callees(facts, lambda i: found.entities.get(i) or read.get(i), scores)
    for caller, unresolved in _guessed_calls(found).items():
        callees.setdefault(caller, []).extend(unresolved)  # after the resolved: named last
    return callees


def _guessed_calls(found: Candidates) -> dict[str, list[Entity]]:
    """The unresolved calls of each caller that the walk guessed a callee of the graph
    for (``loader.load_consumer(...)`` on an untyped ``loader``, when the graph has a
    ``load_consumer``: :func:`_guess_callees`), as unresolved entities named as written,
    by caller id: its ``calls`` line counts them among what it does not show. A judge
    found ``_load_root_consumer_conanfile() calls initialize_conanfile_profile(), ...``
    read as all it calls, without the ``load_consumer`` the question was about."""
    guessed: dict[str, set[str]] = {}
    for fact in found.guesses:
        if not fact.object.startswith("?"):  # a guess of code, not of another unresolved call
            guessed.setdefault(fact.subject, set()).add(fact.object.rpartition(".")[2])
    calls: dict[str, list[Entity]] = {}
    for fact in found.facts.values():
        if (
            fact.relation is RelationKind.CALLS
            and fact.object.startswith("?")
            and fact.object.rpartition(".")[2] in guessed.get(fact.subject, ())
        ):
            written = fact.object[1:]
            calls.setdefault(fact.subject, []).append(
                Entity(fact.object, EntityKind.FUNCTION, written, resolved=False)
            )
    for unresolved in calls.values():
        unresolved.sort(key=lambda entity: entity.id)  # the same in every process
    return calls


def read_calls(
    reads: BatchedGraphStore, found: Candidates, ids: Sequence[str], scores: Mapping[str, float]
) -> dict[str, list[Entity]]:
    """:func:`known_callees` of ``ids``, entities of a widened context that the walk did
    not reach, read whole (their first :data:`MAX_NEIGHBOURS` facts, as a walk reads
    them); their ``calls`` facts to the other candidates join ``found`` (their lines are
    written), the callees do not (they rank nothing). A kept ``fetch_openml`` had lost
    its line's ``not shown: ... and 7 more`` and read as calling one function."""
    if not ids:
        return {}
    wanted = set(ids)
    calls = [
        fact
        for caller, facts in _first_facts(reads, list(ids)).items()
        if caller in wanted
        for fact in facts
        if fact.relation is RelationKind.CALLS and fact.subject == caller
    ]
    for fact in calls:
        if fact.object in found.entities:
            found.facts.setdefault(fact.fact_id, fact)
    targets = {f.object for f in calls if f.object not in found.entities}
    read = reads.get_entities([target for target in targets if not target.startswith("?")])
    return _callees(calls, lambda i: found.entities.get(i) or read.get(i), scores)


def _callees(
    facts: Iterable[Fact], entity: Callable[[str], Entity | None], scores: Mapping[str, float]
) -> dict[str, list[Entity]]:
    """The resolved functions, methods and classes each caller of ``facts`` calls (not
    itself), looked up by ``entity``, best ranked first, by caller id."""
    callees: dict[str, list[Entity]] = {}
    for fact in facts:
        callee = entity(fact.object)
        if (
            fact.relation is RelationKind.CALLS
            and fact.subject != fact.object
            and callee is not None
            and callee.resolved
            and callee.kind in _CALLABLE
        ):
            callees.setdefault(fact.subject, []).append(callee)
    for listed in callees.values():
        listed.sort(key=lambda entity: (-scores.get(entity.id, 0.0), entity.id))
    return callees
