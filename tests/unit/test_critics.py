"""Unit tests of the verbalize critics and their boundary-aware fact-id scan."""

from __future__ import annotations

import functools
import re
import time
import unicodedata
from collections.abc import Callable

import pytest

from citeloop.grounding import Critique, FactIdCritic, mentions_fact_id, missing_fact_ids
from citeloop.grounding.critics import (
    MAX_FEEDBACK_CHARS,
    critic_name,
    foreign_fact_ids,
    run_critics,
)
from citeloop.knowledge import EntityRef, PathHop, RetrievalPath

CAFE_NFC = "caf\u00e9-1"
CAFE_NFD = unicodedata.normalize("NFD", CAFE_NFC)


def path_with(*fact_ids: str) -> RetrievalPath:
    hops = tuple(PathHop(EntityRef("class", f"E{i}"), f) for i, f in enumerate(fact_ids))
    return RetrievalPath(EntityRef("class", "Start"), hops)


# --- mentions_fact_id -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("fact_id", "hits", "misses"),
    [
        (
            "fact-1",
            [
                "fact-1",
                "fact-1 starts the text",
                "the text ends with fact-1",
                "[fact-1]",
                "(fact-1).",
                "fact-1,",
                "see fact-1; then",
                "`fact-1`",
                "fact-1\nnext line",
                "fact-10 and then fact-1",  # a near miss before a real mention
            ],
            [
                "",
                "fact",
                "fact-10",
                "prefact-1",
                "fact-1a",
                "fact-1_",
                "_fact-1",
                "fact-1-",
                "-fact-1",
                "fact-1\u00e9",  # a letter is an identifier character
                "Fact-1",  # verbatim: case matters
                "fact-1fact-1",  # each occurrence touches the other
                "fact - 1",
            ],
        ),
        ("f-1.", ["see f-1.", "f-1..", "(f-1.)", "f-1."], ["f-1", "f-1.x", "af-1."]),
        ("f(1)+[x]", ["(f(1)+[x])", "f(1)+[x]", "f(1)+[x]."], ["f1+x", "f(1)+[x]y", "ff(1)+[x]"]),
        ("a.*b", ["a.*b", "[a.*b]"], ["ab", "aXYZb", "a.*bc"]),
        ("\\d", ["\\d", "(\\d)"], ["7", "d", "\\dd"]),
        ("x", ["x", "x y", "(x)"], ["xx", "yx", "x1"]),
    ],
    ids=["fact-1", "trailing-dot", "brackets-plus", "dot-star", "backslash-d", "one-char"],
)
def test_mentions_fact_id(fact_id: str, hits: list[str], misses: list[str]) -> None:
    assert [text for text in hits if not mentions_fact_id(text, fact_id)] == []
    assert [text for text in misses if mentions_fact_id(text, fact_id)] == []


def test_an_empty_fact_id_is_never_mentioned() -> None:
    assert mentions_fact_id("anything at all", "") is False
    assert mentions_fact_id("", "") is False


@pytest.mark.parametrize(
    ("text", "fact_id"),
    [(CAFE_NFC, CAFE_NFD), (CAFE_NFD, CAFE_NFC), (f"[{CAFE_NFD}]", CAFE_NFD)],
    ids=["nfd-id", "nfd-text", "both-nfd"],
)
def test_mentions_compare_nfc_forms(text: str, fact_id: str) -> None:
    assert CAFE_NFC != CAFE_NFD  # the two spellings differ as code points
    assert mentions_fact_id(text, fact_id)


def test_a_decomposed_letter_is_one_character_for_boundaries() -> None:
    # In "cafe" + U+0301 the raw text has "cafe" followed by a combining mark (not an
    # identifier character); after NFC it is "café", which does not mention "cafe".
    assert not mentions_fact_id("cafe\u0301 is open", "cafe")
    assert not mentions_fact_id("see [cafe\u0301]", "cafe")
    assert mentions_fact_id("see [cafe\u0301]", "caf\u00e9")


# --- missing_fact_ids -----------------------------------------------------------------


def test_missing_fact_ids_keeps_the_given_order_and_lists_each_once() -> None:
    ids = ["f-3", "f-1", "f-2", "f-1", "f-3"]
    assert missing_fact_ids("", ids) == ["f-3", "f-1", "f-2"]
    assert missing_fact_ids("only [f-1] here", ids) == ["f-3", "f-2"]
    assert missing_fact_ids("[f-1] [f-2] [f-3]", ids) == []


def test_missing_fact_ids_is_boundary_aware() -> None:
    text = "fact-10 (fact-2). fact-3,"
    assert missing_fact_ids(text, ["fact-1", "fact-2", "fact-3", "fact-10"]) == ["fact-1"]


def test_missing_fact_ids_accepts_any_iterable() -> None:
    assert missing_fact_ids("[b]", (i for i in ["a", "b", "c"])) == ["a", "c"]
    assert missing_fact_ids("x", []) == []


def test_missing_fact_ids_normalizes_and_reports_ids_as_given() -> None:
    assert missing_fact_ids(f"see {CAFE_NFC}.", [CAFE_NFD]) == []
    assert missing_fact_ids(f"see {CAFE_NFD}.", [CAFE_NFC]) == []
    # An id that is missing comes back in the caller's form, not normalized.
    assert missing_fact_ids("nothing", [CAFE_NFD]) == [CAFE_NFD]


def test_missing_fact_ids_at_the_edges_of_the_text() -> None:
    assert missing_fact_ids("f-1 middle f-2", ["f-1", "f-2"]) == []
    assert missing_fact_ids("f-1x middle xf-2", ["f-1", "f-2"]) == ["f-1", "f-2"]


# --- FactIdCritic ---------------------------------------------------------------------


def test_fact_id_critic_passes_when_every_id_is_mentioned() -> None:
    critic = FactIdCritic()
    assert critic("A [f-1] then [f-2].", path_with("f-1", "f-2")) == Critique(True, "")
    assert critic("", path_with()) == Critique(True, "")


def test_fact_id_critic_names_the_missing_ids_in_path_order() -> None:
    critique = FactIdCritic()("Only [f-2], and f-10.", path_with("f-3", "f-1", "f-2"))
    assert critique == Critique(
        False, "Mention every fact id of the path verbatim; missing: f-3, f-1."
    )


def test_fact_id_critic_name() -> None:
    assert FactIdCritic().name == "fact_ids"
    assert critic_name(FactIdCritic()) == "fact_ids"


# --- run_critics ----------------------------------------------------------------------


def always(passed: bool, feedback: str = "") -> Callable[[str, RetrievalPath], Critique]:
    def critic(narrative: str, path: RetrievalPath) -> Critique:
        return Critique(passed, feedback)

    return critic


def test_run_critics_with_no_critic_passes() -> None:
    assert run_critics([], "anything", path_with("f-1")) == (True, "")


def test_run_critics_passes_when_all_pass() -> None:
    critics = [FactIdCritic(), always(True)]
    assert run_critics(critics, "[f-1]", path_with("f-1")) == (True, "")


def test_run_critics_combines_the_failures_in_order_one_line_each() -> None:
    def tone(narrative: str, path: RetrievalPath) -> Critique:
        return Critique(False, "Be plain.")

    def silent(narrative: str, path: RetrievalPath) -> Critique:
        return Critique(False)

    passed, feedback = run_critics(
        [FactIdCritic(), always(True, "ignored"), tone, silent], "no ids", path_with("f-1")
    )
    assert passed is False
    assert feedback.splitlines() == [
        "- fact_ids: Mention every fact id of the path verbatim; missing: f-1.",
        "- tone: Be plain.",
        "- silent: failed",
    ]


def test_run_critics_runs_every_critic_and_passes_them_the_narrative_and_path() -> None:
    seen: list[tuple[str, RetrievalPath]] = []

    def record(narrative: str, path: RetrievalPath) -> Critique:
        seen.append((narrative, path))
        return Critique(False, "no")

    path = path_with("f-1")
    run_critics([record, record, record], "text", path)
    assert seen == [("text", path)] * 3


@pytest.mark.parametrize(
    "returned", [True, None, "ok", (True, ""), Critique("no", "5"), Critique(1, "")]
)
def test_run_critics_refuses_a_result_that_is_no_critique(returned: object) -> None:
    def lazy_critic(narrative: str, path: RetrievalPath) -> object:
        return returned

    with pytest.raises(
        TypeError, match=r"critic 'lazy_critic' returned " + re.escape(repr(returned))
    ):
        run_critics([FactIdCritic(), lazy_critic], "[f-1]", path_with("f-1"))


# --- critic_name ----------------------------------------------------------------------


class Named:
    name = "house_style"

    def __call__(self, narrative: str, path: RetrievalPath) -> Critique:
        return Critique(True)


class Unnamed:
    def __call__(self, narrative: str, path: RetrievalPath) -> Critique:
        return Critique(True)


class BadName(Unnamed):
    name = 3


def plain_function(narrative: str, path: RetrievalPath) -> Critique:
    return Critique(True)


def labelled_function(narrative: str, path: RetrievalPath) -> Critique:
    return Critique(True)


labelled_function.name = "labelled"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("critic", "expected"),
    [
        (Named(), "house_style"),
        (labelled_function, "labelled"),
        (plain_function, "plain_function"),
        (lambda narrative, path: Critique(True), "<lambda>"),
        (Unnamed(), "Unnamed"),
        (BadName(), "BadName"),
        (functools.partial(plain_function), "partial"),
    ],
    ids=[
        "name-attribute",
        "function-with-name",
        "function",
        "lambda",
        "class",
        "non-string-name",
        "partial",
    ],
)
def test_critic_name(critic: Callable[..., Critique], expected: str) -> None:
    assert critic_name(critic) == expected


def test_the_name_labels_the_feedback_line() -> None:
    class Strict(Named):
        def __call__(self, narrative: str, path: RetrievalPath) -> Critique:
            return Critique(False, "Shorter.")

    assert run_critics([Strict()], "x", path_with()) == (False, "- house_style: Shorter.")


# --- linear time ----------------------------------------------------------------------

MEGABYTE = 1_000_000
NEAR_MISSES = {
    "id-then-digit": lambda n: "fact-11 " * (n // 8),
    "adjacent-ids": lambda n: "fact-1" * (n // 6),
    "id-then-letter": lambda n: "fact-1x" * (n // 7),
    "prefixed-ids": lambda n: "xfact-1 " * (n // 8),
    "dashes": lambda n: "-" * n,
    "nfd-letters": lambda n: "e\u0301" * (n // 2),
}


def _seconds(text: str) -> float:
    started = time.perf_counter()
    found = missing_fact_ids(text, ["fact-1", "fact-", "-"])
    elapsed = time.perf_counter() - started
    assert "fact-1" in found
    return elapsed


@pytest.mark.parametrize("make", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_a_megabyte_of_near_misses_is_scanned_in_linear_time(make: Callable[[int], str]) -> None:
    # Each near miss costs one bounded step, so 4x the text is ~4x the time; a scan that
    # restarted from the start of the text (or a backtracking regex) would not be.
    short, long = _seconds(make(MEGABYTE // 4)), _seconds(make(MEGABYTE))
    assert long < 10 * short + 2.0


def test_a_real_mention_after_a_megabyte_of_near_misses_is_found() -> None:
    text = "fact-11 " * (MEGABYTE // 8) + "[fact-1]"
    assert mentions_fact_id(text, "fact-1")
    assert not mentions_fact_id(text[:-8], "fact-1")


def test_a_combining_mark_continues_the_id():
    assert not mentions_fact_id("see fact-1\u0301 here", "fact-1")
    assert mentions_fact_id("see fact-1\u0301 here", "fact-1\u0301")


def test_long_critic_feedback_is_cut() -> None:
    def chatty_critic(narrative: str, path: RetrievalPath) -> Critique:
        return Critique(False, "x" * 1_000_000)

    passed, feedback = run_critics([chatty_critic], "[f-1]", path_with("f-1"))
    assert not passed
    assert len(feedback) < MAX_FEEDBACK_CHARS + 100
    assert "[cut: 1000000 characters]" in feedback


def test_many_long_ids_scan_a_huge_narrative_linearly() -> None:
    ids = ["a" * n for n in range(193, 257)]
    narrative = "a" * 1_000_000
    assert missing_fact_ids(narrative, ids) == ids  # one run of a million, no id


def test_a_narrative_that_cites_a_fact_the_path_lacks_fails() -> None:
    """A narrative citing a fact id the path does not hold claims what no fact says:
    the graph's id format, or another of the path's own format, is named."""
    hop = PathHop(EntityRef("class", "B"), "f-00000000000000aa")
    path = RetrievalPath(EntityRef("class", "A"), (hop,))
    invented = "A relates to B [f-00000000000000aa]; B then calls C [f-0123456789abcdef]."
    critique = FactIdCritic()(invented, path)
    assert not critique.passed and "not in the path: f-0123456789abcdef" in critique.feedback
    # Prose that merely looks alike is no id: f-strings, a shorter f-1.
    assert FactIdCritic()("A relates to B [f-00000000000000aa] with f-strings.", path).passed
    assert foreign_fact_ids("fact-12 [fact-3] fact-1", ["fact-1", "fact-2"]) == ["fact-3"]


def test_an_id_inside_an_html_comment_is_mentioned_to_no_one() -> None:
    path = RetrievalPath(EntityRef("class", "A"), (PathHop(EntityRef("class", "B"), "f-1"),))
    critique = FactIdCritic()("A is B. <!-- f-1 -->", path)
    assert not critique.passed and "missing: f-1" in critique.feedback
