"""The indexed source files, read back: confined to the indexed folder, checked against
the digest the graph holds, and cached while they do not change.

A context shows the lines of the code it is about (:mod:`citeloop.knowledge.excerpts`)
and evidence quotes its provenance span (:mod:`citeloop.contract`); both read a file
here, and both must show the lines the graph indexed, never a file edited since, whose
line numbers no longer match the graph's.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from citeloop.knowledge.indexing.sources import decode_source

MAX_SOURCE_FILE_BYTES = 50_000_000
"""A larger file is not read (it is :data:`SOURCE_UNREADABLE`)."""

SOURCE_MISSING = "(source missing)"
"""The file is gone (or is not a regular file)."""
SOURCE_OUTSIDE_ROOT = "(source outside the indexed root)"
"""The path leaves the indexed folder (``..``, an absolute path, a symbolic link out)."""
SOURCE_UNREADABLE = "(source unreadable)"
"""The file cannot be opened, decoded, or is larger than :data:`MAX_SOURCE_FILE_BYTES`."""

_PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class SourceLines:
    """The text of one indexed file.

    Attributes:
        digest: SHA-256 hex digest of the file's bytes, ``""`` when not read.
        lines: Its lines (split at ``\\n``, ``\\r\\n`` and ``\\r``, as the indexer
            counts them), ``()`` when not read.
        problem: Why it was not read (:data:`SOURCE_MISSING`,
            :data:`SOURCE_OUTSIDE_ROOT`, :data:`SOURCE_UNREADABLE`), ``""`` when read.
    """

    digest: str = ""
    lines: tuple[str, ...] = ()
    problem: str = ""


def _decoded(path: str, data: bytes) -> str:
    """A file's text as the indexer decoded it: Python source by its coding cookie or BOM
    (PEP 263), anything else (decision records) as UTF-8."""
    if path.endswith(_PYTHON_SUFFIXES):
        return decode_source(data)
    return data.decode("utf-8-sig")


def _location(root: Path, path: str) -> Path | str:
    """The file ``path`` names below ``root``, or the problem that keeps it from being
    read (a path that leaves ``root``, after symbolic links, is never opened)."""
    relative = PurePosixPath(path)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        return SOURCE_OUTSIDE_ROOT
    try:
        location = (root / relative).resolve()
    except (OSError, RuntimeError):  # a symbolic link loop
        return SOURCE_UNREADABLE
    if not location.is_relative_to(root):
        return SOURCE_OUTSIDE_ROOT
    return location


def read_source(root: Path, path: str) -> SourceLines:
    """The lines of the indexed file ``path`` (POSIX, relative to ``root``).

    Only a regular file below ``root`` is read, after symbolic links are resolved: a
    path that leaves it is :data:`SOURCE_OUTSIDE_ROOT`, never opened. The file is opened
    without blocking (a FIFO is refused, not waited on) and read up to
    :data:`MAX_SOURCE_FILE_BYTES`.

    Args:
        root: The indexed root, absolute and resolved.
        path: The path as the graph holds it.

    Returns:
        The file's digest and lines, or the problem that kept it from being read.
    """
    location = _location(root, path)
    if isinstance(location, str):
        return SourceLines(problem=location)
    try:
        descriptor = os.open(location, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return SourceLines(problem=SOURCE_MISSING)
    except OSError:
        return SourceLines(problem=SOURCE_UNREADABLE)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)
            return SourceLines(problem=SOURCE_MISSING)
        with os.fdopen(descriptor, "rb") as file:
            data = file.read(MAX_SOURCE_FILE_BYTES + 1)
    except OSError:
        return SourceLines(problem=SOURCE_UNREADABLE)
    if len(data) > MAX_SOURCE_FILE_BYTES:
        return SourceLines(problem=SOURCE_UNREADABLE)
    digest = hashlib.sha256(data).hexdigest()
    try:
        text = _decoded(path, data)
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return SourceLines(digest=digest, problem=SOURCE_UNREADABLE)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return SourceLines(digest=digest, lines=tuple(lines))


class LineSource(Protocol):
    """What reads indexed lines: :class:`SourceReader`, or one that wraps it."""

    def lines(self, paths: Collection[str]) -> dict[str, tuple[str, ...]]:
        """The lines of each of ``paths`` whose file is as the graph indexed it."""
        ...


FILES_KEPT = 64
"""Files a :class:`SourceReader` keeps read."""


class SourceReader:
    """The indexed lines of files below ``root``, as the graph indexed them.

    A file is read again only when its size or modification time changed; its lines
    are given only while its digest is the one the graph holds (``digests``, asked at
    every read, so a re-index is seen at once), so an edit since indexing (lines moved)
    gives no lines, never lines that no longer match the graph's line numbers. Thread-safe;
    keeps the last :data:`FILES_KEPT` files.

    Args:
        root: The indexed folder.
        digests: The digest the graph holds of each of the given paths (paths it does
            not know are left out).
    """

    def __init__(self, root: Path, digests: Callable[[Collection[str]], dict[str, str]]) -> None:
        self.root = root.resolve()
        self._digests = digests
        self._files: OrderedDict[str, tuple[tuple[int, int], SourceLines]] = OrderedDict()
        self._lock = threading.Lock()

    def lines(self, paths: Collection[str]) -> dict[str, tuple[str, ...]]:
        """The lines of each of ``paths`` whose file is as the graph indexed it.

        Args:
            paths: Paths as the graph holds them.
        """
        indexed = self._digests(paths)
        found = {}
        for path, digest in indexed.items():
            source = self._read(path)
            if source.lines and source.digest == digest:
                found[path] = source.lines
        return found

    def _read(self, path: str) -> SourceLines:
        # The version check follows links without resolving the path (a resolve costs a
        # system call per folder); whatever changed is read again by read_source, which
        # confines the path to the root before it opens anything.
        try:
            status = os.stat(self.root / path)
            version: tuple[int, int] | None = (status.st_size, status.st_mtime_ns)
        except (OSError, ValueError):
            version = None
        with self._lock:
            kept = self._files.get(path)
            if kept is not None and version is not None and kept[0] == version:
                self._files.move_to_end(path)
                return kept[1]
        source = read_source(self.root, path)
        if version is None:
            return source
        with self._lock:
            self._files[path] = (version, source)
            self._files.move_to_end(path)
            while len(self._files) > FILES_KEPT:
                self._files.popitem(last=False)
        return source
