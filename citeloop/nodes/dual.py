"""``DualNode``: a graph node with a sync body for ``invoke`` and an async one for ``ainvoke``.

LangGraph runs a plain sync function node in a worker thread under ``ainvoke`` (and an
``async def`` node cannot serve ``invoke`` at all). ``RunnableLambda(func, afunc=...)``
serves both, but opens a callback run of its own inside the node's run and inspects its
functions' signatures on every call. A ``DualNode`` only picks the body: the node's run
(and its config, so ``get_runtime()`` works in the body) is LangGraph's, as for a
function node. :func:`inline_router` gives a router the same treatment.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, get_args, get_type_hints

from langchain_core.runnables import Runnable, RunnableConfig


class DualNode(Runnable[Any, Any]):
    """A node that calls ``func(state)`` under ``invoke``/``stream`` and awaits
    ``afunc(state)`` under ``ainvoke``/``astream``.

    Bodies read the run's context with ``langgraph.runtime.get_runtime()``.

    Args:
        name: The node's name.
        func: The sync body.
        afunc: The async body; ``None`` runs ``func`` itself on the event loop, for a
            body that only computes (no I/O, no blocking call) and so would gain
            nothing from a worker thread but its cost.
    """

    def __init__(
        self,
        name: str,
        func: Callable[[Any], Any],
        afunc: Callable[[Any], Awaitable[Any]] | None = None,
    ) -> None:
        self.name = name
        self.func = func
        self.afunc = afunc

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self.func(input)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if self.afunc is None:
            return self.func(input)
        return await self.afunc(input)


def inline_router(func: Callable[[Any], Any]) -> tuple[DualNode, list[str]]:
    """``(path, path_map)`` for ``add_conditional_edges``: the router ``func`` (a pure
    function of the state) runs on the event loop under ``ainvoke``, where LangGraph
    would run a plain function router in a worker thread; its destinations, which
    LangGraph reads from a function's ``Literal`` return annotation but not from a
    runnable's, are read from that annotation here.

    Raises:
        KeyError: ``func`` has no return annotation.
    """
    destinations = list(get_args(get_type_hints(func)["return"]))
    return DualNode(func.__name__, func), destinations
