"""One writer at a time per graph file: an advisory lock held for a whole index run.

SQLite's own locks guard each transaction, but an index run reads the graph's file
states, parses for a while and only then writes: two runs into one file would each
write their difference against the same old state and leave the union of both trees.
The lock is ``flock`` on the graph file itself (no lock file is created), which is
independent of SQLite's POSIX record locks on Linux and BSD
(https://man7.org/linux/man-pages/man2/flock.2.html). Where ``fcntl`` does not exist
(Windows) no lock is taken.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def exclusive_writer(
    path: str | os.PathLike[str], on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the graph file ``path`` for writing until the block ends.

    When another process holds it, ``on_wait`` (if given) gets a message saying so, and
    the call waits until that process ends its run (Ctrl-C stops the wait).

    Args:
        path: The graph file (it exists: the store has opened it); ``":memory:"`` is
            not locked.
        on_wait: Called once, before waiting, with a message naming the file.
    """
    if fcntl is None or os.fspath(path) == ":memory:":
        yield
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(f"another index run is writing {os.fspath(path)!r}; waiting for it to end")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
