"""Finding the files of a source tree to index, without following symbolic links."""

from __future__ import annotations

import io
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path

from citeloop.errors import SourceTreeError

IGNORED_DIRS = frozenset({".git", ".venv", "venv", "__pycache__", "node_modules"})
"""Directory names never walked into (hidden directories are skipped as well)."""

DECISION_DIRS = ("/docs/adr/", "/docs/decisions/", "/decisions/")
"""Markdown files below one of these directories are decision records."""

DEFAULT_MAX_FILE_BYTES = 2_000_000
"""Files larger than this many bytes are skipped as generated code or data."""


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file (or linked directory) that was not indexed.

    Attributes:
        path: POSIX path relative to the indexed root.
        reason: Why it was skipped, e.g. ``"syntax error at line 3: invalid syntax"``.
    """

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file to index.

    Attributes:
        path: POSIX path relative to the indexed root.
        location: Absolute location on disk.
        kind: ``"python"`` or ``"decision"``.
    """

    path: str
    location: Path
    kind: str


def check_root(root: str | os.PathLike[str]) -> Path:
    """Return ``root`` as an absolute resolved path.

    Raises:
        SourceTreeError: If ``root`` is empty (``Path("")`` would be the current folder:
            a command line whose ``$(...)`` failed), does not exist or is not a directory.
    """
    if not os.fspath(root).strip():
        raise SourceTreeError(
            "source tree is an empty path; pass the directory to index (use '.' for the "
            "current one)"
        )
    path = Path(root)
    if not path.exists():
        raise SourceTreeError(
            f"source tree {str(root)!r} does not exist; pass the path of an existing "
            "directory that holds Python sources"
        )
    if not path.is_dir():
        raise SourceTreeError(
            f"source tree {str(root)!r} is a file, not a directory; pass the directory "
            "that contains it (e.g. the repository root)"
        )
    return path.resolve()


def is_decision_record(path: str) -> bool:
    """Whether the relative POSIX ``path`` is a Markdown decision record."""
    if not path.endswith(".md"):
        return False
    directory = "/" + path.rpartition("/")[0] + "/"
    return any(marker in directory for marker in DECISION_DIRS)


def _unencodable(name: str) -> bool:
    """Whether a file name holds bytes that are not UTF-8 (``os`` keeps them as lone
    surrogates; neither the graph file nor a terminal can store them)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _shown(path: str) -> str:
    """A path with its non-UTF-8 bytes written as ``\\xff`` escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


_NOT_UTF8 = "name is not valid UTF-8; rename it to index it"


def _link_reason(link: Path, root: Path) -> str:
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return "symbolic link is broken or loops; not followed"
    if not target.is_relative_to(root):
        return "symbolic link leaves the source tree; not followed"
    return "symbolic link inside the source tree; not followed (its target is indexed)"


@dataclass(slots=True)
class Discovery:
    """What :func:`discover` found below a root.

    Attributes:
        files: The files to index, by path.
        skipped: Files and linked folders not indexed, with the reason, by path.
        distributions: Folders (relative; ``"."`` for the root) holding a
            ``pyproject.toml`` or ``setup.cfg``.
    """

    files: list[SourceFile]
    skipped: list[SkippedFile]
    distributions: set[str]


_DISTRIBUTION_FILES = frozenset({"pyproject.toml", "setup.cfg"})


def discover(root: Path) -> Discovery:
    """List the Python files and decision records below ``root``, in path order.

    Hidden directories and :data:`IGNORED_DIRS` are not walked into. Symbolic links
    (to files or directories) are never followed, which rules out loops and files
    outside the tree; each one is reported as skipped, as are folders that cannot be
    read or searched (with what they hold) and names that are not UTF-8.

    Args:
        root: An absolute, resolved directory (see :func:`check_root`).

    Returns:
        The files and the skipped ones, both sorted by path, and the distribution folders.
    """
    files: list[SourceFile] = []
    skipped: list[SkippedFile] = []
    distributions: set[str] = set()

    def unreadable(error: OSError) -> None:
        where = Path(error.filename or root).relative_to(root).as_posix()
        skipped.append(SkippedFile(_shown(where), f"cannot read folder: {error.strerror}"))

    for directory, dirnames, filenames in os.walk(root, onerror=unreadable, followlinks=False):
        base = Path(directory)
        relative = base.relative_to(root).as_posix()
        try:  # a folder that can be listed but not searched (no x bit) fails here
            found = _entries(root, base, relative, sorted(dirnames), filenames)
        except OSError as error:
            skipped.append(SkippedFile(_shown(relative), f"cannot read folder: {error.strerror}"))
            dirnames[:] = []
            continue
        dirnames[:] = found.folders
        files += found.files
        skipped += found.skipped
        if not _DISTRIBUTION_FILES.isdisjoint(filenames):
            distributions.add(relative)
    files.sort(key=lambda source: source.path)
    skipped.sort(key=lambda skip: skip.path)
    return Discovery(files, skipped, distributions)


@dataclass(slots=True)
class _Entries:
    folders: list[str]
    files: list[SourceFile]
    skipped: list[SkippedFile]


def _entries(
    root: Path, base: Path, relative: str, dirnames: list[str], filenames: list[str]
) -> _Entries:
    """The folders to walk into, files to index and entries skipped of one folder.

    Raises:
        OSError: An entry cannot be examined (the folder is not searchable).
    """
    prefix = "" if relative == "." else relative + "/"
    found = _Entries([], [], [])
    for name in dirnames:
        if name.startswith(".") or name in IGNORED_DIRS:
            continue
        if _unencodable(name):
            found.skipped.append(SkippedFile(_shown(prefix + name), "folder " + _NOT_UTF8))
        elif (base / name).is_symlink():
            found.skipped.append(SkippedFile(prefix + name, _link_reason(base / name, root)))
        else:
            found.folders.append(name)
    for name in filenames:
        path = prefix + name
        if _unencodable(name):
            if name.endswith((".py", ".md")):
                found.skipped.append(SkippedFile(_shown(path), "file " + _NOT_UTF8))
            continue
        if name.endswith(".py"):
            kind = "python"
        elif is_decision_record(path):
            kind = "decision"
        else:
            continue
        location = base / name
        if location.is_symlink():
            found.skipped.append(SkippedFile(path, _link_reason(location, root)))
        elif not location.is_file():  # a FIFO or device would block or never end
            found.skipped.append(SkippedFile(path, "not a regular file; not read"))
        else:
            found.files.append(SourceFile(path, location, kind))
    return found


def decode_source(data: bytes) -> str:
    """Decode Python source bytes as the interpreter would (PEP 263 coding cookie, BOM).

    Raises:
        SyntaxError: If the coding cookie names an unknown encoding.
        UnicodeDecodeError: If the bytes are not valid in the declared encoding.
    """
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)
