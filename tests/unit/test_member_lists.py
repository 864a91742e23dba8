"""Members listed under their class's line or their file's heading: what is listed, in
what order, within the budget, parsed back, kept across a widening and citable."""

from __future__ import annotations

import dataclasses
import re

import pytest

from citeloop.grounding import GraphContextValidator, parse_context_entities
from citeloop.knowledge import ContextInjector, MemoryGraphStore
from citeloop.knowledge.budget import line_cost
from citeloop.knowledge.member_lists import (
    MAX_LISTED,
    MAX_UNRANKED,
    MemberList,
    MemberListSettings,
    choose_member_lists,
    fit_member_lists,
    owned_members,
)
from citeloop.knowledge.model import ContextExpansion, Entity, EntityKind, Fact, RelationKind
from citeloop.knowledge.render import member_list_line
from citeloop.knowledge.store import batched
from citeloop.text import estimated_tokens

PIECE = line_cost(estimated_tokens)
SIGNATURE = "(self, source: str, *, strict: bool = True) -> Report"
TASK = "How does `Hub` run its steps?"


def _hub(members: int = 60) -> MemoryGraphStore:
    """``Hub`` (m.py L1-700) with ``members`` methods ``step<i>`` at L10*i+5 and five
    attributes ``field<i>``."""
    entities = [
        Entity("m.Hub", EntityKind.CLASS, "Hub", "m.py", 1, end_line=700),
        *(
            Entity(f"m.Hub.step{i}", EntityKind.METHOD, f"step{i}", "m.py", 10 * i + 5, SIGNATURE)
            for i in range(members)
        ),
        *(
            Entity(f"m.Hub.field{i}", EntityKind.ATTRIBUTE, f"field{i}", "m.py", 2 + i)
            for i in range(5)
        ),
    ]
    facts = [Fact("m.Hub", RelationKind.DEFINES, e.id) for e in entities[1:]]
    return MemoryGraphStore(entities, facts)


def _listed(context) -> list[str]:
    return [e.name for e in context.entities if e.reason == "member"]


def test_a_class_lists_its_members_that_have_no_line_of_their_own() -> None:
    context = ContextInjector(_hub(), max_context_tokens=300).inject(TASK)
    (line,) = [line for line in context.text.splitlines() if line.startswith("Hub members: ")]
    listed = _listed(context)
    assert listed and len(listed) + sum(1 for e in context.entities if e.reason != "member") > 12
    # each entity once: a listed member has no line of its own, a member with a line is
    # not listed
    for name in listed:
        assert f"Hub.{name}(" not in context.text
        assert f"{name}() L" in line or f"{name} L" in line
    with_lines = [e.name for e in context.entities if e.reason != "member" and e.name != "Hub"]
    assert with_lines and not any(re.search(rf"\b{name}\b", line) for name in with_lines)
    assert all(e.tier == "supporting" for e in context.entities if e.reason == "member")
    step = next(e for e in context.entities if e.reason == "member" and e.kind == "method")
    assert f"{step.name}() L{step.line}" in line  # its first line, a citation's line
    assert context.tokens <= context.budget


@pytest.mark.parametrize("budget", range(40, 700, 53))
def test_lines_and_lists_stay_within_the_budget(budget: int) -> None:
    context = ContextInjector(_hub(), max_context_tokens=budget).inject(TASK)
    assert context.tokens <= budget
    listed = _listed(context)
    parsed = {e.name for e in parse_context_entities(context.text)}
    assert set(listed) <= parsed  # the text names every listed entity


def test_a_small_class_leaves_its_list_room_to_the_lines() -> None:
    """Listing three members takes a fraction of the list's share: the lines get the
    rest (filled again), so the context still fills its budget."""
    entities = [Entity("m.Hub", EntityKind.CLASS, "Hub", "m.py", 1)]
    entities += [
        Entity(f"m.f{i}", EntityKind.FUNCTION, f"f{i}", "m.py", 100 + i, SIGNATURE)
        for i in range(60)
    ]
    entities += [Entity(f"m.Hub.m{i}", EntityKind.METHOD, f"m{i}", "m.py", 2 + i) for i in range(3)]
    facts = [Fact("m.Hub", RelationKind.CALLS, f"m.f{i}") for i in range(60)]
    facts += [Fact("m.Hub", RelationKind.DEFINES, f"m.Hub.m{i}") for i in range(3)]
    context = ContextInjector(MemoryGraphStore(entities, facts), max_context_tokens=400).inject(
        "`Hub`"
    )
    assert context.tokens > 400 * 0.9


def test_members_are_ranked_by_score_then_in_source_order() -> None:
    store = _hub(6)
    (hub,) = store.entities_named("Hub")
    scores = {"m.Hub.step4": 0.5, "m.Hub.step2": 0.1}
    lists = owned_members(batched(store), [hub], {"m.Hub.step0"}, scores, False, {})
    names = [e.name for e in lists["m.Hub"].members]
    assert names[:2] == ["step4", "step2"]
    assert names[2:] == [
        "field0",
        "field1",
        "field2",
        "field3",
        "field4",
        "step1",
        "step3",
        "step5",
    ]
    assert lists["m.Hub"].omitted == 0


def test_a_hub_lists_few_members_the_ranking_did_not_reach() -> None:
    """A hub's sixty members, none of them ranked, offer the first few in source order;
    a ranked one comes first whatever its place."""
    store = _hub(60)
    (hub,) = store.entities_named("Hub")
    offered = owned_members(batched(store), [hub], set(), {"m.Hub.step50": 0.2}, False, {})
    members, cut = offered["m.Hub"]
    assert members[0].name == "step50" and len(members) == 1 + MAX_UNRANKED
    lines = [e.line for e in members[1:]]
    assert lines == sorted(lines) and lines[0] == 2  # in source order, from the first
    assert cut == 65 - len(members)
    (fitted,) = fit_member_lists([hub], offered, 1000, PIECE).values()
    assert fitted.members == members and fitted.omitted == cut  # counted as not shown
    every = {f"m.Hub.step{i}": 1.0 / (i + 1) for i in range(60)}  # all ranked
    members, cut = owned_members(batched(store), [hub], set(), every, False, {})["m.Hub"]
    assert [e.name for e in members] == [f"step{i}" for i in range(MAX_LISTED)]
    assert cut == 65 - MAX_LISTED


def test_the_members_a_widened_context_listed_come_first_past_the_unranked_bound() -> None:
    """Members listed before (``before``) lead their list again, in their order, ahead
    of ranked ones, and do not count against :data:`MAX_UNRANKED`."""
    store = _hub(60)
    (hub,) = store.entities_named("Hub")
    before = {f"m.Hub.step{i}": 90 - i for i in range(30, 30 + MAX_UNRANKED + 3)}
    scores = {"m.Hub.step5": 0.5}
    members, cut = owned_members(batched(store), [hub], set(), scores, False, {}, before)["m.Hub"]
    names = [e.name for e in members]
    assert names[: len(before)] == [f"step{i}" for i in reversed(range(30, 30 + MAX_UNRANKED + 3))]
    assert names[len(before)] == "step5"
    assert len(names) == len(before) + 1 + MAX_UNRANKED and cut == 65 - len(names)


def test_the_lists_a_widened_context_showed_take_the_room_first() -> None:
    """Two hubs, the second's list shown before: with room for one list, it is the
    second's that is shown again."""
    hubs = [_hub(4), _hub(4)]
    entities, facts = [], []
    for at, hub_store in enumerate(hubs):
        for entity in hub_store.entities_named("Hub") + [
            e for i in range(4) for e in hub_store.entities_named(f"step{i}")
        ]:
            entities.append(dataclasses.replace(entity, id=entity.id.replace("m.", f"m{at}.")))
    for entity in entities:
        if entity.kind is EntityKind.METHOD:
            facts.append(Fact(entity.id.rsplit(".", 1)[0], RelationKind.DEFINES, entity.id))
    store = MemoryGraphStore(entities, facts)
    first, second = (e for e in entities if e.kind is EntityKind.CLASS)
    graph = {e.id: e for e in entities}
    selected = [first.id, second.id]
    room = 14  # one list of a few members
    plain = choose_member_lists(
        batched(store),
        dict(graph),
        selected,
        {},
        MemberListSettings({}, False, {}),
        room,
        PIECE,
        None,
    )
    assert list(plain) == [first.id]
    before = {f"{second.id}.step2": 0}
    again = choose_member_lists(
        batched(store),
        dict(graph),
        selected,
        {},
        MemberListSettings({}, False, {}, before),
        room,
        PIECE,
        None,
    )
    assert list(again) == [second.id] and again[second.id].members[0].id in before


def _classes(names: list[str], member: str) -> tuple[list[Entity], dict[str, MemberList]]:
    classes = [Entity(f"m.{n}", EntityKind.CLASS, n, "m.py", 1) for n in names]
    members = {
        c.id: MemberList([Entity(f"{c.id}.{member}", EntityKind.METHOD, member, "m.py", 2)], 0)
        for c in classes
    }
    return classes, members


def test_a_list_that_does_not_fit_leaves_the_room_to_the_next_class() -> None:
    classes, members = _classes(["A", "B"], "run")
    members["m.A"] = MemberList([Entity("m.A.x", EntityKind.METHOD, "x" * 200, "m.py", 2)], 0)
    fitted = fit_member_lists(classes, members, 30, PIECE)
    assert list(fitted) == ["m.B"] and fitted["m.B"].omitted == 0


def test_a_list_stops_where_the_room_ends_and_counts_the_rest() -> None:
    store = _hub(40)
    (hub,) = store.entities_named("Hub")
    offered = owned_members(batched(store), [hub], set(), {}, False, {})
    members, cut = offered["m.Hub"]
    assert fit_member_lists([hub], offered, 10, PIECE) == {}  # not one fits
    for room in (18, 25, 60):
        listed = fit_member_lists([hub], offered, room, PIECE)[hub.id]
        line = member_list_line("Hub", listed.members, listed.omitted)
        assert PIECE(line) + PIECE("\n") <= room
        assert listed.members == members[: len(listed.members)]  # in rank order
        assert listed.omitted == len(members) + cut - len(listed.members)
        assert line.endswith(f"; not shown: {listed.omitted} more")


def test_a_list_names_the_one_member_it_would_count_as_not_shown() -> None:
    """A played list read `BinGrouper members: ..., _pandas_cut_wrapper() L417; not
    shown: 1 more`, hiding `factorize` (its name held three times), the method the
    question turned on: "; not shown: 1 more" takes about the room of its name."""
    (owner,), _ = _classes(["BinGrouper"], "x")
    offered = {
        owner.id: MemberList(
            [
                Entity("m.BinGrouper.cut", EntityKind.METHOD, "cut", "m.py", 3),
                Entity("m.BinGrouper.factorize", EntityKind.METHOD, "factorize", "m.py", 9),
            ],
            0,
        )
    }
    held = ["factorize"] * 3
    listed = fit_member_lists([owner], offered, 1000, PIECE, held=held)[owner.id]
    assert [m.name for m in listed.members] == ["cut", "factorize"] and listed.omitted == 0
    # Two left out are still counted: a name each takes more room than the count.
    offered[owner.id].members.append(
        Entity("m.BinGrouper.reset", EntityKind.METHOD, "factorize", "m.py", 12)
    )
    listed = fit_member_lists([owner], offered, 1000, PIECE, held=held)[owner.id]
    assert [m.name for m in listed.members] == ["cut"] and listed.omitted == 2


def test_a_list_counts_the_members_no_context_may_hold_as_not_shown() -> None:
    """A played file list read `module members: EmptyDataclass L24, _HashableDict L712`
    for a test module of 13 test functions, which a context about library code does not
    hold: counted, the list no longer reads as the whole file."""
    path = "testing/test_pprint.py"
    module = Entity("testing.test_pprint", EntityKind.MODULE, "test_pprint", path, 1)
    entities = [
        module,
        Entity("testing.test_pprint.Empty", EntityKind.CLASS, "Empty", path, 24),
        *(
            Entity(f"testing.test_pprint.test_{i}", EntityKind.TEST, f"test_{i}", path, 40 + i)
            for i in range(3)
        ),
    ]
    facts = [Fact(module.id, RelationKind.DEFINES, e.id) for e in entities[1:]]
    store = MemoryGraphStore(entities, facts)
    offered = owned_members(batched(store), [module], set(), {}, False, {})
    assert [m.name for m in offered[module.id].members] == ["Empty"]
    assert offered[module.id].omitted == 3
    # A test class's test methods are listed when tests are followed, counted when not.
    case = Entity("testing.test_pprint.TestCase", EntityKind.CLASS, "TestCase", path, 60)
    checks = [
        Entity(f"{case.id}.test_{i}", EntityKind.TEST, f"test_{i}", path, 61 + i) for i in (0, 1)
    ]
    store = MemoryGraphStore(
        [case, *checks], [Fact(case.id, RelationKind.DEFINES, c.id) for c in checks]
    )
    assert owned_members(batched(store), [case], set(), {}, True, {})[case.id].omitted == 0
    assert owned_members(batched(store), [case], set(), {}, False, {}) == {}


def test_lists_show_a_name_at_most_three_times() -> None:
    """Eight plugins each define `_get_streams`: three of a name show what it is."""
    classes, members = _classes([f"Site{i}" for i in range(8)], "_get_streams")
    fitted = fit_member_lists(classes, members, 1000, PIECE, held=["_get_streams"])
    assert len(fitted) == 2  # the context held one already
    assert fit_member_lists(classes, members, 1000, PIECE, held=()).keys() == {
        "m.Site0",
        "m.Site1",
        "m.Site2",
    }
    # but what the context being widened listed is listed again (a played widening had
    # dropped `__init__` from `Config members:`, the context holding three by then)
    again = {"m.Site5._get_streams", "m.Site7._get_streams"}
    fitted = fit_member_lists(classes, members, 1000, PIECE, held=["_get_streams"] * 3, again=again)
    assert fitted.keys() == {"m.Site5", "m.Site7"}


def _namesakes(with_b: bool = True) -> MemoryGraphStore:
    """``A.run`` calls the function ``lookup``; ``B`` (but not without ``with_b``) has
    forty-one methods, ``lookup`` the last, too many for lines of their own."""
    run = Entity("m.A.run", EntityKind.METHOD, "run", "m.py", 2, "(self, key: str)")
    lookup = Entity("m.lookup", EntityKind.FUNCTION, "lookup", "m.py", 30, "(key: str) -> int")
    b_members = [
        Entity(f"m.B.{name}", EntityKind.METHOD, name, "m.py", 41 + i, SIGNATURE)
        for i, name in enumerate([*(f"do{i}" for i in range(40)), "lookup"])
        if with_b
    ]
    entities = [
        Entity("m.A", EntityKind.CLASS, "A", "m.py", 1, end_line=20),
        run,
        lookup,
        *([Entity("m.B", EntityKind.CLASS, "B", "m.py", 40, end_line=90)] if with_b else []),
        *b_members,
    ]
    facts = [
        Fact("m.A", RelationKind.DEFINES, run.id),
        Fact(run.id, RelationKind.CALLS, lookup.id),
        *(Fact("m.B", RelationKind.DEFINES, member.id) for member in b_members),
    ]
    return MemoryGraphStore(entities, facts)


NAMESAKES_TASK = "What does `A.run` call, and what is `B`?"


def test_a_relation_line_tells_a_name_apart_from_a_listed_namesake() -> None:
    """A played relation line read `_symbol_lookup() calls Symbol.find_identifier()`
    beside another `Symbol`'s list naming its own `_symbol_lookup()`: the model took it
    for that one."""
    context = ContextInjector(_namesakes(), max_context_tokens=300).inject(NAMESAKES_TASK)
    assert re.search(r"^B members: .*\blookup\(\) L81", context.text, re.M)
    assert "\nrun() calls lookup() (m.py:30)" in context.text
    assert context.tokens <= context.budget
    # with no namesake in the context, the name alone says which
    text = ContextInjector(_namesakes(False), max_context_tokens=300).inject(NAMESAKES_TASK).text
    assert "\nrun() calls lookup()\n" in f"{text}\n"


@pytest.mark.parametrize("budget", range(240, 400, 7))
def test_the_lists_pay_for_what_their_namesakes_add_to_relation_lines(budget: int) -> None:
    context = ContextInjector(_namesakes(), max_context_tokens=budget).inject(NAMESAKES_TASK)
    assert context.tokens <= budget


def test_the_first_list_naming_a_namesake_pays_for_its_relation_lines_once() -> None:
    classes, members = _classes(["P", "Q"], "run")
    qualifiers = {"run": ("m.X.run", 5.0)}  # the lines write X's `run` alone, 5 tokens to tell
    # the least room P's list fits in, to the quarter token (the default estimator's step)
    need = next(r / 4 for r in range(400) if fit_member_lists(classes[:1], members, r / 4, PIECE))
    assert fit_member_lists(classes[:1], members, need, PIECE, qualifiers=qualifiers) == {}
    assert fit_member_lists(classes[:1], members, need + 5, PIECE, qualifiers=qualifiers)
    # the second list to name `run` adds nothing more to the lines
    both = fit_member_lists(classes, members, 2 * need + 5, PIECE, qualifiers=qualifiers)
    assert both.keys() == {"m.P", "m.Q"}
    # a list naming the very entity the lines write adds nothing
    own = {"run": ("m.P.run", 5.0)}
    assert fit_member_lists(classes[:1], members, need, PIECE, qualifiers=own).keys() == {"m.P"}


def test_the_members_listed_before_keep_their_room_in_every_list() -> None:
    """A first list's new members do not take the room a later list needs for the
    members listed before (an attacker's case: all six of B's had gone while A listed
    fourteen new ones, though the nine listed before fit alone)."""

    def member(owner: str, name: str, line: int) -> Entity:
        return Entity(f"{owner}.{name}", EntityKind.METHOD, name, f"{owner}.py", line)

    a, b = (Entity(n, EntityKind.CLASS, n, f"{n}.py", 1) for n in ("A", "B"))
    a_again = [member("A", f"kept_{i}", i + 2) for i in range(3)]
    a_new = [member("A", f"new_method_number_{i}", i + 10) for i in range(30)]
    b_again = [member("B", f"b_{i}", i + 2) for i in range(6)]
    again = {m.id: at for at, m in enumerate(a_again + b_again)}
    offered = {"A": MemberList(a_again + a_new, 0), "B": MemberList(b_again, 0)}
    fitted = fit_member_lists([a, b], offered, 120.0, PIECE, (), None, again)
    shown = {m.id for of in fitted.values() for m in of.members}
    assert set(again) <= shown
    assert shown - set(again)  # the rest of the room still lists new members
    total = sum(PIECE(member_list_line(o.name, *fitted[o.id])) + PIECE("\n") for o in (a, b))
    assert total <= 120.0


def test_the_lists_listed_before_enter_anyway_with_what_they_listed() -> None:
    """Past the room, the lists listed before still enter with the members they listed,
    as the lines a widening keeps do (a played widening had dropped the list an answer
    cited from, while two after it were shown); a list of none of them then has none."""
    classes, members = _classes(["A", "B", "C", "D"], "method_with_a_long_name")
    again = {c.id + ".method_with_a_long_name": at for at, c in enumerate(classes[:3])}
    one = PIECE(member_list_line("A", members["m.A"].members, 0)) + PIECE("\n")
    for room in (0.5 * one, 1.3 * one, 2.6 * one):
        fitted = fit_member_lists(classes, members, room, PIECE, (), None, again)
        assert list(fitted) == ["m.A", "m.B", "m.C"]
        assert all(
            [m.id for m in of.members] == [f"{o}.method_with_a_long_name"]
            for o, of in fitted.items()
        )


def test_a_member_list_parses_back_to_its_members_and_places() -> None:
    text = "# m.py\nclass Hub  # L1-700\nHub members: step3() L35, field0 L2; not shown: 4 more\n"
    parsed = {e.name: e for e in parse_context_entities(text)}
    assert parsed.keys() == {"Hub", "step3", "field0"}
    assert parsed["step3"].kind == "method" and parsed["field0"].kind == "attribute"
    (place,) = parsed["step3"].places
    assert (place.path, place.start, place.end, place.owner) == ("m.py", 35, 35, "Hub")


def test_a_widening_lists_the_members_again_and_gives_a_named_one_its_line() -> None:
    injector = ContextInjector(_hub(), max_context_tokens=300)
    default = injector.inject(TASK)
    listed = _listed(default)
    wider = injector.inject(TASK, expansion=ContextExpansion.for_attempt(0), default=default)
    assert set(listed) <= {e.name for e in wider.entities}
    # a listed member is not kept as a line of its own: a widening of the same budget
    # lists it again (a wider one may give the next ranked their lines)
    same = ContextExpansion(limit_multiplier=1)
    again = injector.inject(TASK, expansion=same, default=default)
    assert set(listed) <= {e.name for e in again.entities}
    assert not any(f"Hub.{name}(" in again.text for name in listed[:3])
    named = next(e.name for e in default.entities if e.reason == "member" and e.kind == "method")
    asked = injector.inject(
        TASK, expansion=ContextExpansion.for_attempt(0, (named,)), default=default
    )
    assert f"Hub.{named}(source: str, *, strict: bool = True) -> Report" in asked.text
    assert next(e for e in asked.entities if e.name == named).reason == "named"


def _hubs(classes: int, members: int) -> MemoryGraphStore:
    """``Hub0`` ... each in its own file, with ``members`` documented methods."""
    doc = "Run one step of the plan and record what it returned, in order, with its timing."
    entities, facts = [], []
    for c in range(classes):
        hub = Entity(
            f"m.Hub{c}", EntityKind.CLASS, f"Hub{c}", f"m{c}.py", 1, end_line=900,
            docstring="The hub of runs. " + doc * 3,
        )  # fmt: skip
        entities.append(hub)
        for i in range(members):
            step = Entity(
                f"{hub.id}.step{i}", EntityKind.METHOD, f"step{i}", hub.path, 10 * i + 5,
                SIGNATURE, end_line=10 * i + 9, docstring=doc,
            )  # fmt: skip
            entities.append(step)
            facts.append(Fact(hub.id, RelationKind.DEFINES, step.id))
    return MemoryGraphStore(entities, facts)


@pytest.mark.parametrize("budget", [300, 350, 400, 450, 500])
def test_a_widening_holds_every_entity_the_context_it_widens_held(budget: int) -> None:
    """Filled again with what the lists left, a widening had given lines whole and left
    a member, listed before, to a list with no room for it: the answer had cited it from
    there (a played retry was told it named code not in the context)."""
    injector = ContextInjector(_hubs(3, 8), max_context_tokens=budget)
    task = "How does `Hub0` run each step with `Hub1` and `Hub2`?"
    default = injector.inject(task)
    for attempt in (0, 1):
        wider = injector.inject(
            task, expansion=ContextExpansion.for_attempt(attempt), default=default
        )
        assert {e.id for e in default.entities} <= {e.id for e in wider.entities}


def test_a_widening_lists_first_again_the_members_it_is_told_were_listed() -> None:
    """``listed``: the members a later context listed lead the list again, in that
    order (those not given a line of their own), ahead of those the default listed
    and of the ranked."""
    injector = ContextInjector(_hub(), max_context_tokens=300)
    default = injector.inject(TASK)
    told = ["m.Hub.step59", "m.Hub.step6", "m.Hub.step57"]
    assert not set(told) & {e.id for e in default.entities}
    expansion = ContextExpansion.for_attempt(1)
    wider = injector.inject(TASK, expansion=expansion, default=default, listed=told)
    lines = {e.id for e in wider.entities if e.reason != "member"}  # those with a line
    expected = [i for i in told if i not in lines]
    assert len(expected) >= 2
    assert [e.id for e in wider.entities if e.reason == "member"][: len(expected)] == expected
    plain = injector.inject(TASK, expansion=expansion, default=default)
    assert [e.id for e in plain.entities if e.reason == "member"][: len(expected)] != expected


def test_an_answer_may_cite_a_listed_member() -> None:
    context = ContextInjector(_hub(), max_context_tokens=300).inject(TASK)
    member = next(e for e in context.entities if e.reason == "member" and e.kind == "method")
    answer = (
        f"`Hub` runs each step through its methods, such as `{member.name}()`.\n\n"
        f"## Entities used\n- Hub (m.py:1)\n- {member.name} (m.py:{member.line})\n"
    )
    assert GraphContextValidator().validate(answer, context).passed
    wrong = answer.replace(f"(m.py:{member.line})", "(m.py:9999)")
    assert not GraphContextValidator().validate(wrong, context).passed


def _module_store() -> MemoryGraphStore:
    """``m.py`` defines ``run``, which calls ``helper``, and ten other functions and a
    class the task does not reach."""
    entities = [
        Entity("m", EntityKind.MODULE, "m", "m.py", 1),
        Entity("m.run", EntityKind.FUNCTION, "run", "m.py", 3, "(x)"),
        Entity("m.helper", EntityKind.FUNCTION, "helper", "m.py", 9, "(x)"),
        *(
            Entity(f"m.other{i}", EntityKind.FUNCTION, f"other{i}", "m.py", 20 + i)
            for i in range(10)
        ),
        Entity("m.Registry", EntityKind.CLASS, "Registry", "m.py", 40),
        Entity("m.LIMIT", EntityKind.ATTRIBUTE, "LIMIT", "m.py", 2, " = 3"),
    ]
    facts = [Fact("m", RelationKind.DEFINES, e.id) for e in entities[1:]]
    facts.append(Fact("m.run", RelationKind.CALLS, "m.helper"))
    return MemoryGraphStore(entities, facts)


def test_a_file_lists_its_other_functions_and_classes_under_its_heading() -> None:
    context = ContextInjector(_module_store(), hops=1, max_context_tokens=120).inject(
        "How does `run` work?"
    )
    lines = context.text.splitlines()
    assert lines[0] == "# m.py"
    assert lines[1].startswith("module members: ")  # right under the heading
    listed = {e.name: e for e in context.entities if e.reason == "member"}
    assert "Registry L40" in lines[1] and "Registry" in listed  # a class: no brackets
    assert "LIMIT" not in listed  # a module attribute is not listed
    for name, entity in listed.items():
        assert not any(line.startswith(f"def {name}(") for line in lines)  # each once
        assert f"{name}() L{entity.line}" in lines[1] or f"{name} L{entity.line}" in lines[1]
    parsed = {e.name: e for e in parse_context_entities(context.text)}
    assert parsed["Registry"].kind == "class" and parsed["other0"].kind == "function"
    assert parsed["other0"].places[0].owner == ""  # a module's, no class
    assert context.tokens <= context.budget


def test_max_entities_bounds_the_listed_members_too() -> None:
    for most in (1, 5, 12):
        context = ContextInjector(_hub(), max_entities=most).inject(TASK)
        assert len([e for e in context.entities if e.reason != "owner"]) <= most
    # the budget ends the lines first: the lists take the rest of the 40
    context = ContextInjector(_hub(), max_entities=40, max_context_tokens=300).inject(TASK)
    assert _listed(context) and len([e for e in context.entities if e.reason != "owner"]) <= 40


def _registry(
    member: Entity, functions: int, *, methods: int = 0, signature: str = ""
) -> tuple[list[Entity], list[Fact]]:
    """m.py: `run` (L3), `Reg` (L40-80) with ``member`` and ``methods`` more methods
    (`meth<i>` at L45+i), and ``functions`` functions `f<i>` at L100+i; each defined by
    its module or class."""
    entities = [
        Entity("m", EntityKind.MODULE, "m", "m.py", 1),
        Entity("m.run", EntityKind.FUNCTION, "run", "m.py", 3, "(x)"),
        Entity("m.Reg", EntityKind.CLASS, "Reg", "m.py", 40, end_line=80),
        *(
            Entity(f"m.Reg.meth{i}", EntityKind.METHOD, f"meth{i}", "m.py", 45 + i)
            for i in range(methods)
        ),
        member,
        *(
            Entity(f"m.f{i}", EntityKind.FUNCTION, f"f{i}", "m.py", 100 + i, signature)
            for i in range(functions)
        ),
    ]
    facts = [Fact("m", RelationKind.DEFINES, e.id) for e in entities if e.id.count(".") == 1]
    facts += [Fact("m.Reg", RelationKind.DEFINES, e.id) for e in entities if "Reg." in e.id]
    return entities, facts


def test_a_file_does_not_list_a_class_its_members_lines_name() -> None:
    """`Reg.go()` names `Reg`: the file's list does not name it a second time."""
    go = Entity("m.Reg.go", EntityKind.METHOD, "go", "m.py", 45, "(self)")
    entities, facts = _registry(go, 5)
    facts.append(Fact("m.run", RelationKind.CALLS, "m.Reg.go"))
    context = ContextInjector(
        MemoryGraphStore(entities, facts), hops=1, max_context_tokens=120
    ).inject("How does `run` work?")
    assert "Reg.go()  # L45" in context.text and "f0() L100" in context.text
    assert "Reg L40" not in context.text
    assert [e.reason for e in context.entities if e.name == "Reg"] == ["owner"]


def test_the_list_of_a_class_named_module_is_the_class_s() -> None:
    """`module members:` under `class module` lists that class's methods: a bare
    citation of another class's namesake at its own line holds."""
    text = (
        "# m.py\nmodule members: run() L90\nclass module  # L5-9\n"
        "module members: call() L6\nclass Other  # L10-19\nOther members: call() L11\n"
    )
    parsed = {e.name: e for e in parse_context_entities(text)}
    assert parsed["run"].kind == "function" and parsed["run"].places[0].owner == ""
    assert parsed["call"].kind == "method"
    assert {place.owner for place in parsed["call"].places} == {"module", "Other"}
    answer = "`Other` has `call`.\n\n## Entities used\n- Other (m.py:10)\n- call (m.py:11)\n"
    result = GraphContextValidator().validate(answer, text)
    assert not result.invalid_locations and not result.invalid_citations


def test_a_huge_line_number_on_a_hand_edited_line_is_no_place() -> None:
    digits = "1" * 5000  # int() refuses more than 4300 digits
    text = f"# m.py\nclass Hub  # L{digits}\nHub members: step() L{digits}, size L4\n"
    parsed = {e.name: e for e in parse_context_entities(text)}
    assert parsed["Hub"].places == () and parsed["step"].places == ()
    assert parsed["size"].places[0].start == 4


def test_a_widening_gives_a_function_its_file_listed_its_line_when_named() -> None:
    """`other0` is one plain word: named by the answer, it is the one the file's list
    showed."""
    store = _module_store()
    injector = ContextInjector(store, hops=0, max_context_tokens=40)
    default = injector.inject("How does `run` work?")
    listed = {e.name for e in default.entities if e.reason == "member"}
    assert "other0" in listed
    for given in (default, None):
        wider = injector.inject(
            "How does `run` work?",
            expansion=ContextExpansion.for_attempt(0, ("other0",)),
            default=given,
        )
        assert next(e for e in wider.entities if e.name == "other0").reason == "named"
        assert "def other0()  # L20" in wider.text


@pytest.mark.parametrize("path", [None, "other.py"])
def test_a_module_whose_file_has_no_heading_lists_nothing(path: str | None) -> None:
    """A list goes under its file's heading: of a module whose path is no line's file,
    none, rather than members the context holds and its text does not show."""
    entities = [
        Entity("m", EntityKind.MODULE, "m", path, 1),
        Entity("m.run", EntityKind.FUNCTION, "run", "m.py", 3, "(x)"),
        *(Entity(f"m.f{i}", EntityKind.FUNCTION, f"f{i}", "m.py", 10 + i) for i in range(8)),
    ]
    facts = [Fact("m", RelationKind.DEFINES, e.id) for e in entities[1:]]
    store = MemoryGraphStore(entities, facts)
    context = ContextInjector(store, hops=1, max_context_tokens=40).inject("`run`")
    parsed = {e.name for e in parse_context_entities(context.text)}
    assert {e.name for e in context.entities} <= parsed


def test_a_class_a_file_listed_stays_listed_when_a_widening_gives_its_member_a_line() -> None:
    """A played answer cited `ManyToOneRel (reverse_related.py:261)` from its file's list;
    the widening gave `ManyToOneRel.__init__` its line and the list dropped the class,
    and its place with it: a widened context shows no less than the one it widens."""
    go_fast = Entity("m.Reg.go_fast", EntityKind.METHOD, "go_fast", "m.py", 45, "(self)")
    entities, facts = _registry(go_fast, 3)
    store = batched(MemoryGraphStore(entities, facts))
    selected, owners = ["m.run", "m.Reg.go_fast"], {"m.Reg.go_fast": "m.Reg"}

    def module_list(before: dict[str, int]) -> list[str]:
        graph = {e.id: e for e in entities}
        settings = MemberListSettings({}, False, {}, before)
        lists = choose_member_lists(store, graph, selected, owners, settings, 100, PIECE, None)
        return [member.id for member in lists["m"].members]

    # `Reg.go_fast()` names `Reg`: a first context does not list it again ...
    assert "m.Reg" not in module_list({})
    # ... but a widening of one that listed it keeps it listed, first.
    assert module_list({"m.Reg": 0})[0] == "m.Reg"


def test_a_class_still_listed_is_one_entity_of_the_widened_context() -> None:
    """`Reg L40` stays in its file's list when `Reg.go_fast` gets its line: the class is
    then one of the context's members, not a member and an owner too (each entity
    once)."""
    go_fast = Entity("m.Reg.go_fast", EntityKind.METHOD, "go_fast", "m.py", 79, "(self, a, b)")
    entities, facts = _registry(go_fast, 3, methods=2, signature="(a, b)")
    facts += [Fact("m.run", RelationKind.CALLS, f"m.f{i}") for i in range(3)]
    injector = ContextInjector(MemoryGraphStore(entities, facts), hops=0, max_context_tokens=40)
    task = "How does `run` work?"
    default = injector.inject(task)
    listed = [e.id for e in default.entities if e.reason == "member"]
    assert "m.Reg" in listed
    expansion = ContextExpansion(names=("go_fast",), lacking=("go_fast",))
    wider = injector.inject(task, expansion=expansion, default=default, listed=listed)
    assert "Reg.go_fast(a, b)  # L79" in wider.text and "Reg L40" in wider.text
    ids = [e.id for e in wider.entities]
    assert len(ids) == len(set(ids))
    assert next(e for e in wider.entities if e.id == "m.Reg").reason == "member"


def test_a_member_list_writes_its_members_in_the_order_of_their_lines() -> None:
    """A NamedTuple's fields are its constructor's parameters: a played answer had mapped
    them by sorting a list written in rank order (``segment L15, ..., ref_str L14``)."""
    fields = [
        Entity(f"m.Alias.{name}", EntityKind.ATTRIBUTE, name, "m.py", line)
        for name, line in (("segment", 15), ("aliased", 16), ("ref_str", 14), ("run", 30))
    ]
    line = member_list_line("Alias", fields, 2)
    assert (
        line == "Alias members: ref_str L14, segment L15, aliased L16, run L30; not shown: 2 more"
    )
    # what the list holds is the context's: only the order of writing changes
    context = ContextInjector(_hub(), max_context_tokens=300).inject(TASK)
    (listed,) = [text for text in context.text.splitlines() if text.startswith("Hub members: ")]
    places = [int(place) for place in re.findall(r" L(\d+)", listed)]
    assert places == sorted(places) and len(places) == len(_listed(context))
