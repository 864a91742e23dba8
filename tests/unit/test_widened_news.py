"""What a widening brought of the code an answer said its context lacks, and the retry
prompt's line that says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloop.grounding import GraphContextValidator, build_retry_prompt
from citeloop.grounding.retry_prompt import NOW_SHOWN_LINE
from citeloop.knowledge import (
    ContextEntity,
    ContextInjector,
    EntityKind,
    InjectedContext,
    Tier,
)
from citeloop.nodes.widened_news import LINE, SOURCE, now_shown
from tests.fakes import ScriptedChatModel
from tests.unit.test_grounded_answer_graph import SOURCE as FILES
from tests.unit.test_grounded_answer_graph import TASK, build, good_answer, indexed


def entity(entity_id: str, kind: EntityKind = EntityKind.METHOD) -> ContextEntity:
    return ContextEntity(entity_id.rpartition(".")[2], kind, Tier.SUPPORTING, id=entity_id)


WIDENED = InjectedContext(
    text="",
    entities=(
        entity("shop.cart.Cart", EntityKind.CLASS),
        entity("shop.cart.Cart.total"),
        entity("shop.cart.Cart.add_item"),
        entity("shop.ledger.Ledger.record"),
        entity("shop.cart.sum_prices", EntityKind.FUNCTION),
    ),
    excerpts=(("shop.cart.Cart.total", (5, 6)), ("shop.ledger.Ledger.record", (4, 5))),
)


def test_what_a_widening_newly_shows_of_the_names_said_lacking() -> None:
    before = [{"id": "shop.cart.Cart"}, {"id": "shop.cart.Cart.total"}, {"id": "shop.cart.x"}]
    names = ["Cart.total", "Ledger.record", "sum_prices", "Cart", "Cart.add_item", "absent"]
    shown = now_shown(names, WIDENED, before, sourced_before=[])
    # Cart.total was there as a line, its source is new; Ledger.record is new with its
    # source; sum_prices and Cart.add_item are new lines; Cart shows nothing more.
    assert shown == {
        "Cart.total": SOURCE,
        "Ledger.record": SOURCE,
        "sum_prices": LINE,
        "Cart.add_item": LINE,
    }
    assert list(shown) == ["Cart.total", "Ledger.record", "sum_prices", "Cart.add_item"]


def test_source_shown_before_is_no_news_and_an_owner_must_match() -> None:
    before = [{"id": e.id} for e in WIDENED.entities]
    sourced = ["shop.cart.Cart.total", "shop.ledger.Ledger.record"]
    assert now_shown(["Cart.total", "record"], WIDENED, before, sourced) == {}
    # `Basket.total` names another class's member; `ledger.Ledger.record` is dotted by
    # its module too, and its last owner is the class.
    names = ["Basket.total", "shop.ledger.Ledger.record"]
    assert now_shown(names, WIDENED, [], []) == {"shop.ledger.Ledger.record": SOURCE}


def test_the_retry_prompt_says_what_the_widened_context_now_shows() -> None:
    answer = "It totals the cart. The context does not show `Cart.total`.\n\n"
    answer += "## Entities used\n- Cart\n"
    result = GraphContextValidator().validate(answer, ["Cart", "Cart.total", "sum_prices"])
    shown = {"Cart.total": SOURCE, "sum_prices": LINE}
    prompt = build_retry_prompt(TASK, result, widened=True, shown=shown)
    line = NOW_SHOWN_LINE.format(shown="the source of Cart.total; the line of sum_prices")
    assert line in prompt.splitlines()
    # Not widened, nothing is said of what it shows.
    assert "now shows the" not in build_retry_prompt(TASK, result, shown=shown)
    assert "now shows the" not in build_retry_prompt(TASK, result, widened=True)


@pytest.fixture
def store(tmp_path: Path):
    ledger = "class Ledger:\n    def record(self, row):\n        self.rows.append(row)\n"
    graph_store = indexed(tmp_path, {**FILES, "shop/ledger.py": ledger})
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
