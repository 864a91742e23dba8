"""The order a context offers its candidates in: one score each, then the order shaped.

:func:`rank_scores` scores every candidate that may enter a context (personalized
PageRank from the seeds, :mod:`citeloop.knowledge.ranking`, damped for hubs, private
names, nested definitions and test code). The injector offers them in that order, the
core and what the context keeps first, then reshaped: few entities of one name
(:func:`few_of_a_name`), a class's best members right after it where excerpts are
chosen (:func:`members_follow`), and the best members of a class a retry's answer said
the context lacks (:func:`members_asked`), first those whose code uses another name it
said lacking (:func:`members_using`); with the callers it asked for, a widening's code
asked for without a name (:func:`asked_code_of`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence

from citeloop.knowledge.excerpts import excerptable
from citeloop.knowledge.model import (
    ContextExpansion,
    Entity,
    EntityKind,
    Reason,
    RelationKind,
    enclosing,
    is_example_path,
    is_test_path,
)
from citeloop.knowledge.neighbourhood import Candidates, admissible, callers_of
from citeloop.knowledge.ranking import (
    EXAMPLE_CODE_FACTOR,
    NESTED_FACTOR,
    PRIVATE_FACTOR,
    TEST_CODE_FACTOR,
    hub_factor,
    personalized_pagerank,
)
from citeloop.knowledge.render import MEMBER_KINDS, signature_parameters
from citeloop.knowledge.seeds import MAX_PER_NAME, owner_id
from citeloop.knowledge.source import LineSource
from citeloop.knowledge.store import BatchedGraphStore
from citeloop.knowledge.usages import names_used, used_names, users_of


def rank_scores(found: Candidates, follow_tests: bool, damp_tests: bool) -> dict[str, float]:
    """The rank score of every candidate of ``found`` that may enter a context (a test
    only when ``follow_tests``, or when it is a member of a class the task names: a task
    about ``TestGetItem`` is about its tests): its personalized PageRank from the seeds
    (:func:`~citeloop.knowledge.ranking.personalized_pagerank`; a seed in test code
    weighs less when ``damp_tests``, one in an example script always), times
    :func:`~citeloop.knowledge.ranking.hub_factor` of its degree among the candidates,
    and the private, test-code (when ``damp_tests``), example-script and nested (not a
    seed) factors of :mod:`citeloop.knowledge.ranking`.

    Returns:
        Score (>= 0, unbounded: compare them, do not read them) by entity id.
    """
    facts = [*found.facts.values(), *found.guesses]
    seeds = {  # a walk that starts in test code or an example script stays there
        entity_id: weight * _code_factor(found.entities[entity_id].path, damp_tests)
        for entity_id, weight in found.seeds.items()
    }
    scores = personalized_pagerank(found.entities, facts, seeds)
    degree: dict[str, int] = dict.fromkeys(found.entities, 0)
    for fact in found.facts.values():
        if fact.subject in degree and fact.object in degree:
            degree[fact.subject] += 1
            degree[fact.object] += 1
    named = {i for i, reason in found.reasons.items() if reason is Reason.MENTION}
    result = {}
    for entity_id, entity in found.entities.items():
        if not admissible(entity, follow_tests) and not (
            entity.kind is EntityKind.TEST and entity_id.rpartition(".")[0] in named
        ):
            continue
        score = scores.get(entity_id, 0.0) * hub_factor(degree[entity_id])
        if entity.name.startswith("_"):
            score *= PRIVATE_FACTOR
        score *= _code_factor(entity.path, damp_tests)
        if entity_id not in found.seeds and enclosing(entity):
            score *= NESTED_FACTOR
        result[entity_id] = score
    return result


def _code_factor(path: str | None, damp_tests: bool) -> float:
    """:data:`~citeloop.knowledge.ranking.TEST_CODE_FACTOR` for test code (when
    ``damp_tests``), :data:`~citeloop.knowledge.ranking.EXAMPLE_CODE_FACTOR` for an
    example script, else 1."""
    if damp_tests and is_test_path(path):
        return TEST_CODE_FACTOR
    return EXAMPLE_CODE_FACTOR if is_example_path(path) else 1.0


def few_of_a_name(
    order: list[str], entities: Mapping[str, Entity], exempt: Collection[str]
) -> list[str]:
    """``order`` without the entities past the
    :data:`~citeloop.knowledge.seeds.MAX_PER_NAME`-th of their name: the plugins that
    each define ``_get_streams``, the migrations that each subclass ``Migration``, the
    dialects that each override ``match_grammar`` are one name to a reader, three of
    them show what it is, and the budget goes to other names. The ids of ``exempt``
    always stay, and count."""
    seen: Counter[str] = Counter()
    kept = []
    for entity_id in order:
        name = entities[entity_id].name
        seen[name] += 1
        if seen[name] <= MAX_PER_NAME or entity_id in exempt:
            kept.append(entity_id)
    return kept


def best_hit_first(
    order: list[str], found: Candidates, tests: bool = True, core: Collection[str] = ()
) -> list[str]:
    """``order`` with the task's best lexical hit (the ``lexical`` seed of ``order``
    with the largest weight) first: where the task names no code, it is the likeliest
    subject, and ranked by the graph a hub it calls had come before it (a played
    question about the method that checks whether a repository has uncommitted changes
    had shown the source of ``Git.run``, which every method of ``Git`` calls, and not
    of ``Git.is_dirty``). Of the reference entities whose source a first context shows,
    on the four SWE-QA repositories of ``bench_context`` and five it was not tuned on,
    the share rose on seven (by 0.1 to 7.1 points), held on one and fell on one
    (requests, 1.9 points). Test code is no such subject unless ``tests`` (a task about
    tests): a played question about the method that resolves error handlers had shown
    a test's nested ``code_exception_handler`` first, and the method not at all.

    Where the task names code (``core``, ids), its best hit among what that code calls
    comes first: a played question about ``test_transfer_enc_removal_on_redirect`` had
    shown the source of ``remove_cookie_by_name`` (its words: "removal") and not of the
    ``resolve_redirects`` the test calls. Summed over those nine repositories and
    five more, the share of reference entities whose source the first context shows
    went from 257.0 to 260.7 points (up on five, down on none), the entities it holds
    unchanged."""
    hits = [
        i
        for i in order
        if found.reasons.get(i) is Reason.LEXICAL
        and i in found.seeds
        and (tests or not is_test_path(found.entities[i].path))
    ]
    if not hits:
        return order
    if core:
        called = {
            fact.object
            for fact in found.facts.values()
            if fact.relation is RelationKind.CALLS and fact.subject in core
        }
        hits = [i for i in hits if i in called] or hits
    best = max(hits, key=lambda i: found.seeds[i])  # the first of the largest weight
    return [best, *(i for i in order if i != best)]


BRIDGES = 3
"""Most members of core classes that lead to other core code (:func:`bridges`)."""

_BRIDGE_RELATIONS = frozenset({RelationKind.CALLS, RelationKind.REFERENCES})


def bridges(order: Sequence[str], found: Candidates, core: Collection[str]) -> list[str]:
    """The code between the core entities, best first, at most :data:`BRIDGES`: each
    excerptable member of a core class, or function nested in a core function (not core
    itself), that calls or references another core entity or a member of one. The task
    names both ends, so the code that joins them is likely what it asks about: "Why
    does `DatasetRolling` create `DataArrayRolling` objects only for ..." is answered by
    ``DatasetRolling.__init__``, which calls ``DataArrayRolling`` (a played first
    context had shown three other methods of the class and no line of it). A method the
    task names of a class it names is another core entity too, so its callers in that
    class are bridges (``PyCollector.istestclass`` for "`isnosetest` ... `PyCollector`",
    which a judge of a played answer had found missing). One pass over the facts read."""
    core = frozenset(core)
    if len(core) < 2:
        return []

    def side(entity_id: str) -> str | None:  # the core entity an id is, or is of
        if entity_id in core:
            return entity_id
        owner = owner_id(entity_id)
        return owner if owner in core else None

    joined = set()
    for fact in found.facts.values():
        if fact.relation in _BRIDGE_RELATIONS and fact.subject not in core:
            start, end = side(fact.subject), side(fact.object)
            if start is not None and end is not None and start != end:
                joined.add(fact.subject)
    return [i for i in order if i in joined and excerptable(found.entities[i])][:BRIDGES]


def setters(order: Sequence[str], found: Candidates, core: Collection[str]) -> list[str]:
    """The methods that first set the core's instance attributes (their ``set_in``), in
    the order of ``order``: the value of an attribute the task names is made there ("how
    ... the fit method ... between the `deviations_` and `centroids_` attributes": a
    played first context had shown 12 of the 125 lines of ``NearestCentroid.fit``, which
    sets both, beside another class's whole ``fit``)."""
    wanted = set()
    for entity_id in core:
        entity = found.entities.get(entity_id)
        if entity is not None and entity.kind is EntityKind.ATTRIBUTE and entity.set_in:
            wanted.add(f"{owner_id(entity_id)}.{entity.set_in}")
    return [i for i in order if i in wanted and i not in core and excerptable(found.entities[i])]


PARAMETER_USERS = 2
"""Most methods a task's parameter names offer (:func:`parameter_users`)."""


def parameter_users(
    order: Sequence[str], found: Candidates, named: Collection[str], names: Collection[str]
) -> list[str]:
    """The methods of the classes the task names (``named``: its core, and the classes
    it names by a capitalized word; and the functions nested in its core functions)
    among the candidates that take a parameter the task names as code and no core entity
    has (``names``), in the order of ``order``, at most :data:`PARAMETER_USERS`. The conflict
    "between title_fontsize and title_fontproperties" of "the Legend class" is handled
    in ``Legend.__init__``, which takes both (a played first context had shown it brief,
    with the excerpts given to ``validate_fontsize`` and the legend handlers). Another
    function that takes a parameter so named is no more than a namesake: "the version
    in the find_package operation" of CMake had offered a test helper's ``find_package``
    parameter."""
    names = frozenset(names)
    if not names:
        return []
    named = frozenset(named)
    return [
        entity_id
        for entity_id in order
        if owner_id(entity_id) in named
        and entity_id not in named
        and excerptable(found.entities[entity_id])
        and signature_parameters(found.entities[entity_id]) & names
    ][:PARAMETER_USERS]


MEMBERS_FOLLOWING = 3
"""Most members of a class that come right after it in the order excerpts are chosen in."""


def members_follow(order: list[str], found: Candidates) -> list[str]:
    """``order`` with, after each class, its best :data:`MEMBERS_FOLLOWING` members of
    ``order`` (in ``order``'s order): a class shows no source of its own, and the code
    of a class a context is about is its methods' (each id once)."""
    members: dict[str, list[str]] = {}
    for entity_id in order:
        owner = entity_id.rpartition(".")[0]
        if owner in found.entities and found.entities[entity_id].kind in MEMBER_KINDS:
            members.setdefault(owner, []).append(entity_id)
    result: list[str] = []
    for entity_id in order:
        result.append(entity_id)
        if found.entities[entity_id].kind is EntityKind.CLASS:
            result.extend(members.get(entity_id, ())[:MEMBERS_FOLLOWING])
    return list(dict.fromkeys(result))


MEMBERS_ASKED = 12
"""Most members of a class the last answer said the context lacks that a widening offers
before what the context it widens held (its best, in rank order)."""


def members_asked(
    order: list[str], found: Candidates, lacking: Collection[str], asked: Collection[str]
) -> list[str]:
    """The best :data:`MEMBERS_ASKED` members (in ``order``'s order) of each class of
    ``lacking`` named in ``asked``: an answer that says the context lacks the members or
    the body of a class ("the test methods of `ReadWriteHTMLTestMixin`", "the body of
    `Field`") asks for what it holds, and a class's own lines are its ``class`` line and
    docstring."""
    classes = _classes_asked(found, lacking, asked)
    if not classes:
        return []
    taken: Counter[str] = Counter()
    members = []
    for entity_id in order:
        owner = entity_id.rpartition(".")[0]
        if owner in classes and taken[owner] < MEMBERS_ASKED:
            taken[owner] += 1
            members.append(entity_id)
    return members


def _classes_asked(found: Candidates, lacking: Collection[str], asked: Collection[str]) -> set[str]:
    """The ids of the classes of ``lacking`` (ids) that ``asked`` names (see
    :func:`members_asked`)."""
    names = {name.rpartition(".")[2] for name in asked}
    return {
        i
        for i in lacking
        if i in found.entities
        and found.entities[i].kind is EntityKind.CLASS
        and found.entities[i].name in names
    }


MAX_ANCHORS = 30
"""Best-ranked candidates whose modules a widening reads for the names its last answer
said lacking that no relation leads to (:func:`~citeloop.knowledge.usages.users_of`),
beside the modules of what it said lacking."""

MEMBERS_USING = 3
"""Most members of a class said lacking that show their code because it uses another
name the answer said lacking (:func:`members_using`)."""


def members_using(
    order: Sequence[str],
    found: Candidates,
    lacking: Collection[str],
    asked: Collection[str],
    names: Collection[str],
    source: LineSource,
) -> list[str]:
    """The first :data:`MEMBERS_USING` members (in ``order``'s order) of the classes
    :func:`members_asked` reads (``lacking``, ``asked``) whose lines use a name of
    ``names`` (all the answer said the context lacks, a dotted one by its last part)
    other than their class's and their own: an answer that asked "where
    `digest_method` is read ... the body of `SecureCookieSessionInterface`" asks for
    the member that reads it (``get_signing_serializer``), whether or not it ranks among
    the class's best. One pass over each member's lines; a member whose file is not as
    indexed is passed over (:func:`~citeloop.knowledge.usages.names_used`)."""
    wanted = {name.rpartition(".")[2] for name in names} - {""}
    classes = _classes_asked(found, lacking, asked) if wanted else set()
    chosen = [
        found.entities[i]
        for i in order
        if owner_id(i) in classes and excerptable(found.entities[i])
    ]
    files = source.lines({entity.path for entity in chosen if entity.path}) if chosen else {}
    using = []
    for entity in chosen:
        others = wanted - {entity.name, found.entities[owner_id(entity.id)].name}
        if others and others & names_used(entity, files):
            using.append(entity.id)
            if len(using) >= MEMBERS_USING:
                break
    return using


DESCRIBED_SHARE = 0.5
"""Least match of a member, against its class's best, that :func:`members_described`
takes."""


def members_described(
    found: Candidates,
    lacking: Collection[str],
    asked: Collection[str],
    matching: Callable[[list[Entity]], list[tuple[Entity, float]]],
) -> list[Entity]:
    """The members of the classes :func:`members_asked` reads (``lacking``, ``asked``)
    that the words of the widening find (``matching``: the classes to each member
    found with its match against its class's best, 0 to 1, as
    :meth:`~citeloop.knowledge.finding.EntityFinder.members_matching` gives), those of
    at least :data:`DESCRIBED_SHARE`: "`ChromiumWebbrowser` ... and the method that
    fetches the WebSocket debugger URL" asks for ``get_websocket_url`` (a played
    widening had shown the source of its best-ranked member, a list of flags)."""
    classes = [found.entities[i] for i in sorted(_classes_asked(found, lacking, asked))]
    if not classes:
        return []
    return [entity for entity, share in matching(classes) if share >= DESCRIBED_SHARE]


def asked_code_of(
    reads: BatchedGraphStore,
    widening: ContextExpansion,
    order: list[str],
    found: Candidates,
    scores: dict[str, float],
    lacking: list[str],
    follow_tests: bool,
    source: LineSource | None,
    shown: Collection[str] = (),
    matching: Callable[[list[Entity]], list[tuple[Entity, float]]] | None = None,
) -> tuple[list[str], list[str]]:
    """``(members, asked code)`` of a widening (``lacking``: the ids of what its last
    answer said the context lacks; ``shown``: those whose source its context showed):
    the best members of each class it said the context lacks the body or members of
    (:func:`members_asked`), and the code it asked for without naming it, which shows
    its source as what it named lacking does: the members of such a class that the
    words of the widening find (``matching``, :func:`members_described`), those that use
    another name it said lacking
    (:func:`members_using`, first among the members too), and the code that calls what
    it said it lacks the callers of ("the method that calls `save_session`":
    :func:`~citeloop.knowledge.neighbourhood.callers_of`) and the code that uses a name
    it said lacking that no relation leads to (an attribute it reads, a setting's key:
    :func:`~citeloop.knowledge.usages.users_of`), which joins ``found``, ``scores`` and
    ``order`` (ranked last when no walk reached it)."""
    members = members_asked(order, found, lacking, widening.members)
    asked_code = (
        members_using(order, found, lacking, widening.members, widening.lacking, source)
        if source is not None and members
        else []
    )
    described = members_described(found, lacking, widening.members, matching) if matching else []
    _join(described, found, scores, order)
    asked_code = list(dict.fromkeys([*(e.id for e in described), *asked_code]))
    members = list(dict.fromkeys([*asked_code, *members]))
    added = list(callers_of(reads, _callees(widening, found, lacking), follow_tests, scores))
    if source is not None:
        said = [found.entities[i] for i in lacking if i in found.entities]
        names = used_names(widening.lacking, said)
        anchors = [*said, *(found.entities[i] for i in order[:MAX_ANCHORS])]
        added += users_of(reads, names, anchors, source, follow_tests, shown)
    _join(added, found, scores, order)
    asked_code += (entity.id for entity in added)
    return members, list(dict.fromkeys(asked_code))


def _join(
    entities: Sequence[Entity], found: Candidates, scores: dict[str, float], order: list[str]
) -> None:
    """``entities`` join ``found``, ``scores`` and ``order`` (ranked last when no walk
    reached them)."""
    for entity in entities:
        found.entities.setdefault(entity.id, entity)
        if entity.id not in scores:
            scores[entity.id] = 0.0
            order.append(entity.id)


def _callees(widening: ContextExpansion, found: Candidates, lacking: list[str]) -> list[str]:
    """The ids of ``lacking`` whose callers the widening asks for: a bare name its
    entities', a dotted one those whose id ends with it (`Session.save` is not
    `Cache.save`)."""
    bare = {name for name in widening.callers if "." not in name}
    dotted = tuple("." + name for name in widening.callers if "." in name)
    return [
        i
        for i in lacking
        if i in found.entities and (found.entities[i].name in bare or i.endswith(dotted))
    ]
