"""What a widening brought of the code an answer said its context lacks, and the retry
prompt's line that says so."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from citeloop.grounding import GraphContextValidator, build_retry_prompt
from citeloop.grounding.retry_prompt import ALSO_SHOWN_LINE, NOW_SHOWN_LINE
from citeloop.knowledge import (
    ContextEntity,
    ContextInjector,
    EntityKind,
    InjectedContext,
    Tier,
)
from citeloop.nodes.widened_news import (
    LINE,
    MORE,
    PART,
    SOURCE,
    also_shown,
    line_ranges,
    now_shown,
)
from tests.fakes import ScriptedChatModel
from tests.unit.test_grounded_answer_graph import SOURCE as FILES
from tests.unit.test_grounded_answer_graph import TASK, build, good_answer, indexed


def entity(entity_id: str, span: tuple[int, int] | None = None) -> ContextEntity:
    owner, _, name = entity_id.rpartition(".")
    kind = EntityKind.CLASS if name[0].isupper() else EntityKind.FUNCTION
    if kind is EntityKind.FUNCTION and owner.rpartition(".")[2][0].isupper():
        kind = EntityKind.METHOD
    line, end_line = span or (None, None)
    name = entity_id.rpartition(".")[2]
    return ContextEntity(name, kind, Tier.SUPPORTING, entity_id, line=line, end_line=end_line)


WIDENED = InjectedContext(
    text="",
    entities=(
        entity("shop.cart.Cart", (1, 9)),
        entity("shop.cart.Cart.total", (5, 6)),
        entity("shop.cart.Cart.add_item", (2, 3)),
        entity("shop.ledger.Ledger.record", (4, 5)),
        entity("shop.cart.sum_prices", (8, 9)),
        entity("shop.cart.Basket.empty", (12, 20)),
    ),
    excerpts=(
        ("shop.cart.Cart.total", (5, 6)),
        ("shop.ledger.Ledger.record", (4, 5)),
        ("shop.cart.Basket.empty", (12, 13, 18)),
    ),
)


def test_what_a_widening_newly_shows_of_the_names_said_lacking() -> None:
    before = [{"id": "shop.cart.Cart"}, {"id": "shop.cart.Cart.total"}, {"id": "shop.cart.x"}]
    names = ["Cart.total", "Ledger.record", "sum_prices", "Cart", "Cart.add_item", "absent"]
    shown = now_shown(names, WIDENED, before, sourced_before={})
    # Cart.total was there as a line, its source is new; Ledger.record is new with its
    # source; sum_prices and Cart.add_item are new lines; Cart shows nothing more.
    assert now_shown(["Basket.empty"], WIDENED, before, {}) == {
        "Basket.empty": {"what": PART, "lines": "L12-13, L18"}  # three of its lines
    }
    assert shown == {
        "Cart.total": {"what": SOURCE},
        "Ledger.record": {"what": SOURCE},
        "sum_prices": {"what": LINE},
        "Cart.add_item": {"what": LINE},
    }
    assert list(shown) == ["Cart.total", "Ledger.record", "sum_prices", "Cart.add_item"]
    # A plain lower-case word names a local as often as an entity: it is not told; nor
    # is a name shorter than three characters (`X`, a played answer's parameter).
    assert now_shown(["record", "Ledger.record"], WIDENED, before, {}) == {
        "Ledger.record": {"what": SOURCE}
    }
    short = dataclasses.replace(WIDENED, entities=(*WIDENED.entities, entity("shop.cart.X")))
    assert now_shown(["X", "sum_prices"], short, before, {}) == {"sum_prices": {"what": LINE}}
    # One entity named twice by one answer (`f` and `mod.f`) is told of once; a bare
    # name after it tells of another entity of that name, in either order.
    assert now_shown(["sum_prices", "cart.sum_prices"], WIDENED, before, {}) == {
        "cart.sum_prices": {"what": LINE, "as": "sum_prices"}  # as the context writes it
    }
    twins = (entity("shop.Foo.update_x", (3, 4)), entity("shop.Bar.update_x", (8, 9)))
    pair = dataclasses.replace(
        WIDENED,
        entities=(*WIDENED.entities, *twins),
        excerpts=(("shop.Foo.update_x", (3, 4)), ("shop.Bar.update_x", (8, 9))),
    )
    for names in (["Foo.update_x", "update_x"], ["update_x", "Foo.update_x"]):
        assert list(now_shown(names, pair, before, {})) == names


def test_more_lines_of_source_shown_before_are_named_by_range() -> None:
    before = [{"id": e.id} for e in WIDENED.entities]
    sourced = {"shop.cart.Cart.total": [5], "shop.ledger.Ledger.record": [4, 5]}
    # Ledger.record shows what it showed; Cart.total one line more.
    assert now_shown(["Cart.total", "Ledger.record"], WIDENED, before, sourced) == {
        "Cart.total": {"what": MORE, "lines": "L6"}
    }
    # Its first line alone (the `def` line its entity line gives) is no news, beside
    # lines shown before or alone: the demo's retry had been told "L1129" of `validate`.
    first_only = {"shop.cart.Cart.total": [6], "shop.cart.Basket.empty": [13, 18]}
    assert now_shown(["Cart.total", "Basket.empty"], WIDENED, before, first_only) == {}
    alone = dataclasses.replace(WIDENED, excerpts=(("shop.cart.Basket.empty", (12,)),))
    assert now_shown(["Basket.empty"], alone, before, {}) == {}


def test_an_owner_must_match_and_a_longer_dotted_name_is_read_by_its_last_owner() -> None:
    names = ["Basket.total", "shop.ledger.Ledger.record"]
    assert now_shown(names, WIDENED, [], {}) == {
        "shop.ledger.Ledger.record": {"what": SOURCE, "as": "Ledger.record"}  # as written
    }


def test_a_listed_member_has_no_line_and_namesakes_are_told_one_at_a_time() -> None:
    """A member only named in a list, or a class only named by its members' lines, has
    no line to tell of; of two entities of one name, the lines told are one's (an attack
    had read `method_7`'s lines of two classes and files as one range)."""
    listed = ContextEntity("clear", EntityKind.METHOD, Tier.SUPPORTING, "shop.cart.Cart.clear")
    listed = dataclasses.replace(listed, reason="member")
    owner = ContextEntity("Till", EntityKind.CLASS, Tier.SUPPORTING, "shop.till.Till")
    owner = dataclasses.replace(owner, reason="owner")
    twins = (entity("shop.cart.Cart.max_size", (30, 40)), entity("shop.box.Box.max_size", (3, 9)))
    context = dataclasses.replace(
        WIDENED,
        entities=(*WIDENED.entities, listed, owner, *twins),
        excerpts=(
            *WIDENED.excerpts,
            ("shop.cart.Cart.max_size", (31, 32)),
            ("shop.box.Box.max_size", (3, 4)),
        ),
    )
    before = [{"id": e.id} for e in WIDENED.entities]
    sourced = {"shop.cart.Cart.max_size": [30], "shop.box.Box.max_size": [5]}
    shown = now_shown(["Cart.clear", "Till", "max_size", "Box.max_size"], context, before, sourced)
    assert shown == {
        # the first's, not L3-4 beside it, named with its class (the context holds two)
        "max_size": {"what": MORE, "lines": "L31-32", "as": "Cart.max_size"},
        "Box.max_size": {"what": MORE, "lines": "L3-4"},
    }


def test_a_bare_name_of_a_class_member_is_told_with_its_class() -> None:
    """A played model was told "the widened context now shows the line of on_delete"
    with several `on_delete` lines in the context; a member of a class is named with
    it, a module's function as written."""
    shown = now_shown(["add_item", "sum_prices"], WIDENED, [], {})
    assert shown == {
        "add_item": {"what": LINE, "as": "Cart.add_item"},
        "sum_prices": {"what": LINE},
    }
    # A method is written with its class, whose line the context need not hold.
    ledger = dataclasses.replace(
        WIDENED, entities=(*WIDENED.entities, entity("shop.ledger.Ledger.write_row", (7, 8)))
    )
    assert now_shown(["write_row"], ledger, [], {}) == {
        "write_row": {"what": LINE, "as": "Ledger.write_row"}
    }
    answer = "It totals the `Cart`. The context does not show `add_item`.\n\n"
    result = GraphContextValidator().validate(answer + "## Entities used\n- Cart\n", ["Cart"])
    prompt = build_retry_prompt(TASK, result, widened=True, shown=shown)
    told = "the line of Cart.add_item, sum_prices"
    assert NOW_SHOWN_LINE.format(shown=told) in prompt.splitlines()


def test_a_name_the_answer_saw_means_what_it_saw_not_a_new_namesake() -> None:
    """A played answer asked for more of the `FFFF` its context showed; the widening
    brought another file's `FFFF`, and the retry said it now shows "the line of FFFF"."""
    seen = entity("shop.cart.Cart.max_size", (30, 40))
    other = entity("shop.box.Box.max_size", (3, 9))
    context = dataclasses.replace(WIDENED, entities=(*WIDENED.entities, seen, other))
    before = [{"id": seen.id}]
    assert now_shown(["max_size"], context, before, {}) == {}  # nothing more of it
    sourced = dataclasses.replace(context, excerpts=((seen.id, (31, 32)),))
    assert now_shown(["max_size"], sourced, before, {}) == {
        "max_size": {"what": PART, "lines": "L31-32", "as": "Cart.max_size"}
    }
    # Not seen before, any of its namesakes is told of.
    assert now_shown(["max_size"], context, [], {})["max_size"]["what"] == LINE


def test_a_member_only_listed_before_is_told_when_it_gets_its_line() -> None:
    """A played answer asked how `error_handler_spec` is built; the context had listed it
    (`Scaffold members: ..., error_handler_spec L123`) and the widening gave it its line,
    but the retry did not say so."""
    spec = entity("shop.cart.Cart.spec_map", (12, 12))
    context = dataclasses.replace(WIDENED, entities=(*WIDENED.entities, spec))
    listed = [{"id": spec.id, "reason": "member"}]
    assert now_shown(["spec_map"], context, listed, {}) == {
        "spec_map": {"what": LINE, "as": "Cart.spec_map"}
    }
    # One whose line the context before wrote too has nothing new.
    assert now_shown(["spec_map"], context, [{"id": spec.id, "reason": "graph"}], {}) == {}
    # One still only listed is not told.
    still = dataclasses.replace(spec, reason="member")
    listed_again = dataclasses.replace(WIDENED, entities=(*WIDENED.entities, still))
    assert now_shown(["spec_map"], listed_again, listed, {}) == {}


def test_a_name_the_answer_saw_a_line_of_is_not_told_of_a_listed_namesake() -> None:
    """A played retry was told "the line of ASTDeclaratorParen.inner": the answer had
    seen the C++ domain's line; the C domain's namesake, only listed before, had got
    one. The answer's name means the one it saw a line of."""
    seen = entity("cpp.ASTDeclaratorParen.inner", (3177, 3177))
    listed = entity("c.ASTDeclaratorParen.inner", (1398, 1398))
    context = dataclasses.replace(WIDENED, entities=(*WIDENED.entities, seen, listed))
    before = [{"id": seen.id, "reason": "graph"}, {"id": listed.id, "reason": "member"}]
    assert now_shown(["ASTDeclaratorParen.inner"], context, before, {}) == {}
    # Only listed before, both: the one that got its line is told of.
    both_listed = [{"id": seen.id, "reason": "member"}, {"id": listed.id, "reason": "member"}]
    told = now_shown(["ASTDeclaratorParen.inner"], context, both_listed, {})
    assert told["ASTDeclaratorParen.inner"]["what"] == LINE


def test_namesakes_written_alike_are_each_told_with_their_file() -> None:
    """A played retry asked for the flush command's `Command.handle` and was told "lines
    of Command.handle (L100)": migrate's. Namesakes the context writes alike are each
    told, with their file; a name written once keeps its plain form."""
    commands = [
        dataclasses.replace(entity(f"cmds.{name}.Command.handle", (5, 40)), path=f"cmds/{name}.py")
        for name in ("migrate", "flush", "dump")
    ]
    widened = InjectedContext(
        text="",
        entities=(*commands, entity("shop.cart.sum_prices", (8, 9))),
        excerpts=(("cmds.migrate.Command.handle", (9,)), ("cmds.flush.Command.handle", (6, 7))),
    )
    shown = now_shown(["Command.handle", "sum_prices"], widened, [], {})
    assert shown == {
        "Command.handle": {"what": PART, "lines": "L9", "as": "Command.handle of migrate.py"},
        "Command.handle (2)": {
            "what": PART,
            "lines": "L6-7",
            "as": "Command.handle of flush.py",
        },
        "Command.handle (3)": {"what": LINE, "as": "Command.handle of dump.py"},
        "sum_prices": {"what": LINE},
    }
    answer = "The context does not show `Command.handle`.\n\n## Entities used\n- sum_prices\n"
    result = GraphContextValidator().validate(answer, ["sum_prices"])
    prompt = build_retry_prompt(TASK, result, widened=True, shown=shown)
    told = "lines of Command.handle of migrate.py (L9), Command.handle of flush.py"
    assert told + " (L6-7)" in prompt


def test_a_namesake_is_told_by_as_much_of_its_path_as_tells_it_apart() -> None:
    """A played retry read "update_lim of lib/mpl_toolkits/axisartist/grid_helper_cur…":
    the path cut where the two files differ."""
    from citeloop.nodes.widened_news import _distinct_tail

    paths = {"lib/ax/floating_axes.py", "lib/ax/grid_helper.py", "a/util.py", "b/util.py"}
    assert _distinct_tail("lib/ax/floating_axes.py", paths) == "floating_axes.py"
    assert _distinct_tail("a/util.py", paths) == "a/util.py"
    assert _distinct_tail("lib/util.py", {"lib/util.py", "util.py"}) == "lib/util.py"


def test_the_other_code_a_widening_shows_source_of_is_named_in_context_order() -> None:
    """Source the context before did not show, of what the answer did not ask for (or
    was told of already): played models had compared prompts to find it."""
    assert also_shown(WIDENED, {}, told={"Cart.total": {"what": SOURCE}}) == [
        "Ledger.record",
        "Basket.empty",
    ]
    assert also_shown(WIDENED, {}, told={}) == ["Cart.total", "Ledger.record", "Basket.empty"]
    # Lines shown before are no news, nor a definition's first line alone.
    before = {"shop.ledger.Ledger.record": [4, 5], "shop.cart.Cart.total": [5]}
    first_only = dataclasses.replace(
        WIDENED, excerpts=(*WIDENED.excerpts[:2], ("shop.cart.Basket.empty", (12,)))
    )
    assert also_shown(first_only, {"shop.ledger.Ledger.record": [4]}, told={}) == ["Cart.total"]
    # Nor are more lines of source the context before showed some of (the demo's model
    # had read one more line of a method as its source newly shown).
    assert also_shown(first_only, before, told={}) == []
    # Namesakes written alike are told apart by their files.
    twins = (
        dataclasses.replace(entity("a.util.merge", (3, 4)), path="a/util.py"),
        dataclasses.replace(entity("b.util.merge", (8, 9)), path="b/util.py"),
    )
    pair = InjectedContext(
        text="", entities=twins, excerpts=(("a.util.merge", (3, 4)), ("b.util.merge", (8, 9)))
    )
    assert also_shown(pair, {}, told={"merge": {"what": SOURCE, "as": "merge of a/util.py"}}) == [
        "merge of b/util.py"
    ]


def test_line_ranges() -> None:
    assert line_ranges([9, 3, 4, 5, 12, 13]) == "L3-5, L9, L12-13"
    assert line_ranges([1, 3, 5, 7, 9], most=2) == "L1, L3 and 3 more"


def test_the_retry_prompt_says_what_the_widened_context_now_shows() -> None:
    answer = "It totals the cart. The context does not show `Cart.total`.\n\n"
    answer += "## Entities used\n- Cart\n"
    result = GraphContextValidator().validate(answer, ["Cart", "Cart.total", "sum_prices"])
    shown = {
        "Cart.total": {"what": SOURCE},
        "Cart": {"what": MORE, "lines": "L3-5"},
        "sum_prices": {"what": LINE},
        "Cart.add_item": {"what": PART, "lines": "L2"},
    }
    prompt = build_retry_prompt(TASK, result, widened=True, shown=shown)
    told = "the source of Cart.total; lines of Cart.add_item (L2); more lines of Cart (L3-5); "
    told += "the line of sum_prices"
    assert NOW_SHOWN_LINE.format(shown=told) in prompt.splitlines()
    # Not widened, nothing is said of what it shows.
    assert "now shows the" not in build_retry_prompt(TASK, result, shown=shown)
    assert "now shows the" not in build_retry_prompt(TASK, result, widened=True)
    # The other code whose source it shows comes on the next line, eight names at most.
    also = [f"helper_{n}" for n in range(10)]
    lines = build_retry_prompt(TASK, result, widened=True, shown=shown, also=also).splitlines()
    names = ", ".join(also[:8]) + " and 2 more"
    at = lines.index(NOW_SHOWN_LINE.format(shown=told))
    assert lines[at + 1] == ALSO_SHOWN_LINE.format(names=names)
    assert "also shows" not in build_retry_prompt(TASK, result, shown=shown, also=also)


@pytest.fixture
def store(tmp_path: Path):
    ledger = "class Ledger:\n    def record(self, row):\n        self.rows.append(row)\n"
    journal = "class Journal:\n    def write(self, line):\n        self.lines.append(line)\n"
    steps = "".join(f"    total_{n} = rows[{n}] * {n}\n" for n in range(60))
    report = f"def build_report(rows):\n{steps}    return total_0\n"
    files = {**FILES, "shop/ledger.py": ledger, "shop/journal.py": journal}
    files["shop/report.py"] = report
    graph_store = indexed(tmp_path, files)
    yield graph_store
    graph_store.close()


async def test_a_retry_names_the_code_said_lacking_that_the_widening_brought(store) -> None:
    core = [e.name for e in ContextInjector(store).inject(TASK).core]
    assert "record" not in ContextInjector(store).inject(TASK).text
    hedge = good_answer(core).replace(
        "The answer relies on", "The context does not show `Ledger.record`. It relies on"
    )
    model = ScriptedChatModel(script=[hedge, good_answer(core)])
    out = await build(model, store).ainvoke({"task": TASK})
    assert (out["outcome"], out["attempts"]) == ("passed", 2)
    retry = model.prompts[1][-1].text
    assert NOW_SHOWN_LINE.format(shown="the source of Ledger.record") in retry.splitlines()


async def test_an_answer_that_lists_what_it_lacks_is_told_of_its_list_only(store) -> None:
    """Its prose names code beside a saying too (code it used, or mentions): the line
    says what the widening brought of its list."""
    core = [e.name for e in ContextInjector(store).inject(TASK).core]
    hedge = good_answer(core).replace(
        "The answer relies on",
        "The context does not show `Journal.write`, which may log it. It relies on",
    )
    body, section = hedge.split("\n\n## Entities used")
    listing = body + "\n\n## Still missing\n- `Ledger.record`\n\n## Entities used" + section
    model = ScriptedChatModel(script=[listing, good_answer(core)])
    out = await build(model, store).ainvoke({"task": TASK})
    assert (out["outcome"], out["attempts"]) == ("passed", 2)
    retry = model.prompts[1][-1].text
    assert "Journal.write" in retry.split("<context>")[1]  # brought in, named by the answer
    assert NOW_SHOWN_LINE.format(shown="the source of Ledger.record") in retry.splitlines()
    # and the source it brought beside the list is named on a line of its own
    also = next(line for line in retry.splitlines() if line.startswith("- It also shows"))
    assert "Journal.write" in also and "Ledger.record" not in also


async def test_lines_asked_by_number_are_told_by_their_entity(store) -> None:
    """The second answer asks for lines of `build_report` by number alone: the third
    prompt says the widened context shows more lines of it."""
    core = [e.name for e in ContextInjector(store).inject(TASK).core]
    body, section = good_answer(core).split("\n\n## Entities used")
    first = body + "\n\n## Still missing\n- `build_report`\n\n## Entities used" + section
    second = body + "\n\n## Still missing\n- shop/report.py:40-50\n\n## Entities used" + section
    model = ScriptedChatModel(script=[first, second, good_answer(core)])
    out = await build(model, store).ainvoke({"task": TASK})
    assert out["attempts"] == 3
    lines = model.prompts[2][-1].text.splitlines()
    told = [line for line in lines if line.startswith("- Of what you said")]
    assert len(told) == 1 and "more lines of build_report (L4" in told[0], told
