"""Ctrl-C for the commands that run a graph: the first stops the run, the second at once.

``asyncio.run`` answers a first Ctrl-C by cancelling the run, then waits for the threads
of its executor: a chat model without an async client runs its call in one, so the
command waited until that call ended (up to a model's timeout). :func:`run_interruptible`
cancels the run on the first Ctrl-C, as before, and says that a second one stops the
process at once; the second ends it with exit status 130 (128 + SIGINT) without waiting.
That is as safe as a kill: every finished step is in the thread's checkpoint, and the
run resumes from it with ``--thread``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["EXIT_INTERRUPTED", "run_interruptible"]

T = TypeVar("T")

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""

FIRST_NOTICE = "citeloop: interrupting the run (press Ctrl-C again to stop at once)"
SECOND_NOTICE = "citeloop: stopped"


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to completion with :func:`asyncio.run`, under two-stage Ctrl-C.

    Args:
        main: The coroutine to run.

    Returns:
        What ``main`` returns.

    Raises:
        KeyboardInterrupt: After a first Ctrl-C cancelled ``main``.
    """
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(main)
    interrupts = 0
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[T] | None = None

    def on_sigint(signum: int, frame: object) -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts > 1 or loop is None or task is None or task.done():
            _say(SECOND_NOTICE)
            os._exit(EXIT_INTERRUPTED)
        _say(FIRST_NOTICE)
        loop.call_soon_threadsafe(task.cancel)

    async def guarded() -> T:
        nonlocal loop, task
        loop, task = asyncio.get_running_loop(), asyncio.current_task()  # type: ignore[assignment]
        return await main

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if interrupts:
            raise KeyboardInterrupt from None
        raise
    finally:
        signal.signal(signal.SIGINT, previous)


def _say(message: str) -> None:
    """Flush what was printed, then write ``message`` to stderr (a closed stream is
    passed over: this runs in a signal handler)."""
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
