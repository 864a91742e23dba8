"""NameScanner's multi-token names: the automaton finds exactly what a naive scan of every
token position finds, on random names and texts built to overlap."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.grounding.matching import TOKEN_PATTERN, NameScanner, _split_name

TOKENS = st.sampled_from(["a", "b", "ab", "C", "x_1"])
SEPARATORS = st.sampled_from([".", "::", " ", "->", ". "])


@st.composite
def dotted(draw) -> str:
    parts = draw(st.lists(TOKENS, min_size=1, max_size=5))
    text = parts[0]
    for part in parts[1:]:
        text += draw(SEPARATORS) + part
    return draw(st.sampled_from(["", "(", "."])) + text + draw(st.sampled_from(["", "++", ")"]))


def naive_scan(names: list[str], text: str) -> set[str]:
    """Every name tried at every token position: O(text x name length), the reference."""
    matches = list(TOKEN_PATTERN.finditer(text))
    tokens = [m.group() for m in matches]
    separators = [
        text[(matches[i - 1].end() if i else 0) : m.start()] for i, m in enumerate(matches)
    ]
    separators.append(text[matches[-1].end() :] if matches else text)
    found = set()
    for name in names:
        leading, name_tokens, name_separators, trailing = _split_name(name)
        if len(name_tokens) == 1 and not leading and not trailing:
            continue  # single-token names are looked up in a set, not walked
        for start in range(len(tokens) - len(name_tokens) + 1):
            stop = start + len(name_tokens)
            if (
                tokens[start:stop] == name_tokens
                and separators[start + 1 : stop] == name_separators
                and separators[start].endswith(leading)
                and separators[stop].startswith(trailing)
            ):
                found.add(name)
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(dotted(), min_size=1, max_size=6), st.lists(dotted(), max_size=12))
def test_multi_token_names_match_the_naive_scan(names: list[str], pieces: list[str]) -> None:
    text = " ".join(pieces)
    multi = [name for name in names if not TOKEN_PATTERN.fullmatch(name)]
    found = NameScanner(names).scan(text)
    assert {name for name in found if name in multi} == naive_scan(multi, text)


def test_a_name_of_many_parts_is_found_once_in_a_text_of_its_parts() -> None:
    name = ".".join(["a"] * 2_000)
    assert NameScanner([name]).scan(".".join(["a"] * 5_000)) == {name}
    assert NameScanner([name]).scan(".".join(["a"] * 1_999)) == frozenset()
