"""State schemas of the ``verbalize`` graph.

``InputState`` and ``OutputState`` are what a caller or a parent graph sees; ``State``
adds the working keys the nodes share. TypedDicts carry no defaults: nodes read
optional keys with ``.get``.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # pydantic needs it for JSON schemas on Python < 3.12


class InputState(TypedDict, total=False):
    """What a run starts from.

    Attributes:
        path: The retrieval path as ``RetrievalPath.to_dict()``'s JSON form
            (``{"source": {...}, "hops": [{"entity": {...}, "fact_id": ...}, ...]}``).
            Required. A ``citeloop.knowledge.RetrievalPath`` object is accepted too, but
            a checkpointer stores the input before ``prepare`` turns it into that form,
            and reading it back logs LangGraph's "Deserializing unregistered type"
            warning (under ``LANGGRAPH_STRICT_MSGPACK=true``, the object is blocked):
            pass the dict.
        question: The question the narrative answers (e.g. "How is A connected to
            B?"), shown to the model when given.

    On a thread (with a checkpointer), keys persist between runs as in any LangGraph
    state: a run that gives no ``question`` keeps the thread's; pass ``""`` to clear it.
    """

    path: dict[str, Any]
    question: str


class VerbalizationReport(TypedDict):
    """The verdict on the final narrative.

    Attributes:
        passed: Every critic accepted the narrative (always true for an empty path).
        iterations_used: Critiques that failed, 0..``max_iterations``.
        max_iterations: The budget the run had.
        hops: Hops of the path.
        missing_fact_ids: Fact ids of the path the narrative does not mention.
        feedback: The combined feedback of the critics that failed last (``""`` when
            passed).
        model_calls: Chat-model calls made (draft plus refinements), counting a call
            that failed and ended the run.
        error: Why the run ended early (a chat-model failure), or ``""``.
    """

    passed: bool
    iterations_used: int
    max_iterations: int
    hops: int
    missing_fact_ids: list[str]
    feedback: str
    model_calls: int
    error: str


class OutputState(TypedDict, total=False):
    """What a run returns.

    Attributes:
        narrative: The last narrative the model wrote (``""`` for an empty path).
        verbalization: Its :class:`VerbalizationReport`. ``prepare`` writes the report
            of a run that has drafted nothing yet (not passed, no model call), so a
            run on a thread never shows an earlier run's.
    """

    narrative: str
    verbalization: VerbalizationReport


class State(InputState, OutputState, total=False):
    """The graph's internal state.

    Attributes:
        iterations_used: Critiques that failed so far (reset by ``prepare``).
        model_calls: Chat-model calls so far (reset by ``prepare``).
        error: Set by a model node whose call failed; ends the run.
    """

    iterations_used: int
    model_calls: int
    error: str
