"""Tests for :mod:`citeloop.knowledge.indexing.syntax`: parsing code newer than the interpreter.

Each rule's test states the Python version that reads the construct natively; on that
version and later the source takes the fast path and nothing is recorded, on older ones it is
lowered. Either way the tree must have the same definitions on the same lines.
"""

from __future__ import annotations

import ast
import contextlib
import sys
import textwrap
import time

import pytest

from citeloop.knowledge.indexing import syntax
from citeloop.knowledge.indexing.syntax import ParsedSource, parse_source

# What a ``type`` statement parses to: ``ast.TypeAlias`` natively, ``ast.Assign`` lowered.
_ASSIGNS = (ast.Assign, getattr(ast, "TypeAlias", ast.Assign))


def _parse(source: str) -> ParsedSource:
    return parse_source(textwrap.dedent(source), "mod.py")


def _native(parsed: ParsedSource, since: tuple[int, int]) -> bool:
    """Whether this interpreter reads the newest syntax in the source; checks ``lowered``."""
    native = sys.version_info >= since
    assert parsed.lowered is not native
    if native:
        assert dict(parsed.type_params) == {}
        assert parsed.type_aliases == frozenset()
    return native


def _blanked(tree: ast.AST) -> list[tuple[int, str]]:
    """:func:`_strings` without blanks: a placeholder is an f-string of blanks."""
    return [(line, text.replace(" ", "")) for line, text in _strings(tree)]


def _statements(tree: ast.AST) -> list[tuple[str, int]]:
    """Each statement's kind and line, in source order; a ``type`` alias counts as an Assign."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            kind = type(node).__name__
            found.append(("Assign" if kind == "TypeAlias" else kind, node.lineno))
    return sorted(found, key=lambda item: (item[1], item[0]))


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Line and rendering of each outermost string literal (f-strings included)."""
    found, inner = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr | ast.Constant) and id(node) not in inner:
            if isinstance(node, ast.JoinedStr):
                inner.update(id(part) for part in ast.walk(node) if part is not node)
                found.append((node.lineno, ast.unparse(node)))
            elif isinstance(node.value, str | bytes):
                found.append((node.lineno, repr(node.value)))
    return sorted(found)


def test_valid_311_code_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    source = textwrap.dedent(
        """\
        import re
        type = 3
        print(type(x), f"{name!r:>{width}}", rf"\\d{x}", "\\N{BULLET}", b"raw")
        match command:
            case [x, *rest] if (y := x):
                pass
        try:
            pass
        except* (ValueError, TypeError):
            pass
        """
    )

    def forbidden(*args: object) -> None:
        raise AssertionError("the fast path must not lower")

    monkeypatch.setattr(syntax, "_parse_lowered", forbidden)
    parsed = parse_source(source, "mod.py")
    assert parsed == ParsedSource(parsed.tree, {}, frozenset(), False)
    assert ast.dump(parsed.tree, include_attributes=True) == ast.dump(
        ast.parse(source), include_attributes=True
    )


def test_class_type_parameters_are_removed_and_recorded() -> None:
    parsed = _parse(
        """\
        @decorator
        class Box[T: int = str, *Ts, **P](Base[T], metaclass=Meta):
            item: T

        class Pair[
            K,  # key
            V: (int, str) = int,
        ](Mapping[K, V]):
            pass

        class Plain[T]:
            pass
        after = 1
        """
    )
    classes = [node for node in parsed.tree.body if isinstance(node, ast.ClassDef)]
    assert [(node.name, node.lineno) for node in classes] == [
        ("Box", 2),
        ("Pair", 5),
        ("Plain", 11),
    ]
    assert [ast.unparse(base) for base in classes[0].bases] == ["Base[T]"]
    assert [keyword.arg for keyword in classes[0].keywords] == ["metaclass"]
    assert [ast.unparse(base) for base in classes[1].bases] == ["Mapping[K, V]"]
    assert classes[2].bases == []
    assert [(stmt.lineno, stmt.end_lineno) for stmt in classes[1].body] == [(9, 9)]
    assert _statements(parsed.tree)[-1] == ("Assign", 13)
    if not _native(parsed, since=(3, 13)):  # PEP 696 defaults
        assert dict(parsed.type_params) == {
            2: "[T: int = str, *Ts, **P]",
            5: "[K, V: (int, str) = int,]",
            11: "[T]",
        }
        assert parsed.type_aliases == frozenset()


def test_function_type_parameters_are_recorded_on_the_def_line() -> None:
    parsed = _parse(
        """\
        @overload
        @cache
        def first[T = int](items: list[T]) -> T:
            return items[0]

        async def call[**P, R](fn: Callable[P, R], *args: P.args) -> R:
            return await fn(*args)

        class Holder:
            def method[*Ts](self, *args: *Ts) -> None: ...
        """
    )
    first, call, holder = parsed.tree.body
    assert isinstance(first, ast.FunctionDef) and isinstance(call, ast.AsyncFunctionDef)
    assert (first.name, first.lineno, first.end_lineno) == ("first", 3, 4)
    assert [ast.unparse(arg.annotation) for arg in first.args.args] == ["list[T]"]
    assert (call.name, call.lineno, ast.unparse(call.returns)) == ("call", 6, "R")
    assert [(node.name, node.lineno) for node in holder.body] == [("method", 10)]
    if not _native(parsed, since=(3, 13)):
        assert dict(parsed.type_params) == {3: "[T = int]", 6: "[**P, R]", 10: "[*Ts]"}


def test_type_alias_statements_become_assignments() -> None:
    parsed = _parse(
        """\
        type Vector = list[float]
        type Mapping[K, V = str] = dict[K, V]
        class Space:
            type Point[T: (int, float)] = tuple[T, T]
        if True: type Flag = bool
        type A = int; type B[T] = set[T]
        type Wide[
            T,
        ] = list[T]
        last = Vector
        """
    )
    assigns = [node for node in ast.walk(parsed.tree) if isinstance(node, _ASSIGNS)]
    names = [
        (node.targets[0].id if isinstance(node, ast.Assign) else node.name.id, node.lineno)
        for node in assigns
    ]
    assert sorted(names, key=lambda item: item[1]) == [
        ("Vector", 1),
        ("Mapping", 2),
        ("Point", 4),
        ("Flag", 5),
        ("A", 6),
        ("B", 6),
        ("Wide", 7),
        ("last", 10),
    ]
    assert ast.unparse(assigns[1].value) == "dict[K, V]"
    if not _native(parsed, since=(3, 13)):
        assert parsed.type_aliases == frozenset({1, 2, 4, 5, 6, 7})
        assert dict(parsed.type_params) == {
            2: "[K, V = str]",
            4: "[T: (int, float)]",
            6: "[T]",
            7: "[T,]",
        }


def test_type_as_an_ordinary_name_is_untouched() -> None:
    plain = textwrap.dedent(
        """\
        type = 3
        type(x)
        print(type)
        x: type = int
        y: type[int] = int
        type.mro(int)
        type += 1
        match type:
            case type():
                pass
        lazy = 1
        lazy(x)
        """
    )
    newer = "class Marker[T = int]: pass\n"  # forces lowering before 3.13
    parsed = parse_source(plain + newer, "mod.py")
    expected = ast.parse(plain).body
    assert [ast.dump(node) for node in parsed.tree.body[:-1]] == [ast.dump(n) for n in expected]
    assert parsed.type_aliases == frozenset()
    if not _native(parsed, since=(3, 13)):
        assert dict(parsed.type_params) == {13: "[T = int]"}


def test_pep701_fstrings_are_replaced_line_for_line() -> None:
    parsed = _parse(
        """\
        a = f"{d["key"]}"
        b = f"{'\\n'.join(lines)}"
        c = f"{value  # a comment
        }"
        d = f"{f"{f"{f"{depth}"}"}"}"
        e = f"{
            first
            + second
        }"
        f = f"{name!r:>{width}}", "plain\\N{BULLET}", r"\\{x}", b"bytes"
        g = f'{x["k"]}'
        h = f"{d["k"]}""tail"
        """
    )
    assert _statements(parsed.tree) == [
        ("Assign", 1),
        ("Assign", 2),
        ("Assign", 3),
        ("Assign", 5),
        ("Assign", 6),
        ("Assign", 10),
        ("Assign", 11),
        ("Assign", 12),
    ]
    kept = [
        (10, "f'{name!r:>{width}}'"),
        (10, repr("plain\N{BULLET}")),
        (10, repr(r"\{x}")),
        (10, repr(b"bytes")),
        (11, "f\"{x['k']}\""),
    ]
    if _native(parsed, since=(3, 12)):
        assert isinstance(parsed.tree.body[0].value.values[0].value, ast.Subscript)
    else:
        placeholders = [(1, "f''"), (2, "f''"), (3, "f'\\n'"), (5, "f''"), (6, "f'\\n\\n\\n'")]
        placeholders.append((12, "f'tail'"))  # the placeholder is not glued to the next quote
        assert _blanked(parsed.tree) == sorted(placeholders + kept)
        assert parsed.tree.body[4].end_lineno == 9


def test_a_placeholder_spans_its_literal() -> None:
    # A signature cuts a default from the source by its node's columns.
    source = 'def f(x=f"{d["é"]}", y=1, z=f"""{d["k"]}\n  """): pass\n'
    parsed = parse_source(source, "mod.py")
    lines = source.encode().split(b"\n")  # ast's columns count UTF-8 bytes

    def cut(node: ast.expr) -> bytes:
        text = b"\n".join(lines[node.lineno - 1 : node.end_lineno])
        end = len(text) - len(lines[node.end_lineno - 1]) + node.end_col_offset
        return text[node.col_offset : end]

    assert [cut(node) for node in parsed.tree.body[0].args.defaults] == [
        b'f"{d["\xc3\xa9"]}"',
        b"1",
        b'f"""{d["k"]}\n  """',
    ]


def test_template_strings_are_replaced() -> None:
    parsed = _parse(
        """\
        greeting = t"Hello {name}"
        raw = tr"\\d{pattern}" Rt'{x}' T"{y!r}"
        block = t\"\"\"
            {header}
        \"\"\"
        mixed = f"{t"{inner}"}"
        after = "unchanged"
        """
    )
    assert _statements(parsed.tree) == [
        ("Assign", 1),
        ("Assign", 2),
        ("Assign", 3),
        ("Assign", 6),
        ("Assign", 7),
    ]
    if not _native(parsed, since=(3, 14)):
        assert _blanked(parsed.tree) == [
            (1, "f''"),
            (2, "f''"),
            (3, "f'\\n\\n'"),
            (6, "f''"),
            (7, "'unchanged'"),
        ]
        assert parsed.tree.body[2].end_lineno == 5


def test_unparenthesized_except_types_get_parentheses() -> None:
    parsed = _parse(
        """\
        try:
            pass
        except ValueError, TypeError:
            pass
        except (OSError), KeyError:
            pass
        try:
            pass
        except* ExceptionA, ExceptionB:
            pass
        except* Solo:
            pass
        """
    )
    handlers = [node for node in ast.walk(parsed.tree) if isinstance(node, ast.ExceptHandler)]
    assert [(ast.unparse(h.type), h.lineno) for h in handlers] == [
        ("(ValueError, TypeError)", 3),
        ("(OSError, KeyError)", 5),
        ("(ExceptionA, ExceptionB)", 9),
        ("Solo", 11),
    ]
    _native(parsed, since=(3, 14))


def test_lazy_imports_lose_the_soft_keyword() -> None:
    parsed = _parse(
        """\
        lazy import json
        lazy from os import path as p
        lazy = json
        """
    )
    first, second, third = parsed.tree.body
    assert isinstance(first, ast.Import) and [a.name for a in first.names] == ["json"]
    assert isinstance(second, ast.ImportFrom) and (second.module, second.lineno) == ("os", 2)
    assert isinstance(third, ast.Assign) and third.lineno == 3
    _native(parsed, since=(3, 15))


def test_every_statement_keeps_its_line() -> None:
    source = textwrap.dedent(
        """\
        class C1[
            T: (
                int,
                str,
            ) = int,
        ](
            Base,
        ):
            l9 = f"{
                x["a"]
            }"
            def f12[
                U,
            ](self) -> U:
                type l15[
                    V,
                ] = dict[
                    V,
                    U,
                ]
                l21 = t'''
                {z}
                '''
                return l21
        try:
            pass
        except A, \\
               B:
            l29 = 29
        l30 = 30
        """
    ).replace("\n", "\r\n")
    parsed = parse_source(source, "mod.py")
    for node in ast.walk(parsed.tree):
        name = getattr(node, "name", None)
        if isinstance(node, _ASSIGNS):
            name = node.targets[0].id if isinstance(node, ast.Assign) else node.name.id
        if isinstance(name, str):
            assert node.lineno == int(name[1:]), name
    if not _native(parsed, since=(3, 14)):
        assert dict(parsed.type_params) == {1: "[T: (int, str,) = int,]", 12: "[U,]", 15: "[V,]"}
        assert parsed.type_aliases == frozenset({15})


REAL_ERRORS = {
    "bad-def": ("def broken(:\n    pass\n", 1),
    "unclosed-bracket": ("x = 1\ny = (1,\nz = 2\n", 2),
    "unmatched-bracket": ("x = 1\ny = ]\n", 2),
    "python2-print": ("import sys\nprint 'x'\n", 2),
    "indentation": ("def f():\nreturn 1\n", 2),
    "error-inside-pep701-fstring": ('x = f"{d["k"] d}"\n', 1),
    "pep758-with-as": ("try:\n    pass\nexcept A, B as e:\n    pass\n", 3),
    "type-in-annotation": ("x = 1\ny: type Y = 1\n", 2),
    "lazy-not-import": ("lazy x = 1\n", 1),
    "alias-of-a-tuple": ("type X = int, str\n", 1),
    "alias-chained": ("type X = Y = int\n", 1),
    "alias-starred": ("type X = *Ts\n", 1),
    "name-after-type-params": ("def f[T]g(): pass\n", 1),
    "bad-string-prefix": ('x = tf"{d["k"]}"\n', 1),
    "line-break-in-fstring-text": ('x = f"{d["k"]} a\nb"\n', 1),
}
NEWER = "class Later[T = int]: pass\ntype Alias = int\nx = f'{d['k']}'\n"


@pytest.mark.parametrize(("source", "line"), REAL_ERRORS.values(), ids=REAL_ERRORS.keys())
def test_real_syntax_errors_raise_the_original_error(source: str, line: int) -> None:
    with pytest.raises(SyntaxError) as original:
        ast.parse(source, filename="mod.py")
    assert original.value.lineno == line
    for text in (source, source + NEWER):
        with pytest.raises(SyntaxError) as raised:
            parse_source(text, "mod.py")
        assert type(raised.value) is type(original.value)
        assert (raised.value.lineno, raised.value.msg) == (line, original.value.msg)
        assert raised.value.filename == "mod.py"


UNLOWERABLE = {"error-inside-pep701-fstring", "bad-string-prefix"}
"""Real errors in a literal that stop lowering itself (tree-sitter cannot read it): the
error stays this interpreter's own. One that stops the tokenizer (an unclosed bracket)
is reported where the tokenizer found it."""


@pytest.mark.parametrize(("name", "source", "line"), [(k, *v) for k, v in REAL_ERRORS.items()])
def test_newer_syntax_before_a_real_error_reports_the_real_line(
    name: str, source: str, line: int
) -> None:
    # This interpreter's own error is at the newer syntax on line 1; lowering keeps the
    # lines, so the error raised is at the real mistake further down, unless the mistake
    # in a literal stops lowering, and then it is this interpreter's own.
    text = NEWER + source
    with pytest.raises(SyntaxError) as raised:
        parse_source(text, "mod.py")
    assert raised.value.lineno == (1 if name in UNLOWERABLE else NEWER.count("\n") + line)


TOKENIZER_STOPS = {
    "unclosed-bracket": ("y = (1, [2,\nz = 2\n", "'[' was never closed", 1, 9),
    "unclosed-string": ('s = """abc\ndef\n', "unterminated triple-quoted string literal", 1, 5),
    "bad-dedent": (
        "def f():\n        x = 1\n    y = 2\n",
        "unindent does not match any outer indentation level",
        3,
        None,
    ),
}


@pytest.mark.parametrize(
    ("source", "message", "line", "column"), TOKENIZER_STOPS.values(), ids=TOKENIZER_STOPS.keys()
)
def test_a_mistake_that_stops_the_tokenizer_is_reported_where_it_is(
    source: str, message: str, line: int, column: int | None
) -> None:
    # An unclosed bracket after newer syntax: this interpreter's parser stops at the
    # newer syntax, and lowering cannot read the file at all; the error is the mistake's,
    # and says where this interpreter stopped.
    text = NEWER + source
    with pytest.raises(SyntaxError) as raised:
        parse_source(text, "mod.py")
    own = NEWER.count("\n")
    assert raised.value.lineno == own + line
    assert raised.value.msg.startswith(message)
    if column is not None:
        assert raised.value.offset == column
    # This interpreter's own parser stops at the newer syntax, but for an unclosed
    # string, which its tokenizer finds first: then its error stands as it is.
    moved = sys.version_info < (3, 13) and "string" not in message
    assert raised.value.msg.endswith(", at line 1: invalid syntax") is moved
    assert raised.value.text == text.split("\n")[own + line - 1]
    assert raised.value.filename == "mod.py"


@pytest.mark.parametrize("source", ["x = 1\0\n", "x = " + "-" * 100_000 + "1\n"])
def test_other_parser_errors_propagate_unchanged(source: str) -> None:
    with pytest.raises((SyntaxError, ValueError, RecursionError, MemoryError)) as original:
        ast.parse(source)
    with pytest.raises(type(original.value)):
        parse_source(source, "mod.py")


@pytest.mark.parametrize(
    "source",
    [
        "class A[]: pass\n",
        "class A[*Ts: int]: pass\n",
        "class A[**P: int]: pass\n",
        "class A[T: ]: pass\n",
        "class A[T = ]: pass\n",
        "class A[1]: pass\n",
        "class A[T U]: pass\n",
        "def f[T,, U](): pass\n",
        "def f[T = *x](): pass\n",
        "def f[T: (]: pass\n",
        "type X[T: 1 +] = int\n",
        "class A[class B[T]]: pass\n",
    ],
)
def test_malformed_type_parameter_lists_are_not_dropped(source: str) -> None:
    with pytest.raises(SyntaxError) as original:
        ast.parse(source)
    with pytest.raises(SyntaxError) as raised:
        parse_source(source + "x = 1\n", "mod.py")
    assert (raised.value.lineno, raised.value.msg) == (original.value.lineno, original.value.msg)


def test_recorded_maps_are_read_only() -> None:
    parsed = parse_source("class Box[T = int]: pass\n", "mod.py")
    with pytest.raises(TypeError):
        parsed.type_params[1] = "[U]"  # type: ignore[index]


PATHOLOGICAL = {
    "nested-parens": "x = " + "(" * 50_000,
    "balanced-parens": "x = " + "(" * 25_000 + ")" * 25_000,
    "nested-brackets": "[{(" * 16_000,
    "quotes": '"' * 50_001,
    "fstring-quotes": 'f"' * 25_000,
    "open-fields": 'f"{' * 16_000,
    "nested-fstrings": "x = " + 'f"{' * 5_000 + "1" + '}"' * 5_000,
    "subscripts-in-fields": 'f"{x["' * 5_000,
    "backslashes": 'x = f"' + "\\" * 50_000,
    "class-brackets": "class A[" * 6_000,
    "nested-class-params": "class A[" * 5_000 + "]" * 5_000 + ": pass",
    "type-statements": "type X = " * 6_000,
    "excepts": "try: pass\nexcept " + "except A, " * 5_000 + ": pass",
    "type-params": "class A[" + "T, " * 15_000 + "]: pass",
    "param-bounds": "class A[" + "T: (U, V), " * 5_000 + "]: pass",
}


@pytest.mark.parametrize("source", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_inputs_finish_quickly(source: str) -> None:
    started = time.perf_counter()
    with contextlib.suppress(SyntaxError, RecursionError, MemoryError):
        parse_source(source, "mod.py")
    # Quadratic work on ~50 kB would take minutes; linear work takes a fraction of a second.
    assert time.perf_counter() - started < 3.0


def test_lowering_keeps_the_columns_of_what_follows_on_the_line() -> None:
    source = (
        'class Box[T: int = str](Base[T], metaclass=M): x = f"{d["k"]}"; y = Base\n'
        "type Pair[K] = tuple[K, K]\n"
    )
    tree = parse_source(source, "mod.py").tree
    box, alias = tree.body
    # Positions in the tree cut the original text: what lowering removed left its width.
    segments = [
        ast.get_source_segment(source, node)
        for node in (*box.bases, box.keywords[0].value, box.body[1].value, alias.value)
    ]
    assert segments == ["Base[T]", "M", "Base", "tuple[K, K]"]
