"""What in a text names a file, not code: file names' suffixes and known names, and
the paths prose writes (``src/_pytest/pathlib.py:1038`` names a file, not the code
``_pytest``). Read by :mod:`~citeloop.grounding.mentions` and
:mod:`~citeloop.grounding.lacking`; scanning is linear.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from citeloop.grounding.links import is_host_name

FILE_SUFFIXES = frozenset(
    {"py", "pyi", "pyx", "md", "rst", "txt", "json", "toml", "yaml", "yml", "cfg", "ini"}
    | {"html", "htm", "js", "jsx", "ts", "tsx", "css", "csv", "sql", "sh", "lock", "log"}
    | {"xml", "ipynb", "go", "rs", "java", "kt", "c", "h", "cc", "cpp", "hpp", "rb", "php"}
    | {"swift", "scala", "png", "jpg", "jpeg", "gif", "svg", "pdf", "zip", "gz", "tar"}
    | {"whl", "so", "dll", "exe", "env", "db", "sqlite", "pkl", "npy", "parquet"}
)
"""Suffixes after which a dotted word outside backticks is a file name (``state.py``)."""
_MORE_FILE_SUFFIXES = frozenset(
    {"in", "cmake", "conf", "jsonl", "bat", "ps1", "mk", "j2", "jinja", "po", "pot", "typed"}
    | {"proto", "graphql", "tf", "bazel", "gradle", "plist", "scss", "vue", "ac", "am", "mod"}
)
"""Further suffixes of files an answer names in backticks (``MANIFEST.in``, ``py.typed``)."""
FILE_NAMES = frozenset(
    {"Makefile", "Dockerfile", "Containerfile", "Jenkinsfile", "Vagrantfile", "Procfile"}
    | {"Gemfile", "Rakefile", "Pipfile", "Justfile", "Snakefile", "Earthfile", "Tiltfile"}
    | {"GNUmakefile", "Podfile", "Brewfile", "LICENSE", "README", "CHANGELOG", "CODEOWNERS"}
)
"""Files known by a name without a suffix: build, container and project files."""


def is_file_suffix(word: str) -> bool:
    """Whether ``word`` is a file name suffix (``ps1``, ``toml``), in any case."""
    return word.lower() in FILE_SUFFIXES or word.lower() in _MORE_FILE_SUFFIXES


_PATH_RUN = re.compile(r"[\w.~/\\-]+")
"""A run of the characters a path is written with (one character class: linear)."""
_DOTTED_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)+")
"""A dotted name (``Request.args``), matched whole: a folder of a path is none, but for a
host's name (``github.com``)."""
_AFTER_OPERAND = ")]}"
"""What a division's ``/`` may follow (``sum(losses)/batch_size``): no path starts there."""


def in_file_path(segment: str) -> Callable[[int], bool]:
    r"""Whether an offset of ``segment`` (text outside code) is inside a path written as
    prose writes one: a run of path characters (letters, digits, ``_.-~/\``) with a
    ``/`` (or ``\``) that ends in a file name with a file's suffix
    (``src/_pytest/pathlib.py`` of ``src/_pytest/pathlib.py:1038``), or starts at the
    root (not right after a bracket: ``sum(losses)/batch_size`` divides), ``.``, ``..``
    or ``~`` (``./tools/x``), or at a host (``github.com/org/repo``), or ends with a
    ``/`` (``src/_pytest/``), and whose folders are no dotted names; not what follows
    the path in the same word (``::test_cookie``, ``:Flask.run``) or precedes it
    (``read_csv('``, ``ROOT=``), nor names a slash separates (``add_node/add_edge``,
    ``Request.args/Request.json``). Asked at increasing offsets: linear in the
    segment."""
    spans: list[tuple[int, int]] = []
    if "/" in segment or "\\" in segment:
        for run in _PATH_RUN.finditer(segment):
            start = run.start()
            after = segment[start - 1] if start else ""
            rooted = run.group()[0] == "/" and (not after or after not in _AFTER_OPERAND)
            if _is_path(run.group().replace("\\", "/").rstrip("."), rooted):
                spans.append(run.span())
    at = 0

    def inside(offset: int) -> bool:
        nonlocal at
        while at < len(spans) and spans[at][1] <= offset:
            at += 1
        return at < len(spans) and spans[at][0] <= offset

    return inside


def _is_path(run: str, rooted: bool) -> bool:
    """Whether ``run`` (``/`` its separator) is a path (:func:`in_file_path`); a ``/``
    it starts with is the root only when ``rooted``."""
    if "/" not in run or (run[0] == "/" and not rooted and "/" not in run[1:]):
        return False
    *folders, name = run.strip("/").split("/")
    # a host (`github.com/org/repo`), or a dotted first folder two more follow
    # (`readthedocs.io/en/latest/x.html`; `Request.args/Request.json` is two names)
    dotted = bool(folders) and "." in folders[0]
    host = dotted and (is_host_name(folders[0].split(".")) or len(folders) > 1)
    if any(_DOTTED_NAME.fullmatch(folder) for folder in folders[host:]):
        return False  # `Request.args/Request.json`: two names
    if host or run.startswith(("./", "../", "~/")) or run.endswith("/"):
        return True
    if run[0] == "/" and rooted:
        return True
    return is_file_suffix(name.rpartition(".")[2]) if "." in name else name in FILE_NAMES
