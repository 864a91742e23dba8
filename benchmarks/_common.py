"""Shared helpers of the benchmark scripts: the corpus, timing, an async fake model, and
the result protocol ``benchmarks/run_all.py`` (``make bench``) reads.

Result protocol: a benchmark prints one line per target, ``bench-result: {JSON}``, with
:func:`report_result`, and exits 1 when a target is missed (2 when it cannot measure,
e.g. an input is missing). The JSON object holds ``name`` (what is measured),
``figure`` (the judged value: the median when there are several runs), ``min``,
``max``, ``runs`` (how many figures the median is of), ``unit``, ``target``,
``better`` (``"lower"`` or ``"higher"``) and ``met``. A noisy figure is measured
several times in the benchmark itself (it knows what is cheap to repeat) and judged on
the median, with min and max reported beside it. A script without result lines is
judged by its exit code alone.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


def corpus_root() -> Path:
    """The installed ``langchain_core`` package, a real ~70k-line source tree."""
    import langchain_core

    return Path(langchain_core.__file__).parent


def site_packages() -> Path:
    """The dev venv's site-packages folder: the one that holds ``langchain_core``."""
    return corpus_root().parent


RESULT_PREFIX = "bench-result: "


def report_result(
    name: str,
    figures: float | list[float],
    target: float,
    *,
    unit: str = "x",
    better: str = "lower",
) -> bool:
    """Print the result line of one target and return whether it is met.

    Args:
        name: What is measured, e.g. ``"context start-up / python -c pass"``.
        figures: The figure, or the figures of repeated runs (judged on their median).
        target: The bound: the largest allowed figure (``better="lower"``) or the
            smallest (``better="higher"``).
        unit: Printed after figures in the summary, e.g. ``"x"``, ``"ms"``, ``"%"``.
        better: ``"lower"`` or ``"higher"``.

    Raises:
        ValueError: ``figures`` is empty, or ``better`` is neither word.
    """
    runs = [figures] if isinstance(figures, int | float) else list(figures)
    if not runs or better not in ("lower", "higher"):
        raise ValueError(f"report_result({name!r}): need figures and better='lower'|'higher'")
    figure = statistics.median(runs)
    met = figure <= target if better == "lower" else figure >= target
    result = {
        "name": name,
        "figure": figure,
        "min": min(runs),
        "max": max(runs),
        "runs": len(runs),
        "unit": unit,
        "target": target,
        "better": better,
        "met": met,
    }
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    return met


def median_seconds(action: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` runs of ``action``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class SleepyChatModel(BaseChatModel):
    """Answers ``answer`` after ``await asyncio.sleep(delay)``, like a remote model.

    Async only: the sync ``_generate`` raises, so a run that answers went the async path.
    """

    answer: str
    delay: float = 0.1

    @property
    def _llm_type(self) -> str:
        return "sleepy-fake"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        raise RuntimeError("SleepyChatModel is async only: its sync _generate was called")

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        await asyncio.sleep(self.delay)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.answer))])


class CyclingChatModel(BaseChatModel):
    """Answers with ``answers`` in turn, round and round, sync and async (no delay): a
    scripted model for as many runs as a benchmark makes."""

    answers: list[str]
    turn: int = 0

    @property
    def _llm_type(self) -> str:
        return "cycling-fake"

    def _reply(self) -> ChatResult:
        answer = self.answers[self.turn % len(self.answers)]
        self.turn += 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return self._reply()

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return self._reply()
