"""Shared helpers of the benchmark scripts: the corpus and timing."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path


def corpus_root() -> Path:
    """The installed ``langchain_core`` package, a real ~70k-line source tree."""
    import langchain_core

    return Path(langchain_core.__file__).parent


def median_seconds(action: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` runs of ``action``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
