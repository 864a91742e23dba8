"""The grounded_answer graph's paths, with scripted fake chat models."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph
from langgraph.types import RetryPolicy

from citeloop.checks.check import Check, CheckOutcome, Problem
from citeloop.context import GroundedAnswerContext
from citeloop.errors import ConfigurationError, ValidationError
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import ContextInjector, SqliteGraphStore, index_tree
from citeloop.models import (
    ReplayChatModel,
    ReplayRecorder,
    is_transient_model_error,
    load_replay_turns,
)
from tests.fakes import ScriptedChatModel

SOURCE = {
    "shop/__init__.py": "",
    "shop/cart.py": (
        "class Cart:\n"
        "    def add_item(self, item):\n"
        "        self.items.append(item)\n\n"
        "    def total(self):\n"
        "        return sum_prices(self.items)\n\n\n"
        "def sum_prices(items):\n"
        "    return sum(i.price for i in items)\n"
    ),
    "shop/checkout.py": (
        "from shop.cart import Cart\n\n\n"
        "class Checkout:\n"
        "    def pay(self, cart: Cart):\n"
        "        return cart.total()\n"
    ),
    "tests/test_cart.py": (
        "from shop.cart import Cart\n\n\ndef test_total():\n    assert Cart().total() == 0\n"
    ),
}
TASK = "How does `Checkout` use `Cart` to compute the amount to pay?"
NO_RETRY_DELAY = RetryPolicy(
    initial_interval=0.0, jitter=False, max_attempts=3, retry_on=is_transient_model_error
)


def indexed(tmp_path: Path, files: dict[str, str]) -> SqliteGraphStore:
    """A graph store of ``files`` (path -> text) written below ``tmp_path / "src"``."""
    root = tmp_path / "src"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    graph_store = SqliteGraphStore(tmp_path / "graph.db")
    index_tree(root, graph_store)
    return graph_store


@pytest.fixture
def store(tmp_path: Path):
    graph_store = indexed(tmp_path, SOURCE)
    yield graph_store
    graph_store.close()


@pytest.fixture
def core(store) -> list[str]:
    names = [e.name for e in ContextInjector(store).inject(TASK).core]
    assert names, "the task must seed at least one core entity"
    return names


def good_answer(names: list[str]) -> str:
    body = "The answer relies on " + ", ".join(f"`{n}`" for n in names) + "."
    return body + "\n\n## Entities used\n" + "".join(f"- {n}\n" for n in names)


BAD_ANSWER = "Checkout asks the cart for its total."


def build(model, store):
    return build_grounded_answer_graph(model, store=store, model_retry=NO_RETRY_DELAY)


def human_prompts(model: ScriptedChatModel) -> list[str]:
    return [call[-1].text for call in model.prompts]


async def test_passes_first_time(store, core):
    model = ScriptedChatModel(script=[good_answer(core)])
    out = await build(model, store).ainvoke({"task": TASK})
    assert out["outcome"] == "passed"
    assert out["attempts"] == 1
    assert out["expanded"] is False
    assert out["report"]["passed"] is True
    assert model.calls == 1
    assert TASK in human_prompts(model)[0]


def test_passes_first_time_sync(store, core):
    model = ScriptedChatModel(script=[good_answer(core)])
    out = build(model, store).invoke({"task": TASK})
    assert (out["outcome"], out["attempts"], model.calls) == ("passed", 1, 1)


async def test_passes_after_expansion(store, core):
    model = ScriptedChatModel(script=[BAD_ANSWER, good_answer(core)])
    out = await build(model, store).ainvoke({"task": TASK})
    assert out["outcome"] == "passed"
    assert out["attempts"] == 2
    assert out["expanded"] is True
    assert model.calls == 2
    retry_prompt = human_prompts(model)[1]
    # Feedback is built on the original task: it appears once, and names what is missing.
    assert retry_prompt.count(TASK) == 1
    assert "Entities used" in retry_prompt
    for name in core:
        assert name in retry_prompt


async def test_widened_context_keeps_the_core(store, core):
    model = ScriptedChatModel(script=[BAD_ANSWER, good_answer(core)])
    graph = build(model, store)
    seen: list[list[dict]] = []
    async for update in graph.astream({"task": TASK}, stream_mode="updates"):
        for node, values in update.items():
            if node in ("inject_context", "expand_context"):
                seen.append(values["context_entities"])
    first, widened = seen
    core_of = lambda entities: {e["name"] for e in entities if e["tier"] == "core"}  # noqa: E731
    assert core_of(first) == core_of(widened) == set(core)
    assert {e["name"] for e in first} <= {e["name"] for e in widened}
    assert len(widened) > len(first)


async def test_a_widening_is_given_the_ids_source_and_relation_lines_the_last_context_showed(
    store,
):
    kept: list[object] = []
    written: list[object] = []
    listed: list[object] = []
    whole: list[object] = []

    class Recording(ContextInjector):
        def inject(self, payload, task_type=None, expansion=None, **kwargs):
            kept.append(kwargs.get("keep"))
            written.append(kwargs.get("relations"))
            listed.append(kwargs.get("listed"))
            whole.append(kwargs.get("whole"))
            return super().inject(payload, task_type, expansion, **kwargs)

    model = ScriptedChatModel(script=[BAD_ANSWER] * 3)
    graph = build_grounded_answer_graph(
        model, injector=Recording(store), model_retry=NO_RETRY_DELAY
    )
    states: list[dict] = []
    async for update in graph.astream({"task": TASK}, stream_mode="updates"):
        for node, values in update.items():
            if node in ("inject_context", "expand_context"):
                states.append(values)
    assert len(states) == 3 and any(state["context_excerpts"] for state in states)
    assert states[0]["context_relations"]
    steps = zip(states[:2], kept[1:], written[1:], listed[1:], whole[1:], strict=True)
    for before, keep, relations, members, whole_lines in steps:
        shown = {e["id"] for e in before["context_entities"] if e["reason"] != "owner"}
        assert keep == {i: before["context_excerpts"].get(i, []) for i in shown}
        assert relations == before["context_relations"]
        assert members == [e["id"] for e in before["context_entities"] if e["reason"] == "member"]
        assert whole_lines == [i for i in keep if i not in before["context_brief"]]
    for before, after in itertools.pairwise(states):
        for entity_id, lines in before["context_excerpts"].items():
            assert set(lines) <= set(after["context_excerpts"].get(entity_id, [])), entity_id
        assert set(before["context_relations"]) <= set(after["context_relations"])


async def test_budget_exhausted(store):
    model = ScriptedChatModel(script=[BAD_ANSWER] * 3)
    out = await build(model, store).ainvoke(
        {"task": TASK}, context=GroundedAnswerContext(max_retries=2)
    )
    assert out["outcome"] == "exhausted"
    assert out["attempts"] == 3
    assert model.calls == 3
    assert out["answer"] == BAD_ANSWER


async def test_budget_is_enforced_by_the_edge_not_the_recursion_limit(store):
    model = ScriptedChatModel(script=[BAD_ANSWER] * 4)
    out = await build(model, store).ainvoke(
        {"task": TASK},
        {"recursion_limit": 4 * (3 + 1)},  # exactly the steps 3 retries need
        context=GroundedAnswerContext(max_retries=3),
    )
    assert (out["outcome"], model.calls) == ("exhausted", 4)


async def test_too_small_recursion_limit_is_a_configuration_error(store):
    model = ScriptedChatModel(script=[])
    with pytest.raises(ConfigurationError, match="recursion_limit of at least 12"):
        await build(model, store).ainvoke({"task": TASK}, {"recursion_limit": 11})
    assert model.calls == 0


async def test_zero_retries_means_one_call(store):
    model = ScriptedChatModel(script=[BAD_ANSWER])
    out = await build(model, store).ainvoke(
        {"task": TASK}, context=GroundedAnswerContext(max_retries=0)
    )
    assert (out["outcome"], out["attempts"], out["expanded"], model.calls) == (
        "exhausted",
        1,
        False,
        1,
    )


async def test_transient_error_is_retried_and_never_shown_to_the_model(store, core):
    model = ScriptedChatModel(script=[TimeoutError("read timed out"), good_answer(core)])
    out = await build(model, store).ainvoke({"task": TASK})
    assert out["outcome"] == "passed"
    assert out["attempts"] == 1
    assert model.calls == 2
    first, second = human_prompts(model)
    assert first == second
    assert "timed out" not in second


async def test_transient_error_on_every_attempt_ends_with_error(store):
    model = ScriptedChatModel(script=[TimeoutError("read timed out")] * 3)
    out = await build(model, store).ainvoke({"task": TASK})
    assert out["outcome"] == "error"
    assert "TimeoutError" in out["error"]
    assert model.calls == NO_RETRY_DELAY.max_attempts


async def test_permanent_error_ends_the_run(store):
    model = ScriptedChatModel(script=[PermissionError("invalid API key")])
    out = await build(model, store).ainvoke({"task": TASK})
    assert out["outcome"] == "error"
    assert "invalid API key" in out["error"]
    assert out.get("attempts", 0) == 0
    assert out["report"] == {}
    assert model.calls == 1


@pytest.mark.parametrize("graph", ["grounded_answer", "output_guard"])
def test_a_model_that_answers_with_tool_calls_only_ends_the_run_with_error(store, graph):
    """The graphs run no tools: asking again would spend every retry on the same calls."""
    from langchain_core.messages import AIMessage

    from citeloop.graphs.output_guard import build_output_guard_graph

    call = {"name": "search_docs", "args": {"q": "x"}, "id": "c1", "type": "tool_call"}
    model = ScriptedChatModel(script=[AIMessage(content="", tool_calls=[call])] * 3)
    built = build(model, store) if graph == "grounded_answer" else build_output_guard_graph(model)
    out = built.invoke({"task": TASK})
    assert out["outcome"] == "error" and model.calls == 1
    assert "1 tool call(s) (search_docs) and no text" in out["error"]
    assert "without tools bound" in out["error"]


def test_a_system_prompt_of_content_blocks_is_the_system_message(store, core):
    """Content blocks (as for a provider's prompt caching) are a system message's content."""
    blocks = [{"type": "text", "text": "Answer tersely.", "cache_control": {"type": "ephemeral"}}]
    model = ScriptedChatModel(script=[good_answer(core)])
    out = build(model, store).invoke({"task": TASK, "system_prompt": blocks})
    assert out["outcome"] == "passed"
    assert model.prompts[0][0].content == blocks


async def test_task_from_messages_and_answer_appended(store, core):
    model = ScriptedChatModel(script=[good_answer(core)])
    out = await build(model, store).ainvoke({"messages": [HumanMessage(TASK)]})
    assert out["outcome"] == "passed"
    assert [m.type for m in out["messages"]] == ["human", "ai"]
    assert out["messages"][-1].text == good_answer(core)


async def test_missing_task_is_a_configuration_error(store):
    model = ScriptedChatModel(script=[])
    with pytest.raises(ConfigurationError, match="needs a task"):
        await build(model, store).ainvoke({"payload": "x"})
    assert model.calls == 0


@pytest.mark.parametrize(
    ("messages", "match"),
    [
        ([("human", 5)], r"messages\[0\] must be .* got \('human', 5\): its content is int"),
        (
            [("human", "Hi"), ("human", None)],
            r"messages\[1\] .* its content is NoneType, not text; pass the text as a string",
        ),
        ([3], r"messages\[0\] must be a chat message.*got 3"),
        (5, r"messages must be a list of chat messages .*got 5"),
    ],
)
def test_a_message_that_is_not_a_chat_message_is_a_configuration_error(store, messages, match):
    model = ScriptedChatModel(script=[])
    with pytest.raises(ConfigurationError, match=match):
        build(model, store).invoke({"messages": messages})
    assert model.calls == 0


async def test_an_empty_graph_or_a_folder_as_db_path_is_a_configuration_error(tmp_path):
    """A mistyped path opened for writing creates an empty graph: the run says so before
    any model call instead of asking for a task that names code."""
    model = ScriptedChatModel(script=[])
    empty = SqliteGraphStore(tmp_path / "typo.db")
    with pytest.raises(ConfigurationError, match=r"typo\.db' holds no entities: index code"):
        await build_grounded_answer_graph(model, store=empty).ainvoke({"task": TASK})
    with pytest.raises(ConfigurationError, match="is a directory; set the context's db_path"):
        await build_grounded_answer_graph(model).ainvoke(
            {"task": TASK}, context={"db_path": str(tmp_path)}
        )
    assert model.calls == 0


async def test_missing_database_is_a_configuration_error(tmp_path):
    model = ScriptedChatModel(script=[])
    graph = build_grounded_answer_graph(model)
    missing = tmp_path / "nope.db"
    with pytest.raises(ConfigurationError, match="citeloop index"):
        await graph.ainvoke({"task": TASK}, context={"db_path": str(missing)})
    assert not missing.exists()
    assert model.calls == 0


async def test_payload_names_seed_the_context(store):
    model = ScriptedChatModel(script=["x"])
    await build(model, store).ainvoke(
        {"task": "Explain this code.", "payload": "total = sum_prices(cart.items)"},
        context=GroundedAnswerContext(max_retries=0),
    )
    prompt = human_prompts(model)[0]
    assert "sum_prices" in prompt.split("<payload>")[0]


def test_a_replay_path_that_is_no_readable_file_is_named(tmp_path):
    """Each way a replay path can fail says which, before anything is read (a FIFO
    would block the read until a writer comes)."""
    (tmp_path / "turns.jsonl").write_text('{"content": "x"}\n', encoding="utf-8")
    (tmp_path / "broken.jsonl").symlink_to(tmp_path / "gone.jsonl")
    for name, problem in [
        ("missing.jsonl", "does not exist"),
        ("broken.jsonl", "does not exist"),
        (".", "is a directory"),
        ("turns.jsonl/x", "cannot be read (Not a directory)"),
    ]:
        with pytest.raises(ConfigurationError, match=re.escape(problem)):
            load_replay_turns(tmp_path / name)
    with pytest.raises(ConfigurationError, match="is not a regular file"):
        load_replay_turns("/dev/null")
    (tmp_path / "blank.jsonl").write_text("\n  \n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"blank\.jsonl' holds no turns; record one"):
        load_replay_turns(tmp_path / "blank.jsonl")
    assert load_replay_turns(tmp_path / "turns.jsonl") == [{"content": "x"}]


def test_a_provider_package_not_installed_says_how_to_run_without_it():
    from citeloop.models import resolve_chat_model

    # No extra installs Mistral's package, so its model spec cannot be created here.
    with pytest.raises(ConfigurationError) as error:
        resolve_chat_model("mistralai:mistral-small")
    message = str(error.value)
    assert "needs a provider package that is not installed" in message
    assert "API key" in message and "'replay:PATH'" in message
    assert "MISTRAL_API_KEY" in message and "OPENAI_API_KEY" not in message


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("anthropic:claude-3-5-haiku-latest", "ANTHROPIC_API_KEY"),
        ("ollama:llama3", "needs no API key"),
    ],
)
def test_a_provider_package_not_installed_names_that_providers_key(spec, said):
    # Each provider's own variable (the message had said OPENAI_API_KEY for each).
    from citeloop.models import resolve_chat_model

    with pytest.raises(ConfigurationError) as error:
        resolve_chat_model(spec)
    message = str(error.value)
    if "needs a provider package" not in message:
        pytest.skip(f"the package of {spec} is installed")
    assert said in message and "OPENAI_API_KEY" not in message


async def test_replay_model_and_recorder_round_trip(store, core, tmp_path):
    recorded = tmp_path / "turns.jsonl"
    live = ScriptedChatModel(script=[BAD_ANSWER, good_answer(core)])
    first = await build(live, store).ainvoke(
        {"task": TASK}, {"callbacks": [ReplayRecorder(recorded)]}
    )
    lines = [json.loads(line) for line in recorded.read_text().splitlines()]
    assert [line["content"] for line in lines] == [BAD_ANSWER, good_answer(core)]
    replayed = await build(ReplayChatModel.from_file(recorded), store).ainvoke({"task": TASK})
    assert {k: replayed[k] for k in ("answer", "attempts", "outcome")} == {
        k: first[k] for k in ("answer", "attempts", "outcome")
    }


async def test_a_model_spec_given_to_the_builder_is_resolved_when_built(store, core, tmp_path):
    replay = tmp_path / "turns.jsonl"
    replay.write_text(json.dumps({"content": good_answer(core)}) + "\n", encoding="utf-8")
    graph = build_grounded_answer_graph(f"replay:{replay}", store=store)
    out = await graph.ainvoke({"task": TASK})
    assert (out["outcome"], out["answer"]) == ("passed", good_answer(core))
    # A spec that cannot be resolved is refused here, naming it, not at run time.
    with pytest.raises(ConfigurationError, match=r"missing\.jsonl"):
        build_grounded_answer_graph(f"replay:{tmp_path / 'missing.jsonl'}", store=store)


@pytest.mark.parametrize("builder", ["verbalize", "output_guard", "delivery_audit"])
def test_every_graph_builder_resolves_a_model_spec(builder, tmp_path):
    import importlib

    module = importlib.import_module(f"citeloop.graphs.{builder}")
    build_graph = getattr(module, f"build_{builder}_graph")
    with pytest.raises(ConfigurationError, match=r"missing\.jsonl"):
        build_graph(f"replay:{tmp_path / 'missing.jsonl'}")


@pytest.mark.parametrize(
    ("model", "match"),
    [
        (42, "got int; pass a chat model instance"),
        (ScriptedChatModel, "got the class ScriptedChatModel"),
        (lambda system, user: "hi", "got function; wrap a function with"),
    ],
)
@pytest.mark.parametrize("builder", ["grounded_answer", "verbalize", "output_guard"])
def test_a_builder_refuses_what_is_no_chat_model(builder, model, match):
    import importlib

    module = importlib.import_module(f"citeloop.graphs.{builder}")
    with pytest.raises(ConfigurationError, match=match):
        getattr(module, f"build_{builder}_graph")(model)


async def test_only_declared_keys_reach_a_parent_graph(store, core):
    from typing import TypedDict

    class Parent(TypedDict, total=False):
        task: str
        answer: str
        outcome: str
        context_text: str

    model = ScriptedChatModel(script=[good_answer(core)])
    parent = StateGraph(Parent)
    parent.add_node("grounded", build(model, store))
    parent.set_entry_point("grounded")
    out = await parent.compile().ainvoke({"task": TASK})
    assert out["outcome"] == "passed"
    assert "context_text" not in out  # internal state stays inside the subgraph


def test_mermaid_snapshot(snapshot):
    graph = build_grounded_answer_graph(ScriptedChatModel(script=[]))
    assert graph.get_graph().draw_mermaid() == snapshot


def test_io_schema_snapshot(snapshot):
    graph = build_grounded_answer_graph(ScriptedChatModel(script=[]))
    # LangChain's own message schemas ($defs) are not ours to pin.
    schemas = {
        "input": graph.get_input_jsonschema(),
        "output": graph.get_output_jsonschema(),
        "context": graph.get_context_jsonschema(),
    }
    assert {name: {k: v for k, v in s.items() if k != "$defs"} for name, s in schemas.items()} == (
        snapshot
    )


async def test_answer_tokens_stream_from_call_model(store, core):
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    model = GenericFakeChatModel(messages=iter([good_answer(core)]))
    chunks = [
        (chunk.content, meta["langgraph_node"])
        async for chunk, meta in build(model, store).astream({"task": TASK}, stream_mode="messages")
    ]
    tokens = [text for text, node in chunks if node == "call_model"]
    assert len(tokens) > 1
    assert "".join(tokens) == good_answer(core)


@pytest.mark.parametrize(
    ("inputs", "context", "match"),
    [
        ({"task": 123}, {}, "task must be a string"),
        ({"task": TASK, "payload": b"GraphStore"}, {}, "payload must be a string"),
        ({"task": TASK, "system_prompt": 5}, {}, r"system_prompt must be a string \(or a list"),
        ({"task": TASK}, {"max_retries": "3"}, "'max_retries' must be of type int"),
        ({"task": TASK}, {"reference_threshold": "0.5"}, "'reference_threshold'"),
        ({"task": TASK}, {"require_citations": "no"}, "'require_citations' must be"),
        ({"task": TASK}, {"db_path": None}, "'db_path' must be of type str"),
        ({"task": TASK}, {"max_retries": 1.5}, "'max_retries' must be of type int"),
        ({"task": TASK}, {"max_retires": 1}, "no field 'max_retires'; did you mean 'max_retries'"),
        ({"task": TASK}, {"max_entities": "5"}, r"'max_entities' must be of type int \| None"),
        ({"task": TASK}, {"max_total_tokens": "100"}, "'max_total_tokens' must be of type"),
        ({"task": TASK}, {"max_total_tokens": True}, "'max_total_tokens' must be of type"),
        ({"task": TASK}, {"max_total_tokens": 1.5}, "'max_total_tokens' must be of type"),
    ],
)
async def test_bad_input_types_are_configuration_errors(store, inputs, context, match):
    model = ScriptedChatModel(script=[])
    with pytest.raises(ConfigurationError, match=match):
        await build(model, store).ainvoke(inputs, context=context or None)
    assert model.calls == 0


def test_a_recorder_that_cannot_write_ends_the_run_with_error(store, core, tmp_path):
    model = ScriptedChatModel(script=[good_answer(core)])
    recorder = ReplayRecorder(tmp_path / "missing-folder" / "turns.jsonl")
    out = build(model, store).invoke({"task": TASK}, {"callbacks": [recorder]})
    assert out["outcome"] == "error"
    assert "turns.jsonl" in out["error"]


def test_max_retries_is_bounded():
    with pytest.raises(ConfigurationError, match=r"max_retries must be within 0\.\.100"):
        GroundedAnswerContext(max_retries=101)


def test_a_second_run_on_the_same_thread_starts_its_counters_afresh(store, core):
    # Run 1 passes, run 2 fails permanently; run 3 on the same thread needs one retry
    # and must get it (neither the old attempts nor the old error may carry over).
    good = good_answer(core)
    model = ScriptedChatModel(script=[good, ValueError("bad request"), BAD_ANSWER, good])
    graph = build_grounded_answer_graph(
        model, store=store, model_retry=NO_RETRY_DELAY, checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": "t"}}
    context = GroundedAnswerContext(max_retries=1)
    assert graph.invoke({"task": TASK}, config, context=context)["outcome"] == "passed"
    second = graph.invoke({"task": TASK}, config, context=context)
    # The error ended the run before an answer: no report, not run 1's passing one.
    assert (second["outcome"], second["report"]) == ("error", {})
    third = graph.invoke({"task": TASK}, config, context=context)
    assert (third["outcome"], third["attempts"], third["error"]) == ("passed", 2, "")
    assert model.calls == 4


@pytest.mark.parametrize("first_input", ["messages", "task"])
def test_a_run_that_did_not_end_leaves_no_task_to_the_next_chat_turn(store, core, first_input):
    # Run 1 stops before its model call (an interrupt; a cancelled or raising run leaves
    # the same state); the next turn sends a new human message: that message is its
    # task, not run 1's, while a system prompt it sends again is its own.
    model = ScriptedChatModel(script=[good_answer(["Cart"])] * 9)
    graph = build_grounded_answer_graph(model, store=store, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    first = (
        {"messages": [HumanMessage(TASK)], "system_prompt": "Be brief."}
        if first_input == "messages"
        else {"task": TASK, "system_prompt": "Be brief."}
    )
    graph.invoke(first, config, interrupt_before=["call_model"])
    assert graph.get_state(config).values["task"] == TASK  # left on the thread
    question = "What does `Cart.add_item` do?"
    graph.invoke({"messages": [HumanMessage(question)], "system_prompt": "Be brief."}, config)
    system, *_, human = model.prompts[0]
    assert question in human.text and TASK not in human.text
    assert system.text == "Be brief."
    # A new task given beside the new message is the run's own: it is kept.
    graph.invoke({"messages": [HumanMessage(TASK)]}, config, interrupt_before=["call_model"])
    before = len(model.prompts)
    graph.invoke({"task": question, "messages": [HumanMessage("thanks")]}, config)
    assert question in model.prompts[before][-1].text
    # After a run that ended, a task given again with a new message is the task.
    before = len(model.prompts)
    graph.invoke({"task": TASK, "messages": [HumanMessage("once more")]}, config)
    assert TASK in model.prompts[before][-1].text


def test_an_edited_message_is_the_next_turn_task(store, core):
    # The message that was the task is replaced (same id, new text) after a run that
    # did not end: the edited text is the task.
    model = ScriptedChatModel(script=[good_answer(["Cart"])])
    graph = build_grounded_answer_graph(model, store=store, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke(
        {"messages": [HumanMessage(TASK, id="m1")]}, config, interrupt_before=["call_model"]
    )
    question = "What does `Cart.add_item` do?"
    graph.invoke({"messages": [HumanMessage(question, id="m1")]}, config)
    assert question in model.prompts[0][-1].text and TASK not in model.prompts[0][-1].text


def test_a_task_asked_again_on_a_thread_without_new_messages_is_kept(store, core):
    # Interrupted, then the same input again (no human message since): the task stands.
    model = ScriptedChatModel(script=[good_answer(core)])
    graph = build_grounded_answer_graph(model, store=store, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"task": TASK}, config, interrupt_before=["call_model"])
    assert graph.invoke({"task": TASK}, config)["outcome"] == "passed"
    assert TASK in model.prompts[0][-1].text


def _no_todo(text: str) -> CheckOutcome:
    if "TODO" not in text:
        return CheckOutcome("no_todo", True)
    problem = Problem("the answer contains TODO", "a finished answer", "finish every TODO")
    return CheckOutcome("no_todo", False, (problem,), fixed=text.replace("TODO", "").strip())


@pytest.mark.parametrize(
    ("on_fail", "outcome", "calls", "status"),
    [
        ("reask", "passed", 2, "passed"),  # re-asked; the second answer has no TODO
        ("fix", "passed", 1, "fixed"),
        ("fix_reask", "passed", 1, "fixed"),  # the fix passes, so no re-ask
        ("noop", "passed", 1, "failed"),  # recorded, not blocking
    ],
)
def test_extra_checks_follow_their_failure_policy(store, core, on_fail, outcome, calls, status):
    good = good_answer(core)
    model = ScriptedChatModel(script=[good + "\nTODO", good])
    check = Check("no_todo", _no_todo, on_fail=on_fail)
    graph = build_grounded_answer_graph(
        model, store=store, checks=[check], model_retry=NO_RETRY_DELAY
    )
    out = graph.invoke({"task": TASK})
    assert (out["outcome"], model.calls) == (outcome, calls)
    assert out["report"]["checks"][0]["status"] == status
    assert ("TODO" in out["answer"]) is (on_fail == "noop")
    if on_fail == "reask":
        retry = human_prompts(model)[1]
        assert "[no_todo] the answer contains TODO. Expected: a finished answer." in retry
        assert "Fix: finish every TODO." in retry


def test_an_exception_check_raises_out_of_the_run(store, core):
    model = ScriptedChatModel(script=[good_answer(core) + "\nTODO"])
    check = Check("no_todo", _no_todo, on_fail="exception")
    graph = build_grounded_answer_graph(model, store=store, checks=[check])
    with pytest.raises(ValidationError, match="no_todo"):
        graph.invoke({"task": TASK})


def test_checks_must_be_check_objects(store):
    with pytest.raises(ConfigurationError, match="Check"):
        build_grounded_answer_graph(store=store, checks=[_no_todo])


@pytest.mark.parametrize("checks", [Check("no_todo", _no_todo), None, "no_todo"])
def test_checks_that_are_no_list_are_refused(store, checks):
    with pytest.raises(ConfigurationError, match=r"checks must be a list"):
        build_grounded_answer_graph(store=store, checks=checks)


async def test_no_blocking_call_on_the_event_loop_when_the_answer_is_retried(store, core, tmp_path):
    # As the server runs it: the graph file and the model come from the context, and the
    # retry re-reads the (cached, read-only) graph in expand_context.
    replay = tmp_path / "turns.jsonl"
    turns = [{"content": BAD_ANSWER}, {"content": good_answer(core)}]
    graph = build_grounded_answer_graph(model_retry=NO_RETRY_DELAY)
    context = GroundedAnswerContext(model=f"replay:{replay}", db_path=str(store.path))
    replay.write_text("".join(json.dumps(turn) + "\n" for turn in turns), encoding="utf-8")
    await graph.ainvoke({"task": TASK}, context=context)  # warm the model and graph caches
    replay.write_text("".join(json.dumps(turn) + "\n" for turn in turns), encoding="utf-8")
    from blockbuster import blockbuster_ctx

    with blockbuster_ctx():
        out = await graph.ainvoke({"task": TASK}, context=context)
    assert (out["outcome"], out["attempts"], out["expanded"]) == ("passed", 2, True)


async def test_no_blocking_call_on_the_event_loop_with_a_replay_spec(store, core, tmp_path):
    from blockbuster import blockbuster_ctx

    replay = tmp_path / "turns.jsonl"
    replay.write_text(json.dumps({"content": good_answer(core)}) + "\n", encoding="utf-8")
    graph = build_grounded_answer_graph(store=store, model_retry=NO_RETRY_DELAY)
    context = GroundedAnswerContext(model=f"replay:{replay}")
    await graph.ainvoke({"task": TASK}, context=context)  # warm the model cache
    replay.write_text(json.dumps({"content": good_answer(core)}) + "\n", encoding="utf-8")
    with blockbuster_ctx():
        out = await graph.ainvoke({"task": TASK}, context=context)
    assert (out["outcome"], out["error"]) == ("passed", "")


def test_a_state_update_as_call_model_resumes_at_validate(store, core):
    # Human in the loop: stop after the model, correct its answer, continue.
    graph = build_grounded_answer_graph(
        ScriptedChatModel(script=[BAD_ANSWER]),
        store=store,
        model_retry=NO_RETRY_DELAY,
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "review"}}
    graph.invoke({"task": TASK}, config, interrupt_after=["call_model"])
    graph.update_state(config, {"answer": good_answer(core)}, as_node="call_model")
    assert graph.get_state(config).next == ("validate",)
    assert graph.invoke(None, config)["outcome"] == "passed"


async def test_user_checks_run_off_the_event_loop(store, core):
    # A check may do I/O, so with checks `validate` runs in a worker thread, even for a
    # short answer once the graph's names are read (the second run).
    import threading

    threads: list[int] = []

    def where(text: str) -> CheckOutcome:
        threads.append(threading.get_ident())
        return CheckOutcome("where", True)

    graph = build_grounded_answer_graph(
        ScriptedChatModel(script=[good_answer(core)] * 2),
        store=store,
        checks=[Check("where", where)],
        model_retry=NO_RETRY_DELAY,
    )
    for _ in range(2):
        assert (await graph.ainvoke({"task": TASK}))["outcome"] == "passed"
    assert len(threads) == 2 and threading.get_ident() not in threads
