"""grounded_answer composed into larger graphs: a hand-built parent graph and a
``langchain.agents.create_agent`` agent; streaming through the parent; tracing off by
default."""

from __future__ import annotations

import os
import socket
from typing import Annotated, Any
from unittest import mock

import langsmith
import langsmith.utils
import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AnyMessage, HumanMessage
from langchain_core.tools import tool
from langchain_core.tracers import LangChainTracer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import RetryPolicy
from pydantic import PrivateAttr
from typing_extensions import TypedDict

from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import ContextInjector, index_tree
from citeloop.models import is_transient_model_error
from citeloop.state.grounded_answer import OutputState, State
from tests.fakes import ScriptedChatModel, ScriptedToolChatModel, tool_reply

QUESTION = "How does `Circle` compute its area?"
BAD_ANSWER = "It multiplies something."
NO_RETRY_DELAY = RetryPolicy(
    initial_interval=0.0, jitter=False, max_attempts=2, retry_on=is_transient_model_error
)
DECLARED = OutputState.__required_keys__ | OutputState.__optional_keys__
INTERNAL = (State.__required_keys__ | State.__optional_keys__) - DECLARED - {"task", "payload"}
TRACING_VARIABLES = (
    "LANGSMITH_TRACING",
    "LANGSMITH_TRACING_V2",
    "LANGCHAIN_TRACING",
    "LANGCHAIN_TRACING_V2",
)


@pytest.fixture
def indexed(sample_repo, store):
    """The store, holding the sample repository's knowledge graph."""
    index_tree(sample_repo, store)
    return store


def good_answer(store) -> str:
    names = [entity.name for entity in ContextInjector(store).inject(QUESTION).core]
    assert names, "the question must seed core entities"
    body = "Circle.area squares the radius and relies on " + ", ".join(names) + "."
    return body + "\n\n## Entities used\n" + "".join(f"- {name}\n" for name in names)


def grounded(model, store):
    return build_grounded_answer_graph(model, store=store, model_retry=NO_RETRY_DELAY)


# --- a hand-built parent graph ----------------------------------------------------------


class AgentState(TypedDict, total=False):
    """A parent agent's state: its own keys, some keys it shares with grounded_answer's
    output, and two with the names of grounded_answer's internal keys."""

    question: str
    messages: Annotated[list[AnyMessage], add_messages]
    answer: str
    outcome: str
    audit_log: list[str]  # the parent's own
    feedback: str  # same name as an internal key of grounded_answer
    context_text: str  # same name as an internal key of grounded_answer


def ask(state: AgentState) -> dict[str, Any]:
    """The parent asks its question as a chat message (grounded_answer reads the task
    from the last human message when ``task`` is absent)."""
    return {"messages": [HumanMessage(state["question"])]}


def log_outcome(state: AgentState) -> dict[str, Any]:
    return {"audit_log": [*state.get("audit_log", []), f"grounded_answer: {state['outcome']}"]}


def build_parent(model, store):
    builder = StateGraph(AgentState)
    builder.add_node("ask", ask)
    builder.add_node("grounded_answer", grounded(model, store))
    builder.add_node("log_outcome", log_outcome)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", "grounded_answer")
    builder.add_edge("grounded_answer", "log_outcome")
    builder.add_edge("log_outcome", END)
    return builder.compile()


PARENT_INPUT = {
    "question": QUESTION,
    "audit_log": ["start"],
    "feedback": "the parent's feedback",
    "context_text": "the parent's context",
}


def test_internal_keys_exist_to_be_hidden():
    assert {"feedback", "context_text"} <= INTERNAL
    assert not INTERNAL & DECLARED


def test_only_declared_output_keys_reach_the_parent(indexed):
    model = ScriptedChatModel(script=[good_answer(indexed)])
    parent = build_parent(model, indexed)
    updates, final = [], {}
    for mode, chunk in parent.stream(PARENT_INPUT, stream_mode=["updates", "values"]):
        if mode == "updates":
            updates.append(chunk)
        else:
            final = chunk
    assert [next(iter(update)) for update in updates] == ["ask", "grounded_answer", "log_outcome"]

    written = updates[1]["grounded_answer"]
    # The parent shares answer, outcome and messages with the subgraph's output: only
    # those are written. Internal keys never leave the subgraph, even where the parent
    # has keys of the same name, and output keys the parent lacks (report, attempts) are
    # dropped.
    assert set(written) == {"answer", "outcome", "messages"}
    assert set(written) <= DECLARED

    assert final["outcome"] == "passed"
    assert final["answer"] == good_answer(indexed)
    assert final["feedback"] == "the parent's feedback"  # not the subgraph's feedback
    assert final["context_text"] == "the parent's context"  # not the injected context
    assert final["audit_log"] == ["start", "grounded_answer: passed"]  # the parent's own key
    assert set(final) == set(AgentState.__optional_keys__)
    assert [m.type for m in final["messages"]] == ["human", "ai"]
    assert final["messages"][-1].text == final["answer"]
    # The declared input (the question, as a chat message) reached the subgraph.
    assert QUESTION in model.prompts[0][-1].text


def test_updates_stream_each_node_in_order_through_the_parent(indexed):
    model = ScriptedChatModel(script=[BAD_ANSWER, good_answer(indexed)])
    parent = build_parent(model, indexed)
    seen, streamed_keys = [], set()
    for namespace, update in parent.stream(PARENT_INPUT, stream_mode="updates", subgraphs=True):
        for node, values in update.items():
            seen.append((namespace[0].split(":", 1)[0] if namespace else "", node))
            if namespace:
                streamed_keys |= set(values or {})
    inner = [
        "inject_context",
        "call_model",
        "validate",
        "expand_context",
        "build_retry_prompt",
        "call_model",
        "validate",
    ]
    assert seen == [
        ("", "ask"),
        *[("grounded_answer", node) for node in inner],
        ("", "grounded_answer"),
        ("", "log_outcome"),
    ]
    # Even the subgraph's own updates, streamed to the parent's caller, hold only its
    # declared output keys: the prompt and the injected context stay inside.
    assert streamed_keys <= DECLARED
    assert {"answer", "report", "outcome", "context_entities"} <= streamed_keys


def test_answer_tokens_stream_through_the_parent(indexed):
    answer = good_answer(indexed)
    model = GenericFakeChatModel(messages=iter([answer]))
    parent = build_parent(model, indexed)
    # A subgraph's tokens reach the parent's "messages" stream with subgraphs=True;
    # without it, LangGraph 1.x shows only the messages the subgraph node returns.
    tokens = [
        chunk.content
        for namespace, (chunk, meta) in parent.stream(
            PARENT_INPUT, stream_mode="messages", subgraphs=True
        )
        if meta["langgraph_node"] == "call_model" and namespace[0].startswith("grounded_answer:")
    ]
    assert len(tokens) > 1  # streamed token by token, not as one message
    assert "".join(tokens) == answer


# --- a langchain agent that uses grounded_answer as a tool --------------------------------


def build_agent(agent_model, answerer, store):
    graph = grounded(answerer, store)

    @tool
    def ask_codebase(question: str) -> str:
        """Answer a question about the indexed code base, citing the entities it uses."""
        out = graph.invoke({"task": question})
        if out["outcome"] != "passed":
            return f"No grounded answer ({out['outcome']})."
        return out["answer"]

    return create_agent(agent_model, tools=[ask_codebase])


def agent_script(final: str = "Circle.area squares the radius and multiplies by PI."):
    return [tool_reply("ask_codebase", {"question": QUESTION}), final]


def test_a_create_agent_agent_calls_grounded_answer_as_a_tool(indexed):
    agent_model = ScriptedToolChatModel(script=agent_script())
    answerer = ScriptedChatModel(script=[good_answer(indexed)])
    out = build_agent(agent_model, answerer, indexed).invoke({"messages": [HumanMessage(QUESTION)]})
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
    tool_message = out["messages"][2]
    assert (tool_message.name, tool_message.text) == ("ask_codebase", good_answer(indexed))
    # The agent saw the grounded answer as the tool's result, and nothing else of the run.
    assert agent_model.prompts[1][-1].text == good_answer(indexed)
    assert not (set(out) & (INTERNAL | DECLARED) - {"messages"})
    assert answerer.calls == 1
    assert "<context>" in answerer.prompts[0][-1].text  # the context was injected


def test_a_failed_grounded_answer_is_reported_to_the_agent(indexed):
    agent_model = ScriptedToolChatModel(script=agent_script("I could not find out."))
    answerer = ScriptedChatModel(script=[BAD_ANSWER] * 3)
    out = build_agent(agent_model, answerer, indexed).invoke({"messages": [HumanMessage(QUESTION)]})
    assert out["messages"][2].text == "No grounded answer (exhausted)."
    assert answerer.calls == 3  # the default budget: 1 + 2 retries


def test_the_tools_subgraph_nodes_stream_through_the_agent(indexed):
    agent_model = ScriptedToolChatModel(script=agent_script())
    answer = good_answer(indexed)
    answerer = GenericFakeChatModel(messages=iter([answer]))
    agent = build_agent(agent_model, answerer, indexed)
    nodes = [
        node
        for namespace, update in agent.stream(
            {"messages": [HumanMessage(QUESTION)]}, stream_mode="updates", subgraphs=True
        )
        if namespace
        for node in update
    ]
    assert nodes == ["inject_context", "call_model", "validate"]

    answerer = GenericFakeChatModel(messages=iter([answer]))
    agent = build_agent(ScriptedToolChatModel(script=agent_script()), answerer, indexed)
    tokens = [
        chunk.content
        for namespace, (chunk, meta) in agent.stream(
            {"messages": [HumanMessage(QUESTION)]}, stream_mode="messages", subgraphs=True
        )
        if meta["langgraph_node"] == "call_model" and namespace[0].startswith("tools:")
    ]
    assert len(tokens) > 1
    assert "".join(tokens) == answer


# --- tracing ------------------------------------------------------------------------------


class HandlerSpy(ScriptedChatModel):
    """Records the callback handlers each model call runs with."""

    _handlers: list[list[Any]] = PrivateAttr(default_factory=list)

    @property
    def handlers(self) -> list[list[Any]]:
        return self._handlers

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self._handlers.append([*run_manager.handlers, *run_manager.inheritable_handlers])
        return super()._generate(messages, stop, run_manager, **kwargs)


@pytest.fixture
def tracing_env():
    """A monkeypatch with no tracing variable set. langsmith caches its reads of the
    environment per process: the cache is cleared before, and after everything patched
    is restored."""
    with pytest.MonkeyPatch.context() as patch:
        for name in TRACING_VARIABLES:
            patch.delenv(name, raising=False)
        langsmith.utils.get_env_var.cache_clear()
        yield patch
    langsmith.utils.get_env_var.cache_clear()


def _no_client(*args, **kwargs):
    raise AssertionError("a LangSmith client was created")


def _no_connection(*args, **kwargs):
    raise AssertionError("a network connection was attempted")


def test_tracing_is_off_by_default_and_nothing_is_sent(indexed, tracing_env):
    tracing_env.setattr(langsmith.Client, "__init__", _no_client)
    tracing_env.setattr(socket.socket, "connect", _no_connection)
    tracing_env.setattr(socket, "create_connection", _no_connection)
    assert not any(os.environ.get(name) for name in TRACING_VARIABLES)
    assert not langsmith.utils.tracing_is_enabled()

    model = HandlerSpy(script=[good_answer(indexed)])
    out = build_parent(model, indexed).invoke(PARENT_INPUT)
    assert out["outcome"] == "passed"
    assert model.handlers, "the model was called"
    assert not [h for calls in model.handlers for h in calls if isinstance(h, LangChainTracer)]


def test_tracing_follows_the_usual_environment_variables(indexed, tracing_env):
    tracing_env.setenv("LANGSMITH_TRACING", "true")
    tracing_env.setenv("LANGSMITH_API_KEY", "lsv2-not-a-real-key")
    langsmith.utils.get_env_var.cache_clear()
    tracing_env.setattr(langsmith.Client, "__init__", _no_client)
    # The tracer's client is a stand-in, so that the test sends nothing.
    client = mock.MagicMock(spec=langsmith.Client)
    tracing_env.setattr("langchain_core.tracers.langchain.get_client", lambda: client)

    model = HandlerSpy(script=[good_answer(indexed)])
    out = build_parent(model, indexed).invoke(PARENT_INPUT)
    assert out["outcome"] == "passed"
    assert [h for calls in model.handlers for h in calls if isinstance(h, LangChainTracer)]
    traced = {call.kwargs.get("name") for call in client.create_run.call_args_list}
    assert {"grounded_answer", "call_model", "HandlerSpy"} <= traced
