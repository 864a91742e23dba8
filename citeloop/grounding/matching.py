"""Boundary-aware scanning of a text for many names at once, in linear time.

The text is tokenized once with a non-backtracking pattern and the tokens are looked up
in a set, so the cost grows with the text length and not with the number of names
(one regex per name would be O(names x text)).

A token is a run of word characters (``\\w``, Unicode-aware) optionally joined by single
hyphens: ``GraphStore``, ``build_index``, ``REQ-008-013``, ``Straße``. A name matches
only a whole token, or a whole hyphen-separated part of one, so ``GraphStore`` does not
match inside ``GraphStores`` and ``build_index`` not inside ``build_index_v2``; a
hyphenated id must equal the whole token, so ``REQ-008-013`` does not match inside
``REQ-008-013-US1``. Names made of several tokens (``GraphStore.neighbours``,
``New York``) match the same tokens with the same separators in between.
A token in Markdown underscore emphasis (``__GraphStore__``, ``_GraphStore_``) also
matches the name inside it, unless the token is itself a name (``__init__``).

Names with punctuation around their tokens (``C++``, ``.env``, ``-v``, ``x[0]``) match
as literal text whose word-character ends fall on token boundaries: the tokens are
looked up as above, then the text must carry the name's leading punctuation right
before the first token and its trailing punctuation right after the last one. So
``C++`` matches in ``(C++)`` and ``C++17`` but not in a bare ``C``, and ``.env`` matches
in ``config/.env`` but not in ``env``. A name without any word character (``(*)``,
``->``) is rejected: it is also Markdown or prose punctuation, so no occurrence could
be told apart from syntax.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable

# `-` can never be a word character, so each repetition has exactly one way to match:
# no nested ambiguity, no backtracking beyond one step.
TOKEN_PATTERN = re.compile(r"\w+(?:-\w+)*")


def has_word_character(name: str) -> bool:
    """Whether ``name`` holds a word character, i.e. can be found by :class:`NameScanner`."""
    return TOKEN_PATTERN.search(name) is not None


def without_underscore_emphasis(word: str) -> str | None:
    """``word`` without Markdown underscore emphasis, or ``None`` when it has none.

    ``__GraphStore__`` and ``_GraphStore_`` give ``GraphStore``; ``_private`` (one side
    only) and ``___`` give ``None``. Python's ``__init__`` also reads as emphasis
    (CommonMark renders it so), which is why callers try the word as written first.
    """
    leading = len(word) - len(word.lstrip("_"))
    width = min(leading, len(word) - len(word.rstrip("_")), 3)
    inner = word[width : len(word) - width] if width else ""
    return inner if inner and inner[0] != "_" and inner[-1] != "_" else None


def _split_name(name: str) -> tuple[str, list[str], list[str], str]:
    """(leading punctuation, tokens, separators between tokens, trailing punctuation)."""
    tokens: list[str] = []
    separators: list[str] = []
    start = end = None
    for match in TOKEN_PATTERN.finditer(name):
        if end is None:
            start = match.start()
        else:
            separators.append(name[end : match.start()])
        tokens.append(match.group())
        end = match.end()
    if start is None or end is None:
        return name, [], [], ""
    return name[:start], tokens, separators, name[end:]


class NameScanner:
    """Finds which of a fixed set of names a text references.

    Build once per set of names, then call :meth:`scan` on any number of texts.

    Args:
        names: The names to look for.

    Raises:
        ValueError: A name has no word character (letter, digit or ``_``).

    Example:
        >>> NameScanner(["GraphStore", "REQ-1"]).scan("(GraphStore) and REQ-1-US2")
        frozenset({'GraphStore'})
        >>> sorted(NameScanner(["C++", ".env"]).scan("C, env and config/.env"))
        ['.env']
    """

    def __init__(self, names: Iterable[str]) -> None:
        # Single-token names are a set. The others are sequences of symbols, token,
        # separator, token, ..., matched with an Aho-Corasick automaton (Aho and
        # Corasick, "Efficient string matching", CACM 18(6), 1975) over those symbols:
        # state 0 is the root; `_goto[s]` maps a symbol to the next state; `_fail[s]` is
        # the state of the longest proper suffix; `_out[s]` holds the names ending at s
        # as (name, leading, trailing, token count), `_next_out[s]` the nearest state
        # down the failure chain that holds any.
        self._single: set[str] = set()
        self._goto: list[dict[str, int]] = [{}]
        self._out: list[list[tuple[str, str, str, int]]] = [[]]
        for name in names:
            if TOKEN_PATTERN.fullmatch(name):
                self._single.add(name)
                continue
            leading, tokens, separators, trailing = _split_name(name)
            if not tokens:
                raise ValueError(
                    f"name {name!r} has no letter, digit or underscore: it cannot be told "
                    "apart from punctuation in a text; name it with a word character"
                )
            symbols = [tokens[0]]
            for separator, token in zip(separators, tokens[1:], strict=True):
                symbols += (separator, token)
            self._out[self._insert(symbols)].append((name, leading, trailing, len(tokens)))
        self._fail, self._next_out = self._links()

    def _insert(self, symbols: list[str]) -> int:
        state = 0
        for symbol in symbols:
            following = self._goto[state].get(symbol)
            if following is None:
                following = len(self._goto)
                self._goto[state][symbol] = following
                self._goto.append({})
                self._out.append([])
            state = following
        return state

    def _links(self) -> tuple[list[int], list[int]]:
        """Failure and output links, breadth first (each state's suffix is shallower)."""
        fail = [0] * len(self._goto)
        next_out = [0] * len(self._goto)
        queue = deque(self._goto[0].values())
        while queue:
            state = queue.popleft()
            for symbol, child in self._goto[state].items():
                queue.append(child)
                fail[child] = self._step(fail, fail[state], symbol)
                next_out[child] = fail[child] if self._out[fail[child]] else next_out[fail[child]]
        return fail, next_out

    def _step(self, fail: list[int], state: int, symbol: str) -> int:
        goto = self._goto
        while state and symbol not in goto[state]:
            state = fail[state]
        return goto[state].get(symbol, 0)

    def scan(self, text: str) -> frozenset[str]:
        """Return the names referenced in ``text``.

        Args:
            text: Any text; never raises on odd input. Work is linear in ``len(text)``
                plus the number of occurrences of multi-token names (an Aho-Corasick
                pass over the text's tokens and separators), and the length of the
                punctuation checked around each.

        Returns:
            The subset of the names that occur in ``text`` on token boundaries.
        """
        if len(self._goto) == 1:
            # Set algebra on the distinct tokens runs in C; order does not matter here.
            return self._lookup(set(TOKEN_PATTERN.findall(text)))

        tokens: list[str] = []
        # separators[i] is the text before tokens[i]; the last one is the text's tail.
        separators: list[str] = []
        end = 0
        for match in TOKEN_PATTERN.finditer(text):
            separators.append(text[end : match.start()])
            tokens.append(match.group())
            end = match.end()
        separators.append(text[end:])
        found = set(self._lookup(set(tokens)))
        fail, out, next_out = self._fail, self._out, self._next_out
        state = 0
        for index, token in enumerate(tokens):
            if index:
                state = self._step(fail, state, separators[index])
            state = self._step(fail, state, token)
            hit = state if out[state] else next_out[state]
            while hit:
                for name, leading, trailing, count in out[hit]:
                    # Punctuation outside the tokens must be there literally; the tokens
                    # themselves already fall on token boundaries.
                    if (
                        name not in found
                        and separators[index - count + 1].endswith(leading)
                        and separators[index + 1].startswith(trailing)
                    ):
                        found.add(name)
                hit = next_out[hit]
        return frozenset(found)

    def _lookup(self, tokens: set[str]) -> frozenset[str]:
        """Single-token names among ``tokens``, their hyphen-separated parts, or the
        tokens without underscore emphasis (``__GraphStore__``)."""
        single = self._single
        found = tokens & single
        for token in tokens:
            if "-" in token:
                # A plain name may sit next to a hyphen (`build_index-based`), but a
                # hyphenated id only matches a whole token (the intersection above).
                found.update(part for part in token.split("-") if part in single)
            if token[0] == "_" and token[-1] == "_" and token not in single:
                # `__GraphStore__` is Markdown emphasis around `GraphStore`.
                plain = without_underscore_emphasis(token)
                if plain in single:
                    found.add(plain)
        return frozenset(found)
