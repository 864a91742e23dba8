"""Shared helpers of the benchmark scripts: the corpus, timing, an async fake model."""

from __future__ import annotations

import asyncio
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
