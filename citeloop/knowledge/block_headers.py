"""The lines that open the blocks a line of Python source is in, read from indentation.

An excerpt that shows ``except InvalidParameterError as e:`` but not its ``try:`` reads
as if the ``except`` caught what the line before it raises (a played model said so).
So a line an excerpt shows for what it uses brings the lines that open its blocks:
its clause's opening line (the ``try:`` of an ``except``/``finally``, the ``if`` of an
``elif``/``else``) and each line above it with less indentation (the ``for``, ``with``
or call it is inside), as a code viewer's sticky scroll or grep-ast's tree context
shows the scopes of a line of interest.

Read from indentation alone (no parse: an excerpt's lines may not parse on their own),
in one pass with a stack of the open lines: linear in the lines read.
"""

from __future__ import annotations

from collections.abc import Collection

_CLAUSE_OPENERS = {
    "except": frozenset({"try"}),
    "finally": frozenset({"try"}),
    "elif": frozenset({"if"}),
    "else": frozenset({"if", "try", "for", "while"}),
}
"""A clause's first word, and the first words of the lines that may open its statement
(``else`` also follows ``for``, ``while`` and ``try``)."""

_CLOSERS = (")", "]", "}")
"""A line that starts with one of these ends a statement over several lines: neither a
statement of its own nor a block's header."""


def first_word(code: str) -> str:
    """The keyword or name a stripped line starts with (``"except"`` of ``except X:``,
    ``"for"`` of ``async for x in y:``); ``""`` for one that starts otherwise."""
    if code.startswith("async "):
        code = code[6:].lstrip()
    end = 0
    while end < len(code) and (code[end].isalnum() or code[end] == "_"):
        end += 1
    return code[:end]


def block_headers(
    lines: tuple[str, ...], first: int, last: int, skipped: Collection[int] = ()
) -> dict[int, tuple[int, ...]]:
    """For each line of code ``first``-``last`` (1-based, inclusive) of ``lines``: the
    lines among ``first``-``last`` that open the blocks it is in, innermost first (a
    clause's opening line, then the line with less indentation above it, and so on).

    Blank lines, comments, lines that start with a closing bracket and the ``skipped``
    ones (a docstring's) open nothing and get no entry.

    Example:
        >>> source = ("try:", "    run()", "except E:", "    if x:", "        log()")
        >>> block_headers(source, 1, 5)[5]
        (4, 3, 1)
    """
    headers: dict[int, tuple[int, ...]] = {}
    opener_of: dict[int, int | None] = {}
    stack: list[tuple[int, int, tuple[int, ...]]] = []  # (indent, line, its headers)
    for number in range(max(first, 1), min(last, len(lines)) + 1):
        if number in skipped:
            continue
        text = lines[number - 1]
        code = text.lstrip()
        if not code or code.startswith("#") or code.startswith(_CLOSERS):
            continue
        indent = len(text) - len(code)
        sibling = None  # the line before at this indentation, in the same block
        while stack and stack[-1][0] >= indent:
            popped = stack.pop()
            if popped[0] == indent:
                sibling = popped[1]
        chain = (stack[-1][1], *stack[-1][2]) if stack else ()
        word = first_word(code)
        opener = None
        if word in _CLAUSE_OPENERS and sibling is not None:
            opener = opener_of.get(sibling)  # a clause after a clause: the same opener
            if opener is None and first_word(lines[sibling - 1].lstrip()) in _CLAUSE_OPENERS[word]:
                opener = sibling
        opener_of[number] = opener
        headers[number] = (opener, *chain) if opener is not None else chain
        stack.append((indent, number, headers[number]))
    return headers
