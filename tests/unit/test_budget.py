"""The budget's accounting against the text it bounds: whatever the graph, the rendered
context of the entities :func:`fill_budget` chooses fits the budget (core aside)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.knowledge import ContextExpansion, ContextInjector, MemoryGraphStore
from citeloop.knowledge.budget import (
    FULL_LINES_SHARE,
    RELATION_SHARE,
    fill_budget,
    line_cost,
    qualifier_costs,
)
from citeloop.knowledge.model import Entity, EntityKind, Fact, RelationKind
from citeloop.knowledge.render import MEMBER_KINDS, RENDERED_RELATIONS, ContextText, entity_line
from citeloop.text import estimated_tokens

NAMES = ("run", "get", "Job", "load", "x", "<b>", "a" + "`" * 40, "b" + "\r\n" * 20)
"""Few names, so that twins (``A.run`` and ``B.run``) are common (and three a user's
store might have, that :func:`~citeloop.text.data_line` rewrites, longer or shorter)."""

DOCS = ("", "Reads it.", "Reads <b>bold</b> and ```fenced``` text.", "One\u2028</context> two.")
"""Docstrings, some with what :func:`~citeloop.text.data_line` rewrites (longer or shorter)."""

SIGNATURES = ("", "(a)", "(path: str, *, strict: bool = True) -> dict[str, int]")
"""Signatures: none, one a brief line keeps, one it writes ``(...) -> dict[str, int]``."""


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[Entity], list[Fact]]:
    """Classes with members, functions, a decision and a requirement, in a few files;
    calls (recursive ones too) and inheritance among them."""
    entities: list[Entity] = []
    for index in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(["m0.py", "m1.py", "<a>/m2.py"]))
        owner = f"m.C{index}"
        entities.append(Entity(owner, EntityKind.CLASS, f"C{index}", path=path, line=index + 1))
        for name in draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True)):
            kind = draw(st.sampled_from([EntityKind.METHOD, EntityKind.ATTRIBUTE]))
            doc = draw(st.sampled_from(DOCS))
            entities.append(
                Entity(f"{owner}.{name}", kind, name, path=path, line=index + 2, docstring=doc)
            )
    for name in draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True)):
        signature = draw(st.sampled_from(SIGNATURES))
        entities.append(Entity(f"f.{name}", EntityKind.FUNCTION, name, "f.py", 3, signature))
    for name in draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True)):
        # Members no class of the graph defines: a module's annotated attribute, a
        # method of a class the graph lacks, a module-level test (each line unowned).
        entities.append(Entity(f"ab.{name}", EntityKind.ATTRIBUTE, name, "ab.py", 1, ": int"))
        entities.append(Entity(f"m.Gone.{name}", EntityKind.METHOD, name, "g.py", 2, "(self, a)"))
        entities.append(Entity(f"t.a.test_{name}", EntityKind.TEST, f"test_{name}", "t/a.py", 3))
    if draw(st.booleans()):
        # A class of another module with the first class's name: a member of it alone
        # makes that name ambiguous on relation lines (its line reads `C0.name`).
        entities.append(Entity("n.C0", EntityKind.CLASS, "C0", path="n.py", line=5))
        name = draw(st.sampled_from(NAMES))
        entities.append(Entity(f"n.C0.{name}", EntityKind.METHOD, name, path="n.py", line=6))
    if draw(st.booleans()):
        entities.append(Entity("DEC-1", EntityKind.DECISION, "DEC-1", signature="Why."))
    if draw(st.booleans()):
        name = draw(st.sampled_from(["REQ-1", "REQ-1" + " " * 40]))  # untitled: stripped
        title = draw(st.sampled_from(["Must.", ""]))
        entities.append(Entity("REQ-1", EntityKind.REQUIREMENT, name, signature=title))
    ids = [entity.id for entity in entities]
    pairs = st.tuples(st.sampled_from(ids), st.sampled_from(ids))
    relation = st.sampled_from([RelationKind.CALLS, RelationKind.INHERITS, RelationKind.OVERRIDES])
    facts = [
        Fact(subject, kind, object_)
        for (subject, object_), kind in draw(st.lists(st.tuples(pairs, relation), max_size=12))
    ]
    return entities, facts


def offered(entities: list[Entity], random) -> tuple[list[str], dict[str, Entity], dict[str, str]]:
    """The ids in a random order, the entities by id, and each member's class id (of
    the members whose class is among ``entities``)."""
    order = [entity.id for entity in entities]
    random.shuffle(order)
    classes = {entity.id for entity in entities if entity.kind is EntityKind.CLASS}
    owners = {
        entity.id: entity.id.rpartition(".")[0]
        for entity in entities
        if entity.kind in MEMBER_KINDS and entity.id.rpartition(".")[0] in classes
    }
    return order, {entity.id: entity for entity in entities}, owners


@settings(max_examples=300, deadline=None)
@given(graphs(), st.integers(1, 120), st.randoms(use_true_random=False))
def test_the_rendered_context_fits_the_budget_it_was_filled_to(
    graph: tuple[list[Entity], list[Fact]], budget: int, random
) -> None:
    entities, facts = graph
    order, by_id, owners = offered(entities, random)
    # What each caller calls: a calls line names those the context does not hold.
    callees: dict[str, list[Entity]] = {}
    for fact in facts:
        if fact.relation is RelationKind.CALLS and fact.subject != fact.object:
            callees.setdefault(fact.subject, []).append(by_id[fact.object])
    chosen, _, brief, _, lines, _ = fill_budget(
        order, by_id, facts, budget, None, (), estimated_tokens, owners, callees=callees
    )
    text = ContextText([by_id[i] for i in chosen], owners, brief, callees).render(
        [f for f in facts if f.fact_id in lines]
    )
    assert estimated_tokens(text) <= budget
    among = [f for f in facts if f.subject in chosen and f.object in chosen]
    assert lines <= {f.fact_id for f in among if f.relation in RENDERED_RELATIONS}


def _quarter_characters(text: str) -> float:
    """The default estimator's count of ``text`` in a text, as a user's counter."""
    return len(text) / 4


@settings(max_examples=300, deadline=None)
@given(graphs(), st.integers(1, 120), st.randoms(use_true_random=False))
def test_skipping_names_too_long_to_fit_chooses_what_writing_each_line_chooses(
    graph: tuple[list[Entity], list[Fact]], budget: int, random
) -> None:
    # The default estimator skips an entity whose name alone overflows what is left
    # without writing its line; a counter of its own gets every line written.
    entities, facts = graph
    order, by_id, owners = offered(entities, random)
    core = set(random.sample(order, k=min(1, len(order))))
    skipping = fill_budget(order, by_id, facts, budget, None, core, estimated_tokens, owners)
    written = fill_budget(order, by_id, facts, budget, None, core, _quarter_characters, owners)
    assert skipping == written


def test_a_member_of_a_class_another_class_s_name_has_is_costed_with_its_place() -> None:
    """Two classes ``C0``: a relation line names ``C0.run`` with its place, once a
    second ``run`` makes it ``C0.run``, and once the second ``C0`` makes that its place
    too; the budget counts both, in the order the random-graph test found overflowing."""
    kind = EntityKind
    entities = [
        Entity("m.C0", kind.CLASS, "C0", "m0.py", 1),
        Entity("m.C0.get", kind.METHOD, "get", "m0.py", 2),
        Entity("m.C0.Job", kind.METHOD, "Job", "m0.py", 2),
        Entity("f.get", kind.FUNCTION, "get", "f.py", 3, signature="(path: str) -> dict"),
        Entity("n.C0", kind.CLASS, "C0", "n.py", 5),
        Entity("m.C0.run", kind.METHOD, "run", "m0.py", 2),
        Entity("f.run", kind.FUNCTION, "run", "f.py", 3),
        Entity("n.C0.run", kind.METHOD, "run", "n.py", 6),
    ]
    by_id = {entity.id: entity for entity in entities}
    owners = {"m.C0.get": "m.C0", "m.C0.Job": "m.C0", "m.C0.run": "m.C0", "n.C0.run": "n.C0"}
    facts = [Fact("m.C0", RelationKind.CALLS, "m.C0.run")]
    for budget in range(20, 80):
        chosen, _, brief, *_ = fill_budget(
            list(by_id), by_id, facts, budget, None, (), estimated_tokens, owners
        )
        text = ContextText([by_id[i] for i in chosen], owners, brief).render(
            [f for f in facts if f.subject in chosen and f.object in chosen]
        )
        assert estimated_tokens(text) <= budget
        if "n.C0" in chosen and "f.run" in chosen and "m.C0.run" in chosen:
            assert text.endswith("calls C0.run() (m0.py:2)")


def test_a_calls_line_that_can_name_no_callee_is_costed_by_its_count() -> None:
    """``C0``'s one callee left out, ``Gone.x``, has a name another entity holds
    (``ab.x``), so its line says "; not shown: 1 more", longer than "; not shown: x()";
    and a fact given twice is one line. Every order and budget fits."""
    entities = [
        Entity("m.C0", EntityKind.CLASS, "C0", "m0.py", 1),
        Entity("ab.x", EntityKind.ATTRIBUTE, "x", "ab.py", 1, ": int"),
        Entity("m.Gone.x", EntityKind.METHOD, "x", "g.py", 2, "(self, a)"),
    ]
    self_call = Fact("m.C0", RelationKind.CALLS, "m.C0")
    facts = [self_call, self_call, Fact("m.C0", RelationKind.CALLS, "m.Gone.x")]
    by_id = {entity.id: entity for entity in entities}
    callees = {"m.C0": [by_id["m.Gone.x"]]}
    for budget in range(10, 40):
        for order in itertools.permutations(by_id):
            chosen, _, brief, *_ = fill_budget(
                list(order), by_id, facts, budget, None, (), estimated_tokens, {}, callees=callees
            )
            among = [f for f in facts if f.subject in chosen and f.object in chosen]
            text = ContextText([by_id[i] for i in chosen], {}, brief, callees).render(among)
            assert estimated_tokens(text) <= budget, (budget, order, text)


def test_a_name_its_line_writes_shorter_is_not_skipped_for_its_length() -> None:
    # A fence in the name becomes two backticks: the 41-character name is written in 2.
    entity = Entity("f.x", EntityKind.FUNCTION, "a" + "`" * 40, "f.py", 1)
    text = ContextText([entity], {}, frozenset()).render([])
    budget = estimated_tokens(text)
    assert budget < 41 / 4
    chosen = fill_budget(["f.x"], {"f.x": entity}, [], budget, None, (), estimated_tokens, {})
    assert chosen.selected == ["f.x"]


def test_a_widened_context_without_core_keeps_its_budget() -> None:
    # The default context's entities enter the widened one anyway; one gets its whole
    # line only while the rest of them still fit, in brief.
    doc = "run job load get " * 40
    store = MemoryGraphStore(
        [
            Entity("f.g0", EntityKind.FUNCTION, "job", "g.py", 1, "(a, b, c, d, e, f, g, h)"),
            Entity("f.g1", EntityKind.FUNCTION, "load", "f.py", 2),
            Entity("DEC-2", EntityKind.DECISION, "DEC-2", signature="load run job xxxxxx"),
            Entity("REQ-3", EntityKind.REQUIREMENT, "REQ-3", signature="run the job " + "y" * 67),
            Entity("DEC-5", EntityKind.DECISION, "DEC-5", signature="load run job " + "x" * 30),
            Entity("c.C6", EntityKind.CLASS, "Load", "c.py", 7, docstring=doc),
        ],
        [
            Fact("REQ-3", RelationKind.CALLS, "f.g1"),
            Fact("f.g1", RelationKind.DECIDED, "f.g0"),
            Fact("DEC-2", RelationKind.TRACES, "f.g1"),
        ],
    )
    injector = ContextInjector(store, max_context_tokens=12, reuse_contexts=0)
    task = "explain how run get load job and x work"
    default = injector.inject(task)
    for attempt in (0, 1):
        widened = injector.inject(task, None, ContextExpansion.for_attempt(attempt))
        assert not widened.core
        assert {e.id for e in default.entities} <= {e.id for e in widened.entities}
        assert widened.tokens <= widened.budget


def test_a_widening_that_keeps_what_its_answer_named_keeps_its_budget() -> None:
    # An entity the answer named enters whole while it fits; one that enters anyway
    # (the default showed it) is brief when its whole line would overflow, like any other.
    signature = "(alpha_parameter: int = 1, beta_parameter: str = 'x', gamma: float = 2.0)"
    doc = "Renders the widget frobnication with many words, so its summary is cut. " * 2
    store = MemoryGraphStore(
        [
            Entity(
                f"w.widget_{i}",
                EntityKind.FUNCTION,
                f"widget_{i}",
                "w.py",
                3 * i + 1,
                signature,
                docstring=doc,
            )
            for i in range(40)
        ],
        [],
    )
    injector = ContextInjector(store, max_context_tokens=150, excerpt_share=0)
    task = "how are widgets rendered with frobnication"
    default = injector.inject(task)
    names = tuple(entity.name for entity in default.entities)
    for expansion in (ContextExpansion(names=names[:3]), ContextExpansion.for_attempt(0, names)):
        widened = injector.inject(task, expansion=expansion, default=default)
        assert not widened.core
        assert {e.id for e in default.entities} <= {e.id for e in widened.entities}
        assert widened.tokens <= widened.budget


def _words(text: str) -> int:
    return len(text.split())


@settings(max_examples=150, deadline=None)
@given(
    graphs(),
    st.integers(1, 120),
    st.sampled_from([None, _words]),
    st.sampled_from([None, 0]),
    st.booleans(),
)
def test_an_injected_context_without_core_entities_fits_its_budget(
    graph: tuple[list[Entity], list[Fact]], budget: int, count, attempt, answer_named: bool
) -> None:
    entities, facts = graph
    injector = ContextInjector(
        MemoryGraphStore(entities, facts), max_context_tokens=budget, count_tokens=count
    )
    task = "explain how run get load job and x work, and test them"  # no code: no core
    expansion = None
    if attempt is not None:  # a retry, whose answer may name what the default showed
        default = injector.inject(task, "test")
        names = tuple(entity.name for entity in default.entities) if answer_named else ()
        expansion = ContextExpansion.for_attempt(attempt, names)
    context = injector.inject(task, "test", expansion)
    assert not context.core
    assert context.tokens == (count or estimated_tokens)(context.text) <= context.budget


def test_a_core_entity_enters_without_an_excerpt_that_does_not_fit() -> None:
    entities = {
        f"m.{name}": Entity(f"m.{name}", EntityKind.FUNCTION, name, "m.py", line, "()")
        for name, line in (("first", 1), ("second", 5))
    }
    excerpts = {entity_id: ["    1 | " + "x" * 80] for entity_id in entities}
    # Room for both lines and one excerpt: the first core entity keeps its excerpt, the
    # second enters bare; an excerpt never rides on a line already over the budget.
    line_cost = estimated_tokens("def first()  # L1\n")
    budget = 2 * line_cost + estimated_tokens(excerpts["m.first"][0] + "\n") + 6
    chosen, bare, _, *_ = fill_budget(
        list(entities), entities, [], budget, None, list(entities), estimated_tokens, {}, excerpts
    )
    assert chosen == ["m.first", "m.second"] and bare == {"m.second"}
    chosen, bare, _, *_ = fill_budget(
        list(entities), entities, [], 1, None, list(entities), estimated_tokens, {}, excerpts
    )
    assert chosen == ["m.first", "m.second"] and bare == {"m.first", "m.second"}
    # On a retry, an excerpt the context being widened showed enters with its entity,
    # as its line does: a context only grows.
    chosen, bare, _, *_ = fill_budget(
        list(entities),
        entities,
        [],
        budget,
        None,
        list(entities),
        estimated_tokens,
        {},
        excerpts,
        shown_before=["m.second"],
    )
    assert chosen == ["m.first", "m.second"] and bare == set()


def test_past_half_the_budget_lines_are_brief_unless_core_named_or_excerpted() -> None:
    signature = "(path: str, *, strict: bool = True) -> Config"
    entities = {
        f"m.f{i}": Entity(
            f"m.f{i}", EntityKind.FUNCTION, f"f{i}", "m.py", 10 * i + 1, signature, docstring="Do."
        )
        for i in range(12)
    }
    order = ["m.f11", *(f"m.f{i}" for i in range(11))]  # f11 is core, so first
    excerpts = {"m.f8": ["    81 | return load(path)"]}
    budget = 120
    chosen, _, brief, *_ = fill_budget(
        order,
        entities,
        [],
        budget,
        None,
        ["m.f11"],
        estimated_tokens,
        {},
        excerpts,
        full=["m.f11", "m.f9"],
    )
    assert brief and not brief & {"m.f11", "m.f9", "m.f8"}
    # Lines are whole until they take half the budget, brief after.
    ordinary = [i for i in chosen if i not in {"m.f11", "m.f9", "m.f8"}]
    first = ordinary.index(min(brief, key=ordinary.index))
    assert set(ordinary[first:]) == brief
    before = [entity_line(entities[i], None) for i in chosen[: chosen.index(ordinary[first])]]
    before += excerpts["m.f8"] if "m.f8" in chosen[: chosen.index(ordinary[first])] else []
    assert estimated_tokens("\n".join(["# m.py", *before])) >= budget * FULL_LINES_SHARE
    text = ContextText([entities[i] for i in chosen], {}, brief).render([], excerpts)
    assert estimated_tokens(text) <= budget
    for entity_id in chosen:
        line = entity_line(entities[entity_id], None, entity_id in brief)
        assert line in text.splitlines()
        assert ("(...) -> Config" in line) == (entity_id in brief)


def test_no_line_is_brief_when_every_entity_fits_whole() -> None:
    signature = "(path: str, *, strict: bool = True) -> Config"
    entities = {
        f"m.f{i}": Entity(f"m.f{i}", EntityKind.FUNCTION, f"f{i}", "m.py", i + 1, signature)
        for i in range(4)
    }
    whole = sum(estimated_tokens(entity_line(e, None) + "\n") for e in entities.values())
    budget = whole + 10  # all fit whole, and they take more than half of it
    chosen, _, brief, *_ = fill_budget(
        list(entities), entities, [], budget, None, (), estimated_tokens, {}
    )
    assert chosen == list(entities) and not brief
    # One more entity than fits whole: the tail goes brief and all of them enter.
    entities["m.g"] = Entity("m.g", EntityKind.FUNCTION, "g", "m.py", 9, signature)
    chosen, _, brief, *_ = fill_budget(
        list(entities), entities, [], budget, None, (), estimated_tokens, {}
    )
    assert chosen == list(entities) and brief


def test_an_entity_that_enters_anyway_is_brief_only_when_its_whole_line_overflows() -> None:
    long = "(" + ", ".join(f"p{i}: int" for i in range(12)) + ") -> int"
    entities = {
        f"m.f{i}": Entity(f"m.f{i}", EntityKind.FUNCTION, f"f{i}", "m.py", i + 1, long)
        for i in range(3)
    }
    kept = list(entities)  # a widening's pinned entities: they enter whatever they cost
    text = ContextText(list(entities.values()), {}, {"m.f1", "m.f2"}).render([])
    budget = estimated_tokens(text)  # the first whole, the rest brief, to the token
    chosen, _, brief, *_ = fill_budget(
        kept, entities, [], budget, None, kept, estimated_tokens, {}, full=()
    )
    assert chosen == kept and brief == {"m.f1", "m.f2"}  # the first fits whole
    # A token less, and the first's whole line would leave the rest no room.
    tight = fill_budget(kept, entities, [], budget - 1, None, kept, estimated_tokens, {}, full=())
    assert tight.brief == set(kept)
    roomy = fill_budget(kept, entities, [], 10 * budget, None, kept, estimated_tokens, {}, full=())
    assert not roomy.brief  # past half the budget, but they were kept, and they fit


def test_a_line_written_whole_before_takes_the_room_kept_past_the_budget() -> None:
    """A widening's entity whose line the context it widens wrote whole stays whole past
    the lines' budget, within the room the caller keeps for the member lists; the
    others enter brief as before, and none past that room."""
    long = "(" + ", ".join(f"p{i}: int" for i in range(12)) + ") -> int"
    entities = {
        f"m.f{i}": Entity(f"m.f{i}", EntityKind.FUNCTION, f"f{i}", "m.py", i + 1, long)
        for i in range(3)
    }
    kept = list(entities)
    text = ContextText(list(entities.values()), {}, {"m.f1", "m.f2"}).render([])
    budget = estimated_tokens(text)  # the first whole, the rest brief, to the token
    plain = fill_budget(kept, entities, [], budget, None, kept, estimated_tokens, {}, full=())
    assert plain.brief == {"m.f1", "m.f2"}
    whole_text = ContextText(list(entities.values()), {}, {"m.f2"}).render([])
    room = estimated_tokens(whole_text) - budget  # what f1's whole line takes more
    fill = [kept, entities, [], budget, None, kept, estimated_tokens, {}]
    kept_whole = fill_budget(*fill, full=(), whole={"m.f1"}, whole_room=room)
    assert kept_whole.brief == {"m.f2"} and kept_whole.used <= budget + room
    short = fill_budget(*fill, full=(), whole={"m.f1"}, whole_room=room - 1)
    assert short.brief == {"m.f1", "m.f2"}  # a token too few: brief, as without it


def test_what_is_offered_before_the_core_fits_beside_all_of_it_with_its_relation_lines() -> None:
    """A widening offers the code its answer said it lacks before the entities it keeps:
    that code enters when it fits beside the kept ones' brief lines and the relation
    lines among them, which then turn brief as needed; the whole stays within budget."""
    long = "(" + ", ".join(f"p{i}: int" for i in range(12)) + ") -> int"
    entities = {
        f"m.f{i}": Entity(f"m.f{i}", EntityKind.FUNCTION, f"f{i}", "m.py", i + 1, long)
        for i in range(3)
    }
    entities["n.asked"] = Entity("n.asked", EntityKind.FUNCTION, "asked", "n.py", 1, "()")
    facts = [Fact("m.f0", RelationKind.CALLS, "m.f1"), Fact("m.f1", RelationKind.CALLS, "m.f2")]
    kept = ["m.f0", "m.f1", "m.f2"]
    excerpts = {"n.asked": ["    1 | def asked():", "    2 |     return f0(" + "1, " * 20 + ")"]}
    order = ["n.asked", *kept]

    def rendered(chosen: list[str], brief) -> int:
        shown = [f for f in facts if f.subject in chosen and f.object in chosen]
        blocks = {entity_id: excerpts[entity_id] for entity_id in chosen if entity_id in excerpts}
        text = ContextText([entities[i] for i in sorted(chosen)], {}, brief).render(shown, blocks)
        return estimated_tokens(text)

    everything = rendered([*kept, "n.asked"], set(kept))  # the kept ones brief
    args = (entities, facts)
    rest = (None, kept, estimated_tokens, {}, excerpts)
    fits = fill_budget(order, *args, everything, *rest, full=())
    assert "n.asked" in fits.selected and fits.brief == set(kept)
    assert rendered(fits.selected, fits.brief) <= everything
    tight = fill_budget(order, *args, everything - 8, *rest, full=())
    assert "n.asked" not in tight.selected  # it would push the kept ones past the budget


def _functions(names: list[str]) -> dict[str, Entity]:
    return {
        f"m.{n}": Entity(f"m.{n}", EntityKind.FUNCTION, n, "m.py", i + 1)
        for i, n in enumerate(names)
    }


def test_relation_lines_take_their_share_of_the_budget_and_no_more() -> None:
    """A chain of calls: each function that enters adds a ``calls`` line until those
    written take :data:`RELATION_SHARE` of the budget; the rest enter without one, and
    the text writes the lines costed only."""
    names = [f"step{i}" for i in range(30)]
    entities = _functions(names)
    facts = [Fact(f"m.{a}", RelationKind.CALLS, f"m.{b}") for a, b in itertools.pairwise(names)]
    budget = 600
    filled = fill_budget(list(entities), entities, facts, budget, None, (), estimated_tokens, {})
    assert filled.selected == list(entities)  # every line fits
    written = [f for f in facts if f.fact_id in filled.relations]
    assert 0 < len(written) < len(facts)
    lines = [f"{f.subject[2:]}() calls {f.object[2:]}()" for f in written]
    room = budget * RELATION_SHARE
    assert sum(len(line) + 1 for line in lines[:-1]) / 4 < room  # one more was room left
    assert sum(len(line) + 1 for line in lines) / 4 >= room
    text = ContextText([entities[i] for i in filled.selected], {}).render(written)
    assert text.endswith("\n".join(lines)) and estimated_tokens(text) <= budget
    roomy = fill_budget(
        list(entities), entities, facts, 20 * budget, None, (), estimated_tokens, {}
    )
    assert roomy.relations == {f.fact_id for f in facts}  # a larger budget writes them all


def test_a_relation_line_the_widened_context_wrote_is_written_past_the_share() -> None:
    """The chain of the test above: the facts given as ``rewritten`` (lines the context
    being widened wrote) are written though the share is full, and count in the budget;
    the other facts past the share still get no line."""
    names = [f"step{i}" for i in range(30)]
    entities = _functions(names)
    facts = [Fact(f"m.{a}", RelationKind.CALLS, f"m.{b}") for a, b in itertools.pairwise(names)]
    budget = 600
    plain = fill_budget(list(entities), entities, facts, budget, None, (), estimated_tokens, {})
    late = {facts[-1].fact_id, facts[-5].fact_id}
    assert not late & plain.relations  # past the share in a plain fill
    again = fill_budget(
        list(entities), entities, facts, budget, None, (), estimated_tokens, {}, rewritten=late
    )
    assert again.relations == plain.relations | late
    assert again.used > plain.used
    written = [f for f in facts if f.fact_id in again.relations]
    text = ContextText([entities[i] for i in again.selected], {}).render(written)
    assert "step28() calls step29()" in text and estimated_tokens(text) <= budget


def test_a_callee_joins_a_calls_line_written_past_the_share() -> None:
    """Past the share, a callee that enters still joins its caller's line: the line
    names every callee the context holds."""
    names = ["main", *(f"part{i}" for i in range(12))]
    entities = _functions(names)
    facts = [Fact("m.main", RelationKind.CALLS, f"m.{n}") for n in names[1:]]
    budget = 200  # a room of ten tokens: the line passes it at its third callee
    filled = fill_budget(list(entities), entities, facts, budget, None, (), estimated_tokens, {})
    assert filled.selected == list(entities)
    assert filled.relations == {f.fact_id for f in facts}


def test_a_callee_joins_the_calls_line_the_widened_context_wrote_past_the_share() -> None:
    """A caller that enters after its callees, past the share, with the line the context
    being widened wrote for one of its calls: every callee the context holds joins that
    line, whatever the order of the facts (`set() calls _load()` had left out `_prune()`
    and `_schedule_save()`, whose facts came first)."""
    names = [*(f"filler{i}" for i in range(12)), "prune", "save", "load", "setter"]
    entities = _functions(names)
    facts = [
        Fact(f"m.{a}", RelationKind.CALLS, f"m.{b}") for a, b in itertools.pairwise(names[:12])
    ]
    calls = [Fact("m.setter", RelationKind.CALLS, f"m.{n}") for n in ("prune", "save", "load")]
    budget = 300
    plain = fill_budget(
        list(entities), entities, [*facts, *calls], budget, None, (), estimated_tokens, {}
    )
    assert not {f.fact_id for f in calls} & plain.relations  # past the share
    again = fill_budget(
        list(entities),
        entities,
        [*facts, *calls],
        budget,
        None,
        (),
        estimated_tokens,
        {},
        rewritten={calls[-1].fact_id},  # `setter() calls load()` was written before
    )
    assert {f.fact_id for f in calls} <= again.relations


def test_what_a_listed_namesake_adds_to_the_relation_lines() -> None:
    """A name the lines write for one id alone costs its owner (or place) on each
    relation line once a list names another of it; a class's name, the places of its
    members written ``Owner.name``."""
    piece = line_cost(estimated_tokens)
    find = Entity("c.Symbol.find", EntityKind.METHOD, "find", "c.py", 5)
    entities = {find.id: find}
    owners = {find.id: "c.Symbol"}
    claims = {"find": {find.id}, "Symbol": {"c.Symbol"}}
    costs = qualifier_costs({find.id: 2}, claims, entities, owners, piece)
    assert costs == {"find": (find.id, 2 * piece("Symbol."))}  # `find()` is written alone
    # written `Symbol.find()` already (another `find` is on a line): its class's name
    # listed for another class adds its place
    claims["find"] = {find.id, "cpp.Symbol.find"}
    costs = qualifier_costs({find.id: 2}, claims, entities, owners, piece)
    assert costs == {"Symbol": ("c.Symbol", 2 * piece(" (c.py:5)"))}
    assert qualifier_costs({find.id: 0}, claims, entities, owners, piece) == {}
