"""Reading an input file the user named, bounded in size and in waiting.

A named pipe (FIFO) that no process writes to blocks a plain ``open()`` forever.
:func:`read_input_bytes` opens every file without blocking; on a pipe, it waits at most
``wait`` seconds for a writer to appear, then reads to the end as usual. A pipe that
already has a writer, as ``<(command)`` gives (bash's process substitution), is read
however long the writer takes.
"""

from __future__ import annotations

import errno
import os
import stat
import time

__all__ = ["FIFO_WAIT_SECONDS", "InputFileError", "read_input_bytes"]

FIFO_WAIT_SECONDS = 10.0
"""How long a named pipe with no writer is waited for before it is refused."""

_POLL_SECONDS = 0.05


class InputFileError(OSError):
    """A named pipe had no writer within the wait; ``filename`` is the path."""


def read_input_bytes(path: str, limit: int, wait: float | None = None) -> bytes:
    """The bytes of ``path``, at most ``limit + 1`` of them (so a caller can tell that the
    file is larger than ``limit``).

    Args:
        path: The file to read: a regular file, a named pipe or ``/dev/fd/N``.
        limit: The largest size the caller accepts, in bytes.
        wait: Seconds to wait for a writer when ``path`` is a pipe that has none
            (default :data:`FIFO_WAIT_SECONDS`).

    Returns:
        The file's first ``limit + 1`` bytes.

    Raises:
        InputFileError: ``path`` is a pipe that no process opened for writing within
            ``wait`` seconds.
        OSError: The file cannot be opened or read (``FileNotFoundError`` and so on).
    """
    wait = FIFO_WAIT_SECONDS if wait is None else wait
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            first = _await_writer(fd, path, 0.0 if _anonymous_pipe(path) else wait)
        else:
            first = b""
        os.set_blocking(fd, True)
        chunks, size = [first], len(first)
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _anonymous_pipe(path: str) -> bool:
    """Whether ``path`` is a pipe without a name (``/dev/fd/N`` of ``<(command)``), whose
    writer was there before the reader: at its end of file, the writer has finished."""
    return os.path.realpath(path).rpartition("/")[2].startswith("pipe:")


def _await_writer(fd: int, path: str, wait: float) -> bytes:
    """The first bytes of a pipe once it has a writer (``b""`` when the writer has not
    written yet): a non-blocking read gives data, ``EAGAIN`` (a writer, no data yet) or
    end of file (no writer at present)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            data = os.read(fd, 65_536)
        except BlockingIOError as error:
            if error.errno == errno.EAGAIN:
                return b""
            raise
        if data or not wait:
            return data
        if time.monotonic() >= deadline:
            raise InputFileError(
                errno.EPIPE,
                f"no process writes to the pipe (waited {wait:g} s); start its writer "
                "first, or pass a regular file",
                path,
            )
        time.sleep(_POLL_SECONDS)
