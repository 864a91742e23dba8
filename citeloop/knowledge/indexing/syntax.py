"""Parse Python source that may use syntax newer than the running interpreter.

The indexer reads code with the stdlib :mod:`ast` module of the interpreter it runs on, and
that interpreter (CPython 3.11 at the oldest) is often older than the code it reads. When
``ast.parse`` rejects a file, :func:`parse_source` *lowers* the newer constructs into 3.11
syntax that means the same for indexing, keeping every statement on its original line, and
parses that instead:

* PEP 695 (3.12) and PEP 696 (3.13) type parameter lists on ``class`` and ``def`` are removed
  and their text is kept in :attr:`ParsedSource.type_params`.
* PEP 695 ``type X[T] = ...`` statements become ``X = ...`` (:attr:`ParsedSource.type_aliases`).
* PEP 701 (3.12) f-strings and PEP 750 (3.14) t-strings that this interpreter cannot read
  become an empty f-string spanning the same lines; the expressions inside are dropped.
* PEP 758 (3.14) ``except A, B:`` gets its parentheses back: ``except (A, B):``.
* PEP 810 (3.15) ``lazy import x`` and ``lazy from m import x`` lose the ``lazy``.

String literals are located with tree-sitter-python, whose scanner understands PEP 701 and
PEP 750; everything else is found with the stdlib :mod:`tokenize`, which reads the rest exactly
once those literals are gone (tree-sitter's 0.25 grammar does not know PEP 696 defaults).
Every pass is linear in the size of the source. Whatever lowering cannot repair leaves the
original ``SyntaxError`` to be raised, so a real error is reported where ``ast`` found it
(or, when a real mistake keeps ``tokenize``, so lowering, from reading the file, an unclosed
bracket say, where ``tokenize`` found it, if that is further on than ``ast``'s error: that one
then most likely stands at newer syntax before it).
Removed type parameter lists are checked first; the expressions inside a replaced literal are
checked only as far as tree-sitter's grammar checks them.

Example:
    >>> parsed = parse_source("type Pair[T] = tuple[T, T]\\nclass Box[T = int]: ...\\n", "p.py")
    >>> [(type(node).__name__, node.lineno) for node in parsed.tree.body][1]
    ('ClassDef', 2)
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import itertools
import keyword
import re
import sys
import tokenize
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import tree_sitter
import tree_sitter_python

__all__ = ["ParsedSource", "parse_source"]

_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")
_TRIVIA = frozenset({tokenize.COMMENT, tokenize.NL})
_STATEMENT_END = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})
_COMPOUND = frozenset(
    {"if", "elif", "else", "while", "for", "try", "except", "finally", "with", "class", "def"}
    | {"async", "case"}
)
# A quote after an f or t prefix letter (optionally followed by r): the only place a literal
# this interpreter may not read can start. Plain literals never need lowering.
_NEW_LITERAL_HINT = re.compile(r"[fFtT][rR]?[\"']")
_PREFIX_LETTERS = b"rRbBuUfFtT"
_NEW_PREFIXES = frozenset({b"f", b"fr", b"rf", b"t", b"tr", b"rt"})  # lower case
_NO_TYPE_PARAMS: Mapping[int, str] = MappingProxyType({})
# CPython 3.12.0-3.12.3 tokenize is quadratic in the length of a line (gh-119118); there,
# lowering gives up on longer lines rather than take minutes over a pathological one.
_LONGEST_LINE = 10_000 if (3, 12) <= sys.version_info < (3, 12, 4) else None


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """A parsed module and what lowering removed from it.

    Attributes:
        tree: The module's syntax tree; line numbers are those of the original source.
        type_params: Line of a ``class``/``def``/``type`` statement (the line of the lowered
            node's ``lineno``) to the type parameter list lowering removed, with normalised
            whitespace, e.g. ``"[T: int = str]"``. Empty when the source parsed natively.
        type_aliases: Lines of ``type X = ...`` statements lowered to ``X = ...``.
        lowered: True when the source needed lowering to parse. Lowering keeps every
            line and, on lines that define something, every column: the tree's positions
            are those of the original source.
    """

    tree: ast.Module
    type_params: Mapping[int, str]
    type_aliases: frozenset[int]
    lowered: bool


class _Unlowerable(Exception):
    """Lowering cannot repair the source; the original ``SyntaxError`` stands, unless
    ``at`` (message, line, 0-based column) is a real mistake found on a later line."""

    def __init__(self, reason: str, at: tuple[str, int, int] | None = None) -> None:
        super().__init__(reason)
        self.at = at


def parse_source(source: str, path: str) -> ParsedSource:
    """Parse ``source``, lowering syntax newer than the running interpreter when needed.

    Args:
        source: The decoded source text.
        path: The file name reported in syntax errors.

    Returns:
        The syntax tree, with what lowering removed; ``lowered`` is False when
        ``ast.parse`` read the source as it is.

    Raises:
        SyntaxError: A real error: the one ``ast.parse`` raised for the lowered source
            (same lines), or for the original source when there was nothing to lower or
            it cannot be lowered (syntax this module does not know).
        ValueError: If ``ast.parse`` raises it (null bytes, on older interpreters).
        RecursionError: If ``ast.parse`` raises it for a too deeply nested tree.
        MemoryError: If ``ast.parse`` raises it (CPython's parser does on deep nesting).
    """
    try:
        tree = ast.parse(source, filename=path)
        return ParsedSource(tree, _NO_TYPE_PARAMS, frozenset(), False)
    except SyntaxError as error:
        original = error
    try:
        return _parse_lowered(source, path)
    except _Unlowerable as stop:
        raise _first_error(source, path, original, stop) from None
    except SyntaxError as error:
        # Lowering keeps every line, so this error is at the real mistake; the original
        # one may be at newer syntax that comes before it.
        raise error from None


def _first_error(source: str, path: str, original: SyntaxError, stop: _Unlowerable) -> SyntaxError:
    """The error to report when lowering cannot repair ``source``: ``original`` (the one
    ``ast.parse`` raised), unless what stopped lowering is a real mistake ``tokenize``
    found on a later line (an unclosed bracket or string, a bad dedent): ``original``
    then most likely stands at newer syntax before it, and the error moves there, its
    message naming where this Python stopped."""
    if stop.at is None or original.lineno is None or stop.at[1] <= original.lineno:
        return original
    message, line, column = stop.at
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    text = lines[line - 1] if line <= len(lines) else ""
    version = ".".join(map(str, sys.version_info[:2]))
    message += f"; Python {version} stops earlier, at line {original.lineno}: {original.msg}"
    return SyntaxError(message, (path, line, column + 1, text))


def _parse_lowered(source: str, path: str) -> ParsedSource:
    """Lower ``source`` line for line into syntax this interpreter reads, and parse that.

    Literals go first; when they were all the file needed, the token pass is skipped.
    """
    if "\0" in source:  # never valid, and tokenize on 3.12+ fails on it with SystemError
        raise _Unlowerable("null byte")
    # ast reads "\r\n" and a lone "\r" as line ends; tokenize and tree-sitter then agree.
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    if _NEW_LITERAL_HINT.search(text):
        replaced = _replace_strings(text)
        if replaced != text:
            with contextlib.suppress(SyntaxError):
                tree = ast.parse(replaced, filename=path)
                return ParsedSource(tree, _NO_TYPE_PARAMS, frozenset(), True)
            text = replaced
    scanner = _TokenScanner(text)
    lowered = scanner.lower()
    if lowered == text:
        raise _Unlowerable("nothing left to lower")
    if lowered.count("\n") != text.count("\n"):  # pragma: no cover - guards line numbers
        raise _Unlowerable("lowering moved lines")
    tree = ast.parse(lowered, filename=path)
    params, aliases = MappingProxyType(scanner.type_params), frozenset(scanner.type_aliases)
    return ParsedSource(tree, params, aliases, True)


@functools.cache
def _python() -> tree_sitter.Language:
    """The tree-sitter Python grammar (parsers are made per call: they are not thread-safe)."""
    return tree_sitter.Language(tree_sitter_python.language())


def _replace_strings(text: str) -> str:
    """Replace each f-/t-string literal this interpreter cannot read by an f-string of blanks.

    PEP 701 lets replacement fields reuse the enclosing quote, hold backslashes, comments and
    line breaks; PEP 750 adds the ``t`` prefix. The placeholder spans as many lines as the
    literal, so later lines keep their numbers, and is a ``JoinedStr`` like the original,
    never mistaken for a docstring.

    Raises:
        _Unlowerable: If a literal to replace holds a real syntax error.
    """
    data = text.encode("utf-8", "surrogatepass")
    tree = tree_sitter.Parser(_python()).parse(data)
    pieces, done = [], 0
    for node in _outermost_strings(tree):
        literal = data[node.start_byte : node.end_byte]
        prefix = literal[: len(literal) - len(literal.lstrip(_PREFIX_LETTERS))].lower()
        if (b"f" not in prefix and b"t" not in prefix) or _readable(literal):
            continue
        if prefix not in _NEW_PREFIXES:  # tree-sitter also takes "bf", "tf", ...
            raise _Unlowerable("invalid string prefix")
        triple = literal[len(prefix) : len(prefix) + 3] in (b'"""', b"'''")
        if node.has_error or (not triple and _stray_line_break(node, data)):
            raise _Unlowerable("syntax error inside a string literal")
        placeholder = _placeholder(literal)
        if data[node.end_byte : node.end_byte + 1] in (b'"', b"'"):
            placeholder += b" "  # keep an adjacent literal from extending the quotes
        pieces += [data[done : node.start_byte], placeholder]
        done = node.end_byte
    pieces.append(data[done:])
    return b"".join(pieces).decode("utf-8", "surrogatepass")


def _placeholder(literal: bytes) -> bytes:
    """An f-string of blanks with the literal's lines and, where it fits, its width on
    the last line, so that the code after it keeps its columns (byte columns, as
    ``ast`` counts them) and the node spans the literal (a signature cuts its default
    from the source by the node's columns)."""
    lines = literal.count(b"\n")
    if not lines:
        return b'f"' + b" " * (len(literal) - 3) + b'"'
    width = len(literal) - literal.rfind(b"\n") - 1
    return b'f"""' + b"\n" * lines + b" " * max(width - 3, 0) + b'"""'


def _outermost_strings(tree: tree_sitter.Tree) -> Iterator[tree_sitter.Node]:
    """The ``string`` nodes not inside another string, in source order, walked iteratively."""
    cursor = tree.walk()
    while True:
        if cursor.node.type == "string":
            yield cursor.node
        elif cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _stray_line_break(node: tree_sitter.Node, data: bytes) -> bool:
    """Whether a single-quoted f-/t-string breaks a line in its text, outside any field.

    PEP 701 allows line breaks in single-quoted f-strings inside replacement fields only; in
    the text they must be escaped by a backslash, as in any single-quoted literal.
    """
    for part in (child for child in node.children if child.type != "interpolation"):
        text = data[part.start_byte : part.end_byte]
        at = text.find(b"\n")
        while at != -1:
            escapes = at
            while escapes and text[escapes - 1] == ord("\\"):
                escapes -= 1
            if (at - escapes) % 2 == 0:
                return True
            at = text.find(b"\n", at + 1)
    return False


def _readable(literal: bytes) -> bool:
    """Whether this interpreter parses the string literal on its own."""
    try:
        ast.parse(literal.decode("utf-8", "surrogatepass"), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return True


class _TokenScanner:
    """One pass over the tokens of literal-free source, collecting line-preserving edits."""

    def __init__(self, text: str) -> None:
        lines = text.split("\n")
        if _LONGEST_LINE and max(map(len, lines)) > _LONGEST_LINE:
            raise _Unlowerable("line too long for this version of tokenize")
        self.line_starts = [0, *itertools.accumulate(len(line) + 1 for line in lines)]
        tokens: list[tokenize.TokenInfo] = []
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type not in _TRIVIA:
                    tokens.append(token)
        except (tokenize.TokenError, SyntaxError) as error:
            raise _Unlowerable(str(error), _mistake(error, tokens)) from error
        self.text = text
        self.tokens = tokens
        self.closer = _match_brackets(tokens)
        self.edits: list[tuple[int, int, str]] = []
        self.type_params: dict[int, str] = {}
        self.type_aliases: set[int] = set()

    def lower(self) -> str:
        """Apply every rule and return the lowered text."""
        tokens, depth, at_start, head, i = self.tokens, 0, True, "", 0
        while i < len(tokens):
            token = tokens[i]
            head = token.string if at_start else head
            if token.type == tokenize.NAME:
                if token.string in ("class", "def"):
                    i = self._definition(i)
                elif token.string == "except":
                    self._handler(i)
                elif at_start and token.string == "type":
                    i = self._alias(i)
                elif at_start and token.string == "lazy":
                    self._lazy(i)
            elif token.type == tokenize.OP and token.string in _OPEN:
                depth += 1
            elif token.type == tokenize.OP and token.string in _CLOSE:
                depth -= 1
            # A statement starts a logical line, follows ";" or the ":" ending a compound
            # statement's header (not an annotation's or a lambda's).
            at_start = token.type in _STATEMENT_END or (
                depth == 0
                and token.type == tokenize.OP
                and (token.string == ";" or (token.string == ":" and head in _COMPOUND))
            )
            i += 1
        return self._apply()

    def _definition(self, i: int) -> int:
        """PEP 695/696: ``class C[T](B):`` -> ``class C(B):``, ``def f[T](x):`` -> ``def f(x):``.

        Returns the index of the last token handled (the closing bracket when lowered).
        """
        close = self._type_param_list(i + 2) if self._is(i + 1, tokenize.NAME) else None
        if close is None:
            return i
        first = i - 1 if i and self.tokens[i - 1].string == "async" else i
        self._remove_type_params(self.tokens[first].start[0], i + 2, close)
        return close

    def _alias(self, i: int) -> int:
        """PEP 695: ``type X[T] = V`` -> ``X = V``; ``type`` is a soft keyword only here."""
        if not self._is(i + 1, tokenize.NAME):
            return i
        close = self._type_param_list(i + 2)
        equals = i + 2 if close is None else close + 1
        if not self._is(equals, tokenize.OP, "=") or not self._single_expression(equals + 1):
            return i
        name = self.tokens[i + 1]
        # "type" goes; its width moves after the name, so the value keeps its columns.
        self._delete(self.tokens[i].start, name.start)
        self._insert(name.end, " " * (name.start[1] - self.tokens[i].start[1]))
        self.type_aliases.add(name.start[0])
        if close is None:
            return i + 1
        self._remove_type_params(name.start[0], i + 2, close)
        return close

    def _single_expression(self, start: int) -> bool:
        """Whether the statement goes on with one expression: not starred, a tuple or ``a = b``."""
        if self._ends_statement(start) or self.tokens[start].string in ("*", "**", "yield"):
            return False
        k = start
        while not self._ends_statement(k):
            if self.tokens[k].string in (",", "="):
                return False
            k = self._after(k)
        return True

    def _handler(self, i: int) -> None:
        """PEP 758: ``except A, B:`` -> ``except (A, B):`` (``except*`` too; never with ``as``)."""
        first = i + 2 if self._is(i + 1, tokenize.OP, "*") else i + 1
        k, comma = first, False
        while not self._is(k, tokenize.OP, ":"):
            if self._ends_statement(k) or self.tokens[k].string in ("as", "except"):
                return
            comma = comma or self.tokens[k].string == ","
            k = self._after(k)
        if comma:
            self._insert(self.tokens[first].start, "(")
            self._insert(self.tokens[k - 1].end, ")")

    def _lazy(self, i: int) -> None:
        """PEP 810: ``lazy import m`` -> ``import m``, ``lazy from m import x`` likewise."""
        if self._is(i + 1, tokenize.NAME, "import") or self._is(i + 1, tokenize.NAME, "from"):
            self._delete(self.tokens[i].start, self.tokens[i + 1].start)

    def _type_param_list(self, j: int) -> int | None:
        """Index of the ``]`` closing a type parameter list opening at ``j``, if there is one."""
        return self.closer.get(j) if self._is(j, tokenize.OP, "[") else None

    def _check_type_params(self, open_: int, close: int) -> None:
        """Reject a list that is not PEP 695/696 syntax, since lowering drops it unparsed.

        Each parameter is ``T``, ``*Ts`` or ``**P``, with an optional bound (``T`` only) and
        an optional default (starred only for ``*Ts``).
        """
        i = open_ + 1
        if i == close:
            raise _Unlowerable("empty type parameter list")
        while i < close:
            stars = self.tokens[i].string if self.tokens[i].string in ("*", "**") else ""
            name = i + 1 if stars else i
            if not self._is(name, tokenize.NAME) or keyword.iskeyword(self.tokens[name].string):
                raise _Unlowerable("not a type parameter")
            i = name + 1
            for marker, allowed in ((":", not stars), ("=", True)):
                if self._is(i, tokenize.OP, marker):
                    if not allowed:
                        raise _Unlowerable("bound on a variadic type parameter")
                    skip = marker == "=" and stars == "*" and self._is(i + 1, tokenize.OP, "*")
                    i = self._check_expression(i + 1 + skip, close, marker == ":")
            if i < close and not self._is(i, tokenize.OP, ","):
                raise _Unlowerable("malformed type parameter")
            i += 1

    def _check_expression(self, start: int, close: int, bound: bool) -> int:
        """Parse the bound or default from ``start``; return the index of what ends it."""
        end, stops = start, (",", "=") if bound else (",",)
        while end < close and self.tokens[end].string not in stops:
            end = self._after(end)
        if end == start:
            raise _Unlowerable("missing type parameter bound or default")
        text = self.text[
            self._offset(self.tokens[start].start) : self._offset(self.tokens[end - 1].end)
        ]
        try:
            ast.parse(f"({text})", mode="eval")
        except SyntaxError as error:
            raise _Unlowerable("invalid type parameter bound or default") from error
        return end

    def _remove_type_params(self, line: int, open_: int, close: int) -> None:
        """Check, record (whitespace normalised) and delete the list from ``open_`` to ``close``."""
        self._check_type_params(open_, close)
        tokens = self.tokens[open_ : close + 1]
        parts = [tokens[0].string]
        for before, token in itertools.pairwise(tokens):
            spaced = token.start != before.end and before.string not in _OPEN
            if spaced and token.string not in _CLOSE and token.string != ",":
                parts.append(" ")
            parts.append(token.string)
        self.type_params.setdefault(line, "".join(parts))
        self._delete(tokens[0].start, tokens[-1].end, pad=True)

    def _after(self, k: int) -> int:
        """Index of the token after ``k``, past its bracketed group if ``k`` opens one."""
        if self.tokens[k].string in _OPEN:
            return self.closer.get(k, len(self.tokens)) + 1  # unmatched: the scan is over
        return k + 1

    def _ends_statement(self, k: int) -> bool:
        """Whether token ``k`` ends a simple statement (or the tokens ran out)."""
        if k >= len(self.tokens):
            return True
        token = self.tokens[k]
        return (
            token.type in _STATEMENT_END or token.type == tokenize.ENDMARKER or token.string == ";"
        )

    def _is(self, j: int, kind: int, string: str | None = None) -> bool:
        """Whether token ``j`` exists and has this type (and text, if given)."""
        if j >= len(self.tokens):
            return False
        token = self.tokens[j]
        return token.type == kind and (string is None or token.string == string)

    def _offset(self, point: tuple[int, int]) -> int:
        """Offset in the text of a tokenize ``(line, column)`` position."""
        return self.line_starts[point[0] - 1] + point[1]

    def _delete(self, start: tuple[int, int], end: tuple[int, int], pad: bool = False) -> None:
        """Delete text, keeping its line breaks as backslash continuations; on one line
        with ``pad``, as spaces of its width in bytes, so that the columns ``ast`` gives
        after it are those of the original text."""
        begin, finish = self._offset(start), self._offset(end)
        breaks = self.text.count("\n", begin, finish)
        if breaks:
            replacement = "\\\n" * breaks
        else:
            replacement = " " * len(self.text[begin:finish].encode("utf-8")) if pad else ""
        self.edits.append((begin, finish, replacement))

    def _insert(self, point: tuple[int, int], text: str) -> None:
        """Insert text (without line breaks) at a position."""
        offset = self._offset(point)
        self.edits.append((offset, offset, text))

    def _apply(self) -> str:
        """The text with every edit made, in one pass."""
        pieces, done = [], 0
        for begin, finish, replacement in sorted(self.edits, key=lambda edit: edit[:2]):
            if begin < done:
                raise _Unlowerable("overlapping edits")
            pieces += [self.text[done:begin], replacement]
            done = finish
        pieces.append(self.text[done:])
        return "".join(pieces)


def _mistake(
    error: tokenize.TokenError | SyntaxError, tokens: list[tokenize.TokenInfo]
) -> tuple[str, int, int] | None:
    """(message, line, 0-based column) of the mistake that stopped ``tokenize`` after
    ``tokens``, in CPython's words: a bad dedent where it is, an unclosed string where it
    opens, an unclosed bracket (the innermost) where it opens; ``None`` if unknown."""
    if isinstance(error, SyntaxError):
        if error.lineno is None:
            return None
        return error.msg, error.lineno, max((error.offset or 1) - 1, 0)
    reason, where = (*error.args, None, None)[:2]
    if reason == "EOF in multi-line string" and isinstance(where, tuple):
        return "unterminated triple-quoted string literal", where[0], where[1]
    opened: list[tokenize.TokenInfo] = []
    for token in tokens:
        if token.type == tokenize.OP and token.string in _OPEN:
            opened.append(token)
        elif token.type == tokenize.OP and token.string in _CLOSE and opened:
            opened.pop()
    if reason == "EOF in multi-line statement" and opened:
        bracket = opened[-1]
        return f"'{bracket.string}' was never closed", *bracket.start
    return None


def _match_brackets(tokens: list[tokenize.TokenInfo]) -> dict[int, int]:
    """Map the index of each opening bracket token to that of its closing one (one pass)."""
    closer: dict[int, int] = {}
    stack: list[int] = []
    for index, token in enumerate(tokens):
        if token.type != tokenize.OP:
            continue
        if token.string in _OPEN:
            stack.append(index)
        elif token.string in _CLOSE and stack:
            closer[stack.pop()] = index
    return closer
