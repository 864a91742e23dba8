"""Blank out Markdown code (fenced blocks and code spans) before prose is scanned, so
``a[0]``, ``print("[1]")`` or ``@decorator`` in code is never read as prose. Rules follow
CommonMark §4.5 (fenced code blocks) and §6.1 (code spans); indented code blocks are not
told apart from indented prose.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# --- code ------------------------------------------------------------------------------

# CommonMark §4.5: a fence is three or more backticks or tildes, indented 0-3 spaces.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_NOT_NEWLINE = re.compile(r"[^\n]+")


def _fenced_blocks(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each fenced code block; an unclosed fence runs to the end."""
    fences = list(_FENCE.finditer(text))
    index = 0
    while index < len(fences):
        opening = fences[index]
        marker = opening.group(1)
        if marker[0] == "`" and "`" in opening.group(2):
            index += 1  # CommonMark: a backtick fence's info string has no backtick
            continue
        index += 1
        end = len(text)
        while index < len(fences):
            closing = fences[index]
            index += 1
            run = closing.group(1)
            if run[0] == marker[0] and len(run) >= len(marker) and not closing.group(2).strip():
                end = closing.end()
                break
        yield opening.start(), end


def _code_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each code span in ``text[start:end]`` (one paragraph).

    CommonMark §6.1: a run of N backticks opens a span that the next run of exactly N
    backticks closes; a run with no such partner is literal. The partner of every run
    is found in one backward pass, so the whole scan is linear.
    """
    runs = [(match.start(), match.end()) for match in _BACKTICKS.finditer(text, start, end)]
    partner: list[int] = [-1] * len(runs)
    last_of_length: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        partner[index] = last_of_length.get(length, -1)
        last_of_length[length] = index
    index = 0
    while index < len(runs):
        if partner[index] == -1:
            index += 1
            continue
        yield runs[index][0], runs[partner[index]][1]
        index = partner[index] + 1


def mask_code(text: str) -> str:
    """``text`` with code spans and fenced code blocks blanked out.

    Every character inside code (backticks and fences included) becomes a space,
    newlines excepted, so offsets and line numbers of the rest are unchanged. Indented
    code blocks are left alone: four spaces also continue a list item's text. Linear
    in ``len(text)``.

    Example:
        >>> mask_code("see `a[0]` and [1]")
        'see        and [1]'
    """
    if "`" not in text and "~~~" not in text:
        return text
    regions = list(_fenced_blocks(text))
    outside: list[tuple[int, int]] = []
    last = 0
    for start, end in regions:
        outside.append((last, start))
        last = end
    outside.append((last, len(text)))
    for start, end in outside:
        if "`" not in text[start:end]:
            continue
        paragraph_start = start
        for match in _PARAGRAPH_BREAK.finditer(text, start, end):
            regions.extend(_code_spans(text, paragraph_start, match.start()))
            paragraph_start = match.end()
        regions.extend(_code_spans(text, paragraph_start, end))
    if not regions:
        return text
    regions.sort()
    pieces: list[str] = []
    last = 0
    for start, end in regions:
        pieces.append(text[last:start])
        pieces.append(_NOT_NEWLINE.sub(lambda match: " " * len(match.group()), text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)
