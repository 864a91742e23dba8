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
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# `-` can never be a word character, so each repetition has exactly one way to match:
# no nested ambiguity, no backtracking beyond one step.
TOKEN_PATTERN = re.compile(r"\w+(?:-\w+)*")


def normalize_text(text: str) -> str:
    """Compose Unicode text (NFC) so a decomposed ``é`` is one word character.

    Args:
        text: Any text.

    Returns:
        The NFC form of ``text`` (``text`` itself when it is ASCII).
    """
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _split_name(name: str) -> tuple[list[str], list[str]]:
    """Tokens of ``name`` and the separators between consecutive tokens."""
    tokens: list[str] = []
    separators: list[str] = []
    end = None
    for match in TOKEN_PATTERN.finditer(name):
        if end is not None:
            separators.append(name[end : match.start()])
        tokens.append(match.group())
        end = match.end()
    return tokens, separators


class NameScanner:
    """Finds which of a fixed set of names a text references.

    Build once per set of names, then call :meth:`scan` on any number of texts.

    Args:
        names: The names to look for. A name without any word character can never
            match and is ignored.

    Example:
        >>> NameScanner(["GraphStore", "REQ-1"]).scan("(GraphStore) and REQ-1-US2")
        frozenset({'GraphStore'})
    """

    def __init__(self, names: Iterable[str]) -> None:
        # Single-token names are a set; multi-token names live in a trie whose
        # edges alternate token, separator, token, ... and whose leaves hold the name.
        self._single: set[str] = set()
        self._trie: dict[str, dict] = {}
        for name in names:
            if TOKEN_PATTERN.fullmatch(name):
                self._single.add(name)
                continue
            tokens, separators = _split_name(name)
            if tokens:
                self._insert(name, tokens, separators)

    def _insert(self, name: str, tokens: list[str], separators: list[str]) -> None:
        node = self._trie.setdefault(tokens[0], {})
        for separator, token in zip(separators, tokens[1:], strict=True):
            node = node.setdefault(separator, {}).setdefault(token, {})
        # "" can never be a separator between two tokens, so it safely marks a leaf.
        node.setdefault("", set()).add(name)

    def scan(self, text: str) -> frozenset[str]:
        """Return the names referenced in ``text``.

        Args:
            text: Any text; never raises on odd input. Work is linear in ``len(text)``
                (times the token count of the longest multi-token name, the depth of
                the trie walk from each token).

        Returns:
            The subset of the names that occur in ``text`` on token boundaries.
        """
        if not self._trie:
            # Set algebra on the distinct tokens runs in C; order does not matter here.
            return self._lookup(set(TOKEN_PATTERN.findall(text)))

        tokens: list[str] = []
        separators: list[str] = []
        end = 0
        for match in TOKEN_PATTERN.finditer(text):
            separators.append(text[end : match.start()])
            tokens.append(match.group())
            end = match.end()
        found = set(self._lookup(set(tokens)))
        for index in range(len(tokens)):
            self._walk(tokens, separators, index, found)
        return frozenset(found)

    def _lookup(self, tokens: set[str]) -> frozenset[str]:
        """Single-token names among ``tokens`` or among their hyphen-separated parts."""
        single = self._single
        found = tokens & single
        for token in tokens:
            if "-" in token:
                # A plain name may sit next to a hyphen (`build_index-based`), but a
                # hyphenated id only matches a whole token (the intersection above).
                found.update(part for part in token.split("-") if part in single)
        return frozenset(found)

    def _walk(self, tokens: list[str], separators: list[str], start: int, found: set[str]) -> None:
        node = self._trie.get(tokens[start])
        index = start
        while node is not None:
            found.update(node.get("", ()))
            index += 1
            if index >= len(tokens):
                return
            after_separator = node.get(separators[index])
            node = after_separator.get(tokens[index]) if after_separator else None
