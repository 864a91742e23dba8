"""What an answer's body claims beyond its citation list: the code names it uses, the
locations its citations give, and whether it says the context was not enough.

Four checks of :class:`~citeloop.grounding.GraphContextValidator`:

- **Grounded names.** Each code-shaped name of the body
  (:func:`~citeloop.grounding.mentions.answer_mentions`) must be *grounded*: a
  context entity, a name the prompt (task, payload, context text) contains (a
  compound mixed-case one, ``MySQL``, also in another case, or as a word of one of its
  identifiers or paths: ``dialect_mysql.py``), or a name of Python itself (builtins,
  keywords, dunders, the standard library's modules and what is dotted onto them:
  ``os.path.join``, and the public names of the most used ones: ``TypedDict``,
  ``Path``, and of one the answer writes dotted or its prompt imports:
  ``encodebytes`` beside ``base64.b64encode``). For a dotted name, a leading
  ``self.``/``cls.`` is dropped and the last part decides, together with the first
  part when it looks like a class (``FakeGraph.compile``); a name pattern
  (``Graph.attach_*``) is checked by what it is dotted onto; a last part that is a method
  of a builtin type (``self._nodes.items``) is Python's. Names the answer's own code
  examples define (:func:`~citeloop.grounding.mentions.defined_in_code`) are grounded
  too. A name of one letter (`` `d` ``, `` `X` ``: a variable, an index, a term of a
  formula; of a dotted one, a last part of one letter, ``g.x`` as an example of
  attribute syntax) is never held against the answer, nor one its prose proposes as new code
  ("a new `test_1_cases`": :mod:`~citeloop.grounding.proposals`) when nothing grounds
  it; of a dotted one, only the last part is new ("a new `Session.retry_once()`
  method" still claims the class `Session`). An ungrounded name the
  knowledge graph has is *in the graph* (the next widening can bring it in); one it
  has not is *invented*, unless it is an SQL key word or an HTTP method written alone
  (`` `LIMIT` ``, `` `GET` ``: :data:`_NOT_CODE_WORDS`), the name of an identifier
  style (camelCase, snake_case: :data:`_NAMING_STYLES`), a nested-parameter key
  (``lr__C``: :func:`_nested_key`), a file name
  (`` `pyproject.toml` ``, `` `Makefile` ``:
  :func:`~citeloop.grounding.mentions.is_file_name`), a compound mixed-case name
  whose lower case the graph has (``NumPy``, ``SciPy``: a library the code imports is
  a graph name, ``numpy``, and prose writes it so), or a name the code calls of another
  library (``add_argument`` of ``parser.add_argument(...)``: :data:`CALLED`), which is
  grounded. A CamelCase word of prose ending in ``s`` (or ``es``: ``MultiIndexes``)
  is judged as its singular when that is grounded, in the graph or one of those terms
  (``DataFrames``, ``NaNs``).
- **Locations.** A citation's ``path:line`` or ``path:start-end`` is valid when the
  path is the file of a context entity of that name (the same path, or one ends with
  the other at a ``/``) and every cited line lies inside that entity's span.
- **Insufficient context.** A body that says the context lacks what the answer needs
  asks for more context, however it goes on (:mod:`~citeloop.grounding.sayings`).
- **Prose.** A body of nothing but headings and lists of names (a citation list given
  twice, no answer) says nothing (:func:`only_lists`).

Everything is linear in the length of the answer and the prompt.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import importlib.util
import keyword
import re
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from citeloop.grounding.context_text import Place
from citeloop.grounding.mentions import (
    Mention,
    answer_code,
    identifier_words,
    is_file_name,
    same_file,
)
from citeloop.grounding.proposals import proposed_names
from citeloop.markdown import atx_heading, lines_of, list_item

GraphNames = Collection[str] | Callable[[str], bool]
"""The knowledge graph's entity names: a collection, or a predicate (a store lookup).
A name with :data:`CALLED` before it is one the code calls that no entity has."""

CALLED = "?"
"""Marks, among the graph's names, a name the indexed code calls that no definition of
the graph has (``?add_argument``: argparse's, of ``parser.add_argument(...)``): an
answer that names it describes the code's use of another library, and invents nothing."""

_COMMON_STDLIB = (
    "abc", "asyncio", "collections", "collections.abc", "concurrent.futures", "contextlib",
    "dataclasses", "datetime", "enum", "functools", "inspect", "itertools", "json",
    "logging", "operator", "os", "pathlib", "queue", "re", "threading", "types", "typing",
    "uuid", "weakref",
)  # fmt: skip


_CORE_PYTHON = (
    frozenset(dir(builtins))
    | frozenset(keyword.kwlist)
    | frozenset(keyword.softkwlist)
    | frozenset(sys.stdlib_module_names)
    | {"self", "cls"}
)
"""Builtins, keywords, standard-library modules, ``self`` and ``cls``."""


_NAMED_STDLIB = frozenset(
    (
        *_COMMON_STDLIB,
        "argparse", "array", "ast", "base64", "binascii", "bisect", "calendar", "codecs",
        "configparser", "contextvars", "copy", "csv", "decimal", "difflib", "errno",
        "fnmatch", "fractions", "glob", "gzip", "hashlib", "heapq", "hmac", "html",
        "io", "ipaddress", "locale", "math", "mimetypes", "numbers", "pickle",
        "platform", "pprint", "random", "secrets", "shlex", "shutil", "socket",
        "sqlite3", "ssl", "stat", "statistics", "string", "struct", "subprocess",
        "tempfile", "textwrap", "time", "tokenize", "traceback", "unicodedata",
        "warnings", "zipfile", "zlib",
        "email.message", "email.utils", "http.client", "http.cookiejar", "http.cookies",
        "importlib.metadata", "importlib.util", "logging.handlers", "os.path",
        "unittest.mock", "urllib.error", "urllib.parse", "urllib.request",
        "xml.etree.ElementTree",
    )
)  # fmt: skip
"""Standard-library modules in common use (a few submodules too: ``urllib.parse``),
whose public names are read by importing them (:func:`_public_names`): each only from
the standard library's own folder, and none of them acts on import (as ``antigravity``
does). An answer may write the public names of a standard-library module alone once it
writes the module dotted in its code (`` `base64.b64encode` `` beside "the legacy
`` `encodebytes` ``": a played answer was failed for the second) or its prompt imports
it in code (``import base64``, ``from base64 import b64encode``); a module not listed
here is read from its source (:func:`_source_names`)."""

_IMPORTED = re.compile(
    r"(?m)^[ \t]*(?:\d+[ \t]*\|[ \t]*)?(?:import[ \t]+([a-z_]\w*(?:\.\w+)*)"
    r"|from[ \t]+([a-z_]\w*(?:\.\w+)*)[ \t]+import\b)"
)
"""An import statement's module, at the start of a line or of a numbered source line
(``  12 | import base64``): prose ("built from numbers") imports nothing. Linear: each
alternative is a fixed sequence of bounded runs."""
_FILE_SUFFIXES = frozenset({"py", "pyi", "pyx", "txt", "cfg", "toml", "ini", "json", "md"})
"""A dotted name's last part that makes it a file's name (``calc/ast.py``), not code."""


def named_stdlib(mentions: Iterable[Mention], prompt: Iterable[str] = ()) -> frozenset[str]:
    """The standard-library modules (:func:`_named_modules`) that ``mentions`` (an
    answer's code names) write dotted (``base64.b64encode``, not ``ast.py``), or that
    ``prompt`` imports in code."""
    found = set()
    for mention in mentions:
        parts = mention.name.split(".")
        if len(parts) > 1 and parts[-1] not in _FILE_SUFFIXES:
            found.update(_named_modules(parts[:-1]))
    for text in prompt:
        for imported, source in _IMPORTED.findall(text):
            found.update(_named_modules((imported or source).split(".")))
    return frozenset(found)


def _named_modules(parts: Sequence[str]) -> Iterator[str]:
    """The standard-library modules the dotted ``parts`` may begin with (``http``,
    ``cookiejar`` gives ``http`` and ``http.cookiejar``): those of :data:`_NAMED_STDLIB`,
    and any whose first part is a standard-library module's name, each part a name."""
    if not parts or parts[0] not in sys.stdlib_module_names:
        return
    for end in range(1, min(len(parts), 3) + 1):
        if all(part.isidentifier() for part in parts[:end]):
            yield ".".join(parts[:end])


@functools.cache
def _from_stdlib(module: str) -> bool:
    """Whether ``module`` is found in the standard library's folder (or built in), not
    in a file of the working folder that shadows it (``statistics.py``)."""
    if module in sys.modules:
        return True
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    if spec is None or spec.origin is None:
        return False
    if spec.origin in ("built-in", "frozen"):
        return True
    import sysconfig  # only when an answer names a module not imported yet

    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    return Path(spec.origin).resolve().is_relative_to(stdlib)


@functools.cache
def _public_names(module: str) -> frozenset[str]:
    """The public names of standard-library ``module``: of one of :data:`_NAMED_STDLIB`,
    imported (none when a file of another folder would be imported under its name); of
    another, read from its source in the standard library's folder without running it
    (:func:`_source_names`)."""
    if module not in _NAMED_STDLIB:
        return _source_names(module)
    if not _from_stdlib(module):
        return frozenset()
    return frozenset(name for name in dir(importlib.import_module(module)) if name[:1] != "_")


@functools.cache
def _source_names(module: str) -> frozenset[str]:
    """The public names the source of standard-library ``module`` (its ``.py`` file, or
    its package's ``__init__.py``, in the standard library's folder) defines, assigns or
    imports at its top level, read with :mod:`ast` and never run (``antigravity`` opens
    a browser when imported); none when there is no such file or it does not parse."""
    import ast  # only when an answer names a module of no common use
    import sysconfig

    base = Path(sysconfig.get_paths()["stdlib"]).joinpath(*module.split("."))
    file = next((f for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()), None)
    if file is None:
        return frozenset()
    try:
        tree = ast.parse(file.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
    return frozenset(name for name in names if name[:1] != "_" and name != "*")


@functools.lru_cache(maxsize=4096)
def _is_python(name: str) -> bool:
    """Whether ``name`` is Python's own: in :data:`_CORE_PYTHON`, or a public name of
    the modules code uses most (``TypedDict``, ``dataclass``, ``Path``). Those modules
    are read, the ones already imported first, only for a name none of the others has:
    importing them all costs tens of milliseconds (``asyncio`` alone about 25), which
    an answer whose names are all grounded never pays."""
    if name in _CORE_PYTHON:
        return True
    modules = sorted(_COMMON_STDLIB, key=lambda module: module not in sys.modules)
    return any(name in _public_names(module) for module in modules)


_BUILTIN_METHODS = frozenset(
    name
    for kind in (dict, list, set, frozenset, tuple, str, bytes, int, float)
    for name in dir(kind)
    if not name.startswith("_")
)
"""Methods of the builtin types: the last part of ``self._nodes.items`` names one."""
_RECEIVERS = ("self", "cls")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")


def prompt_names(texts: Iterable[str]) -> frozenset[str]:
    """Every identifier (each part of a dotted one) written in ``texts``."""
    return frozenset(name for text in texts for name in _IDENTIFIER.findall(text))


def prompt_words(names: Iterable[str]) -> frozenset[str]:
    """The :func:`prompt_names` lower-cased, whole and split into words: the words that
    ground a compound name of the answer written in another case (``MySQL`` beside
    ``dialect_mysql.py``, ``BigQuery`` beside ``bigquery``, ``NumPy`` beside
    ``NumpyDocstring``: a played answer's "NumPy style" had been called invented)."""
    return frozenset(word for name in names for word in (name.lower(), *identifier_words(name)))


def _compound(part: str) -> bool:
    """A name of two or more words in mixed case (``MySQL``, ``BigQuery``; not ``Node``,
    whose lower case is the word of many an identifier: ``add_node``)."""
    return part.lower() != part != part.upper() and len(identifier_words(part)) > 1


def _part_of(part: str, names: Iterable[str]) -> bool:
    """Whether a compound ``part`` (``AfterFinish``) is the first or last words of a
    longer name of ``names`` (``NamedBarrierValueAfterFinish``): a played answer wrote
    'the "AfterFinish" variant' of the channel classes its context showed, no name of
    its own."""
    size = len(part)
    for name in names:
        if len(name) <= size:
            continue
        if name.endswith(part) and (name[-size - 1].islower() or name[-size - 1] in "_0123456789"):
            return True
        if name.startswith(part) and (name[size].isupper() or name[size] == "_"):
            return True
    return False


_SQL_KEY_WORDS = (
    "SELECT FROM WHERE GROUP ORDER BY HAVING LIMIT OFFSET FETCH TOP JOIN INNER OUTER LEFT "
    "RIGHT FULL CROSS NATURAL ON USING UNION INTERSECT EXCEPT MINUS INSERT INTO VALUES "
    "UPDATE SET DELETE MERGE UPSERT TRUNCATE CREATE ALTER DROP TABLE VIEW INDEX SCHEMA "
    "DATABASE WITH RECURSIVE AS DISTINCT AND OR NOT NULL IS IN BETWEEN LIKE ILIKE EXISTS "
    "ALL ANY SOME CASE WHEN THEN ELSE END CAST QUALIFY WINDOW OVER PARTITION ROWS RANGE "
    "PRECEDING FOLLOWING UNBOUNDED CURRENT ROW RETURNING PRIMARY FOREIGN KEY REFERENCES "
    "UNIQUE CHECK DEFAULT CONSTRAINT COLLATE ASC DESC NULLS FIRST LAST BEGIN COMMIT "
    "ROLLBACK TRANSACTION GRANT REVOKE LATERAL PIVOT UNPIVOT ESCAPE INTERVAL"
)
"""SQL key words (ISO/IEC 9075 and common dialects) an answer about queries writes."""
_HTTP_METHODS = "GET HEAD POST PUT DELETE CONNECT OPTIONS TRACE PATCH"
"""HTTP methods (RFC 9110, RFC 5789)."""
_NOT_CODE_WORDS = frozenset(f"{_SQL_KEY_WORDS} {_HTTP_METHODS}".split())
"""Upper-case words that name no code in an answer: SQL key words and HTTP methods
(`` `LIMIT` ``, `` `GET` ``). An invented constant (`` `TIMEOUT` ``) is not among them."""
_NAMING_STYLES = (
    "camelCase lowerCamelCase CamelCase UpperCamelCase PascalCase snake_case "
    "SCREAMING_SNAKE_CASE UPPER_SNAKE_CASE UPPER_CASE CONSTANT_CASE"
)
"""The names of identifier styles, which an answer about names writes ("the camelCase
key of `drag_operations_mask`"): written as they describe, they name no code."""
_MISSING_VALUES = "NaN NaT"
"""The names of the not-a-number (IEEE 754) and not-a-time (NumPy) values, which prose
about numeric code writes ("checks for NaNs")."""
_TERMS = _NOT_CODE_WORDS | frozenset(f"{_NAMING_STYLES} {_MISSING_VALUES}".split())
"""Names an answer writes alone that are no code: :data:`_NOT_CODE_WORDS`,
:data:`_NAMING_STYLES` and :data:`_MISSING_VALUES`."""


_VERSION_SEGMENT = re.compile(r"(?:a|b|c|rc|alpha|beta|pre|preview|post|rev|r|dev)\d{1,9}")
"""A pre-, post- or development-release segment of a version (``post0``, ``dev0``,
``rc1``; PEP 440's spellings): a version, not code (a played answer was rejected for
writing `post0` about a version string)."""


_MATH_SYMBOL = re.compile(r"[^\W\d_](?:_[^\W_]{1,2})?|[^\W\d_]{2,4}_[ijkmn]")
"""A mathematical symbol an explanation writes: one letter (`` `j` ``, `` `x` ``), or
one with a subscript in TeX's ``_`` notation (`` `B_j` `` in `` `S(x) = Σ_j c_j B_j(x)`
``, `` `x_0` ``, `` `w_ij` ``), or a short function's name with an index (`` `cos_j` ``,
`` `sin_j` ``): an index or a term of a formula, not code (played answers were rejected
for writing a spline's basis functions as `B_j`, and a Fourier feature's as `cos_j`)."""


_INDEXED_FAMILY = re.compile(r"[A-Z][A-Z0-9_]*[A-Z][ijkmn]")
"""A family of upper-case names written with a lower-case index letter (`` `NAXISn` ``
for ``NAXIS1``, ``NAXIS2``, ...; `` `TFORMn` ``, `` `CRPIXj` ``: how the FITS standard
writes its numbered keywords): a notation, not code (a played answer was rejected
for `NAXISn` where the code builds ``"NAXIS" + str(idx + 1)``)."""


_ESCAPED_BYTE = re.compile(r"_(?:[0-9][0-9A-Fa-f]|[A-Fa-f][0-9])")
"""A byte written as an escape makes it, an underscore and two hexadecimal digits, one
of them a digit (`` `_2F` `` for ``/``, `` `_3A` `` for ``:``, as Django's admin
``quote`` writes them): a value, not code (a played answer that wrote "`/` → `_2F`"
was rejected for inventing six names)."""


_NOT_CODE_SHAPES = (_VERSION_SEGMENT, _MATH_SYMBOL, _INDEXED_FAMILY, _ESCAPED_BYTE)
"""Names written alone that are no claim about the code base, by their shape."""


def _nested_key(name: str) -> bool:
    """Whether ``name`` is a key of a nested-parameter or lookup syntax, two names joined
    by ``__`` (scikit-learn's ``lr__C`` for ``C`` of the step ``lr``, Django's
    ``name__startswith``): no entity's name (a played answer was rejected for writing
    ``lr__C`` about ``set_params``). A private name (``_Class__attr``, as name mangling
    writes it) is not one."""
    return "__" in name and not name.startswith("_") and name.isidentifier()


def _prose_plural(mention: Mention) -> bool:
    """Whether ``mention`` may be the plural prose makes of a name: one CamelCase or
    snake_case word outside backticks ending in one ``s`` (``NaNs``, ``DataFrames``,
    ``cpp_infos``; played answers were failed for "checks for NaNs" beside
    `` `np.nan` `` and for "Which cpp_infos count" beside ``for cpp_info in ...``)."""
    name = mention.name
    return (
        mention.form in ("camel", "underscore")
        and len(name) > 2
        and name.endswith("s")
        and name[-2].isalpha()
        and name[-2] != "s"
    )


_ES_PLURALS = ("xes", "ses", "zes", "ches", "shes")
"""Endings of an English plural in ``es`` (``MultiIndexes``, ``Matches``): its singular
drops the two letters (a played answer was failed for "including MultiIndexes")."""


def _looks_like_class(part: str) -> bool:
    return part[:1].isupper() and any(char.islower() for char in part)


def _is_dunder(part: str) -> bool:
    return len(part) > 4 and part.startswith("__") and part.endswith("__")


@dataclass(frozen=True, slots=True)
class UngroundedNames:
    """The body's code names that are not grounded, as written, in order.

    Attributes:
        in_graph: Names the knowledge graph has (not in the context or prompt).
        invented: Names nothing has: neither the context, the prompt, Python, nor the
            graph (every ungrounded name, when no graph is given).
    """

    in_graph: tuple[str, ...] = ()
    invented: tuple[str, ...] = ()


def _in_graph(graph: GraphNames | None) -> Callable[[str], bool]:
    if graph is None:
        return lambda name: False
    if callable(graph):
        return graph
    if isinstance(graph, str | bytes):  # `in` would match any part of it
        raise TypeError(
            f"graph_names must be a collection of names or a predicate, not a "
            f"{type(graph).__name__}; wrap one name in a set: {{{graph!r}}}"
        )
    if not isinstance(graph, Collection):
        raise TypeError(
            f"graph_names must be a collection of names or a predicate, not a "
            f"{type(graph).__name__}; pass a set of names, or name in graph as a function"
        )
    return graph.__contains__


def ungrounded_names(
    body: str,
    grounded: Collection[str],
    graph: GraphNames | None = None,
    *,
    prompt: Sequence[str] = (),
    code: tuple[Sequence[Mention], frozenset[str]] | None = None,
) -> UngroundedNames:
    """The code names of ``body`` that are not grounded (see the module docstring).

    Args:
        body: The answer without its citation section.
        grounded: Names that are grounded: the context's entity names.
        graph: The knowledge graph's names, or ``None``.
        prompt: Texts whose identifiers are grounded too (:func:`prompt_names`); read
            only when a name is not grounded otherwise.
        code: ``answer_code(body)`` when the caller has it (it is not read again).

    Returns:
        The ungrounded names, split by whether the graph has them.
    """
    has = _in_graph(graph)
    mentions, own = answer_code(body) if code is None else code
    written: frozenset[str] | None = None
    words: frozenset[str] | None = None
    proposed: frozenset[str] | None = None  # read once, when a name would be invented
    modules: frozenset[str] | None = None  # the standard library's the texts name

    def ungrounded(part: str) -> bool:
        nonlocal written, words
        if part in grounded or part in own or _is_dunder(part):
            return False
        if prompt:
            written = prompt_names(prompt) if written is None else written
            if part in written:
                return False
            if _compound(part):
                words = prompt_words(written) if words is None else words
                if part.lower() in words or _part_of(part, written):
                    return False
        # `NumPy`, `SciPy`: a library the code imports (`?numpy`), written as prose does.
        if _compound(part) and has(part.lower()):
            return False
        # `add_argument`: another library's API the code calls (`parser.add_argument`)
        return not has(CALLED + part)

    in_graph: list[str] = []
    invented: list[str] = []
    for mention in mentions:  # every claim, not the first 200
        parts = mention.name.split(".")
        receivers = next((at for at, part in enumerate(parts) if part not in _RECEIVERS), None)
        if receivers is None:
            continue
        parts = parts[receivers:]  # one slice: a long `self.self.…` chain stays linear
        checked = [parts[-1]]
        if len(parts) > 1 and _looks_like_class(parts[0]):
            checked.append(parts[0])
        missing = [part for part in checked if ungrounded(part)]
        if missing and _prose_plural(mention):  # `NaNs`, `DataFrames`: prose's plurals
            # `MultiIndexes`, `Matches`: an "es" plural of a name ending in x, s, z, ch, sh
            name = mention.name
            singulars = [name[:-1], *([name[:-2]] if name.endswith(_ES_PLURALS) else [])]
            if any(one in _TERMS or not ungrounded(one) for one in singulars):
                continue
            if graph_one := next((one for one in singulars if has(one)), None):
                in_graph.append(graph_one)
                continue
        if len(parts) > 1 and parts[-1] in _BUILTIN_METHODS and parts[0] not in missing:
            continue  # `self._nodes.items()`, `config.get`
        if not missing or _is_python(parts[0]):
            continue  # `dict.items`, `os.path.join`, `ValueError`, `None`
        if len(parts) == 1 and not receivers:  # `encodebytes` beside `base64.b64encode`
            modules = named_stdlib(mentions, prompt) if modules is None else modules
            if any(parts[0] in _public_names(module) for module in modules):
                continue
        if not receivers and is_file_name(mention, missing) and not has(parts[-1]):
            continue  # `pyproject.toml`, `CMakeLists.txt`, `Makefile`: files, not code
        if all(len(part) == 1 for part in missing):
            continue  # `d`, `X`, `g.x`: a variable, an index, a formula's term, an example
        if all(has(part) for part in missing):
            in_graph.append(mention.name)
        elif (
            mention.name not in _TERMS
            and not _nested_key(mention.name)
            and not any(shape.fullmatch(mention.name) for shape in _NOT_CODE_SHAPES)
        ):
            proposed = proposed_names(body) if proposed is None else proposed
            if mention.name not in proposed:  # "a new `test_1_cases`" claims no code
                invented.append(mention.name)  # `LIMIT`, `GET`, camelCase, not `self.LIMIT`
            elif len(checked) > 1 and checked[1] in missing:
                # "a new `Session.retry_once()` method": a new method of a class it claims
                if has(checked[1]):
                    in_graph.append(checked[1])
                else:
                    invented.append(mention.name)
    return UngroundedNames(tuple(dict.fromkeys(in_graph)), tuple(invented))


def location_valid(path: str, start: int, end: int, places: Iterable[Place]) -> bool:
    """Whether lines ``start``-``end`` of ``path`` lie inside one of ``places``."""
    if start < 1 or end < start:
        return False
    return any(
        same_file(path, place.path) and place.start <= start and end <= place.end
        for place in places
    )


_NAME_PART = re.compile(r"\w+")
_TOKEN_EDGES = "`*_~\"'()[]{}<>#|>-–—:;,.!?…"
_LIST_WORDS = frozenset(
    {"entities", "entity", "used", "cited", "citation", "citations", "references"}
    | {"referenced", "sources", "source", "and", "or", "the", "see", "line", "lines"}
)


def only_lists(body: str, names: Collection[str]) -> bool:
    """Whether ``body`` is lists of names and nothing else: it has a list item or a
    heading, and no prose (:func:`has_prose`). A citation list given twice is; a short
    body that names an entity in a sentence fragment (``GraphStore.``) is not."""
    if has_prose(body, names):  # in an answer, decided by its first word
        return False
    return any(
        list_item(stripped) is not None or atx_heading(stripped) is not None
        for stripped in map(str.strip, lines_of(body))
    )


def has_prose(body: str, names: Collection[str]) -> bool:
    """Whether ``body`` says anything beyond names: a word that is no part of a context
    name, no path or location (``a/b.py``, ``x.py:12``) and no word of a list label
    (``Entities used``). A body made of headings and lists of names (a citation list
    given twice) has none. Stops at the first such word: in an answer, its first word.
    """
    parts: set[str] | None = None
    for token in body.split():
        word = token.strip(_TOKEN_EDGES)
        if not any(char.isalpha() for char in word) or any(char in word for char in "/.:#@"):
            continue
        if word.lower() in _LIST_WORDS:
            continue
        if word in names:
            continue
        if parts is None:  # the words of names that are more than one word (`Owner.run`)
            parts = {
                part
                for name in names
                if not name.isidentifier()
                for part in _NAME_PART.findall(name)
            }
        if word not in parts:
            return True
    return False
