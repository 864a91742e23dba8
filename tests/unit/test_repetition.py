"""Repeated sections, generation loops, deduplication and the repetition check."""

from __future__ import annotations

import math
import random
import time
import unicodedata
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.checks import repetition, repetition_scan, similarity
from citeloop.checks.check import Check, OnFail
from citeloop.checks.deduplication import clean_repetitive_output, deduplicate_sections
from citeloop.checks.repetition import (
    RepetitionResult,
    calculate_unique_content_ratio,
    detect_repetition,
    repetition_check,
    repetition_within_limit,
)
from citeloop.checks.repetition_scan import MODE_THRESHOLDS
from citeloop.checks.similarity import text_similarity
from citeloop.errors import ConfigurationError

INDEXER = "The indexer walks the source tree and records every class and function it finds."
FACTS = "Each fact links two entities and names the file and the line that support it."
STORE = "The graph store keeps entities in SQLite tables and answers path queries quickly."
# INDEXER with one word changed: similarity ~0.88, above 0.8 and below 0.95.
INDEXER_EDITED = INDEXER.replace("every", "each")
# INDEXER paraphrased (three words changed): similarity ~0.72, between 0.65 and 0.8.
INDEXER_PARAPHRASE = (
    "The indexer walks over the source tree and records each class and method it finds."
)


def paragraphs(*parts: str) -> str:
    return "\n\n".join(parts) + "\n"


# --- the result shape -----------------------------------------------------------------


def test_result_is_a_three_field_named_tuple_that_unpacks() -> None:
    result = detect_repetition(paragraphs(INDEXER, INDEXER))
    assert RepetitionResult._fields == ("found", "examples", "unique_ratio")
    found, examples, ratio = result
    assert (found, ratio) == (result.found, result.unique_ratio) == (True, 0.5)
    assert examples == result.examples and len(examples) == 1


# --- repeated sections ----------------------------------------------------------------


ACCENTED = INDEXER.replace("class", "clâss")
NEAR_COPIES = {
    "exact": (INDEXER, INDEXER),
    "case": (INDEXER, INDEXER.upper()),
    "spacing-and-punctuation": (INDEXER, INDEXER.replace(" ", "  ").rstrip(".")),
    "changed-word": (INDEXER, INDEXER_EDITED),
    "reordered": (INDEXER, INDEXER.replace("class and function", "function and class")),
    "typo": (INDEXER, INDEXER.replace("records", "recrods")),
    "nfd-against-nfc": (ACCENTED, unicodedata.normalize("NFD", ACCENTED)),
}


@pytest.mark.parametrize(("original", "repeat"), NEAR_COPIES.values(), ids=NEAR_COPIES.keys())
def test_near_copy_of_an_earlier_section_is_found(original: str, repeat: str) -> None:
    found, examples, ratio = detect_repetition(paragraphs(original, STORE, repeat))
    assert found
    assert ratio == pytest.approx(2 / 3)
    assert examples[0].startswith("repeated section: lines 5-5 repeat lines 1-1 (similarity")


def test_example_names_lines_similarity_and_a_snippet() -> None:
    text = f"# Title\n\n{INDEXER}\n{FACTS}\n\n{STORE}\n\n{INDEXER}\n{FACTS}\n"
    (example,) = detect_repetition(text).examples
    assert example.startswith("repeated section: lines 8-9 repeat lines 3-4 (similarity 1.00): ")
    # The snippet is the repeated section, whitespace collapsed, cut at 80 characters.
    assert example.endswith(repr(f"{INDEXER} {FACTS}"[:79] + "…"))


def test_different_sections_on_one_topic_are_not_repetition() -> None:
    text = paragraphs(
        INDEXER,
        FACTS,
        STORE,
        "The indexer skips private modules unless the include-private flag is given.",
        "Each entity records the file where it is defined and its fully qualified name.",
    )
    assert detect_repetition(text) == (False, [], 1.0)


def test_repeated_headings_are_structure_not_repetition() -> None:
    text = "## Example\n\n" + INDEXER + "\n\n## Example\n\n" + STORE + "\n"
    assert not detect_repetition(text).found


@pytest.mark.parametrize("min_chars", [10, 100])
def test_short_sections_repeat_as_identical_copies(min_chars: int) -> None:
    text = paragraphs("Short but repeated line.", STORE, "short but REPEATED line")
    result = detect_repetition(text, min_section_chars=min_chars)
    assert result.found
    assert result.unique_ratio == 2 / 3


def test_sections_shorter_than_min_section_chars_are_not_compared_by_similarity() -> None:
    first = "The index keeps every module of the tree."
    second = "The index keeps every module of the trees."
    text = paragraphs(first, STORE, second)
    assert detect_repetition(text, min_section_chars=10, similarity_threshold=0.6).found
    result = detect_repetition(text, min_section_chars=100, similarity_threshold=0.6)
    assert not result.found
    assert result.unique_ratio == 1.0


def test_threshold_decides_paraphrases() -> None:
    text = paragraphs(INDEXER, STORE, INDEXER_PARAPHRASE)
    assert not detect_repetition(text).found
    assert detect_repetition(text, similarity_threshold=0.65).found
    text = paragraphs(INDEXER, STORE, INDEXER_EDITED)
    assert detect_repetition(text).found
    assert not detect_repetition(text, similarity_threshold=0.95).found


def test_code_blocks_repeat_only_when_identical() -> None:
    before = "```python\nstore = SqliteGraphStore(path)\nstore.add(entity)\nstore.close()\n```"
    after = before.replace("store.add(entity)", "store.add_all(entities)")
    assert not detect_repetition(paragraphs(before, STORE, after)).found
    result = detect_repetition(paragraphs(before, STORE, before))
    assert result.found and result.examples[0].startswith(
        "repeated section: lines 9-13 repeat lines 1-5"
    )


def test_a_hash_line_in_a_fence_is_code_not_a_heading() -> None:
    # Were `# install` a heading, it would split the fence into two different sections.
    fence = "```bash\n# install the package\npip install citeloop\n# and run it\ncitel\n```"
    assert detect_repetition(paragraphs(fence, STORE, fence)).found


def test_each_repeat_is_reported_in_order_and_examples_are_capped() -> None:
    text = paragraphs(INDEXER, FACTS, INDEXER, FACTS, INDEXER, FACTS, INDEXER)
    found, examples, ratio = detect_repetition(text, max_examples=3)
    assert found and ratio == pytest.approx(2 / 7)
    assert [example[:45] for example in examples] == [
        "repeated section: lines 5-5 repeat lines 1-1 ",
        "repeated section: lines 7-7 repeat lines 3-3 ",
        "repeated section: lines 9-9 repeat lines 1-1 ",
    ]
    assert detect_repetition(text, max_examples=0) == (True, [], pytest.approx(2 / 7))


# --- generation loops -----------------------------------------------------------------

LOOPS = {
    "one-word": ("Intro. " + "the " * 30 + "end.", "'the' repeated 30 times"),
    "mixed-case-and-punctuation": ("The the, THE the. " * 5, "'The' repeated 20 times"),
    "sentence": ("I'm sorry. " * 12, '"I\'m sorry." repeated 12 times'),
    "lines": ("I'm sorry.\n" * 12, '"I\'m sorry." repeated 12 times'),
    "blank-line-paragraphs": ("I'm sorry.\n\n" * 12, '"I\'m sorry." repeated 12 times'),
    "three-word-cycle": ("a b c " * 10, "'a b c' repeated 10 times"),
    "long-sentence": (
        "I cannot help with that request right now, sorry. " * 8,
        "repeated 8 times",
    ),
    "ha-token": ("lol " + "ha" * 40, "'ha' repeated 40 times"),
    "ab-token": ("ab" * 200, "'ab' repeated 200 times"),
    "list-of-one-item": ("- Not applicable\n" * 10, "'Not applicable' repeated 10 times"),
}


@pytest.mark.parametrize(("text", "expected"), LOOPS.values(), ids=LOOPS.keys())
def test_generation_loop_is_found(text: str, expected: str) -> None:
    found, examples, _ = detect_repetition(text)
    assert found
    assert examples[0].startswith("generation loop: ")
    assert expected in examples[0]


NOT_LOOPS = {
    "bullet-list": "\n".join(f"- item {number}" for number in range(40)),
    "numbered-steps": "\n".join(f"{number}. Run the tests again" for number in range(1, 30)),
    "yes-table-row": "| a | b | c | d | e | f | g | h | i |\n"
    "|---|---|---|---|---|---|---|---|---|\n"
    "| Yes | Yes | Yes | Yes | Yes | Yes | Yes | Yes | Yes |\n",
    "table-delimiter": "| " + " | ".join(["---"] * 20) + " |",
    "code-structure": "```python\n"
    + "row = [None, None, None, None, None, None, None, None, None, None]\n" * 2
    + "self.assertEqual(first, second)\n" * 10
    + "```\n",
    "refrain-lines": (
        "Let it be, let it be, let it be, let it be\nWhisper words of wisdom, let it be\n\n"
        "When I find myself in times of trouble\nMother Mary comes to me\n\n"
        "Let it be, let it be, let it be, let it be\nThere will be an answer, let it be\n"
    ),
    "na-na-refrain": "Na na na na, na na na na, hey hey, goodbye\n" * 2,
    "emphasis": "This is very very very very very very very very important.",
    "rules": "-" * 100 + "\n\n" + "=" * 80 + "\n\n" + "*" * 60,
    "zeros": " ".join(["0"] * 100),
    "base64-in-code": "```\n" + "A" * 120 + "\n```",
    "url": "See https://example.com/aaaa/bbbb/cccc/dddd/eeee/ffff/gggg for details.",
    "seven-repeats": "a b c " * 7,
    "fifteen-words": "the " * 15,
    "thirty-one-chars": "ab" * 15 + "a",
}


@pytest.mark.parametrize("text", NOT_LOOPS.values(), ids=NOT_LOOPS.keys())
def test_ordinary_repetition_is_not_a_loop(text: str) -> None:
    assert detect_repetition(text) == (False, [], 1.0)


def test_loop_thresholds_are_at_the_documented_counts() -> None:
    assert detect_repetition("the " * 16).found  # 16 words
    assert not detect_repetition("the " * 15).found
    assert detect_repetition("ab" * 16).found  # 16 repeats, 32 characters
    assert not detect_repetition("ab" * 15 + "a").found
    assert detect_repetition("a b c " * 8).found  # 8 repeats, 24 words
    assert not detect_repetition("a b c d e f g h i " * 8).found  # period 9: too long


def test_loops_in_code_need_four_times_the_repeats() -> None:
    assert not detect_repetition("```\n" + "None, " * 31 + "\n```").found
    assert not detect_repetition("```\n" + "None, " * 63 + "\n```").found  # 63 words
    assert detect_repetition("```\n" + "None, " * 64 + "\n```").found
    assert detect_repetition("None, " * 16).found  # the same in prose


def test_loops_come_first_among_examples() -> None:
    text = paragraphs(INDEXER, INDEXER, "the " * 20)
    _, examples, _ = detect_repetition(text)
    assert [example.split(":")[0] for example in examples] == [
        "generation loop",
        "repeated section",
    ]


# --- unique content ratio -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ratio"),
    [
        ("", 1.0),
        ("   \n\n\t", 1.0),
        ("Too short to compare.", 1.0),
        (paragraphs(INDEXER), 1.0),
        (paragraphs(INDEXER, STORE), 1.0),
        (paragraphs(INDEXER, INDEXER), 0.5),
        (paragraphs(INDEXER, INDEXER_EDITED, INDEXER, STORE), 0.5),
        ("the " * 100, 1.0),  # loops do not count here
    ],
)
def test_unique_content_ratio(text: str, ratio: float) -> None:
    assert calculate_unique_content_ratio(text, None) == pytest.approx(ratio)
    assert detect_repetition(text).unique_ratio == pytest.approx(ratio)


# --- repetition_within_limit -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "max_repetitions", "valid"),
    [
        (paragraphs(INDEXER, STORE), 1, True),
        (paragraphs(INDEXER, STORE, INDEXER), 1, False),
        (paragraphs(INDEXER, STORE, INDEXER), 2, True),
        (paragraphs(INDEXER, STORE, INDEXER, INDEXER_EDITED), 2, False),
        (paragraphs(INDEXER, STORE, INDEXER, INDEXER_EDITED), 3, True),
        ("Fine. " + "the " * 20, 5, False),  # a loop fails whatever the limit
    ],
)
def test_validate_no_repetition(text: str, max_repetitions: int, valid: bool) -> None:
    assert repetition_within_limit(text, max_repetitions=max_repetitions) is valid


# --- deduplicate_sections ---------------------------------------------------------------

DOC = (
    "# Guide\n\n## Overview\n\n"
    f"{INDEXER}\n\n{FACTS}\n\n"
    f"## Details\n\n{INDEXER_EDITED}\n\n### More\n\n{FACTS}\n\n"
    "## Empty heading\n\n## End\n\nThat is all there is to say about it.\n"
)


def test_deduplicate_keeps_first_occurrences_in_order_and_drops_emptied_headings() -> None:
    result = deduplicate_sections(DOC, max_repetitions=1, min_content_preservation=0)
    # `## Details` lost all it had, `### More` with it; `## Empty heading` had nothing
    # to begin with and stays.
    assert result == (
        f"# Guide\n\n## Overview\n\n{INDEXER}\n\n{FACTS}\n\n"
        "## Empty heading\n\n## End\n\nThat is all there is to say about it.\n"
    )


def test_a_heading_with_new_content_stays() -> None:
    text = f"## A\n\n{INDEXER}\n\n## B\n\n{INDEXER}\n\n{STORE}\n"
    assert deduplicate_sections(text, max_repetitions=1, min_content_preservation=0) == (
        f"## A\n\n{INDEXER}\n\n## B\n\n{STORE}\n"
    )


def test_a_subheading_with_new_content_keeps_its_parent() -> None:
    text = f"## A\n\n{INDEXER}\n\n## B\n\n{INDEXER}\n\n### B.1\n\n{STORE}\n"
    assert deduplicate_sections(text, max_repetitions=1, min_content_preservation=0) == (
        f"## A\n\n{INDEXER}\n\n## B\n\n### B.1\n\n{STORE}\n"
    )


@pytest.mark.parametrize(
    ("max_repetitions", "kept"),
    [
        (1, [INDEXER, STORE]),
        (2, [INDEXER, STORE, INDEXER]),
        (3, [INDEXER, STORE, INDEXER, INDEXER_EDITED]),
    ],
)
def test_max_repetitions_is_how_often_a_section_may_occur(
    max_repetitions: int, kept: list[str]
) -> None:
    text = paragraphs(INDEXER, STORE, INDEXER, INDEXER_EDITED)
    result = deduplicate_sections(text, max_repetitions, min_content_preservation=0)
    assert result == paragraphs(*kept)


ALL_FIVE = [INDEXER, STORE, INDEXER, INDEXER_PARAPHRASE, INDEXER_EDITED]


@pytest.mark.parametrize(
    ("mode", "threshold", "kept"),
    [
        # conservative: threshold at least 0.9 and three occurrences kept: nothing goes.
        ("conservative", None, ALL_FIVE),
        ("conservative", 0.65, ALL_FIVE),
        # balanced: the settings as given.
        ("balanced", None, [INDEXER, STORE, INDEXER_PARAPHRASE]),
        ("balanced", 0.65, [INDEXER, STORE]),
        # aggressive: threshold at most 0.7, one occurrence kept.
        ("aggressive", None, [INDEXER, STORE]),
        ("aggressive", 0.95, [INDEXER, STORE]),
    ],
)
def test_modes_bound_the_threshold_and_the_occurrences_kept(
    mode: str, threshold: float | None, kept: list[str]
) -> None:
    text = paragraphs(*ALL_FIVE)
    result = deduplicate_sections(
        text, 1, mode=mode, similarity_threshold=threshold, min_content_preservation=0
    )
    assert result == paragraphs(*kept)
    assert MODE_THRESHOLDS == {"conservative": 0.95, "balanced": 0.8, "aggressive": 0.65}


def test_a_repeat_of_a_repeat_counts_against_the_first_occurrence() -> None:
    # PARAPHRASE is 0.72 from INDEXER but 0.81 from EDITED, which repeats INDEXER.
    assert text_similarity(INDEXER, INDEXER_PARAPHRASE) < 0.8
    text = paragraphs(INDEXER, STORE, INDEXER_EDITED, INDEXER_PARAPHRASE)
    assert deduplicate_sections(text, max_repetitions=2, min_content_preservation=0) == (
        paragraphs(INDEXER, STORE, INDEXER_EDITED)
    )


def test_too_much_removed_returns_the_original_text() -> None:
    text = paragraphs(INDEXER, INDEXER, INDEXER)  # dedup would keep a third
    assert deduplicate_sections(text, max_repetitions=1) is text
    assert deduplicate_sections(text, max_repetitions=1, min_content_preservation=0.34) is text
    assert deduplicate_sections(
        text, max_repetitions=1, min_content_preservation=0.33
    ) == paragraphs(INDEXER)
    twice = paragraphs(INDEXER, STORE, INDEXER)  # keeps ~66%
    assert deduplicate_sections(twice, max_repetitions=1) == paragraphs(INDEXER, STORE)


@pytest.mark.parametrize(
    "text",
    ["", "   ", paragraphs(INDEXER, STORE), "the " * 40, f"{INDEXER}\r\n\r\n{STORE}\r\n"],
)
def test_nothing_to_remove_returns_the_same_object(text: str) -> None:
    assert deduplicate_sections(text, max_repetitions=1) is text
    if "the the" not in text:
        assert clean_repetitive_output(text, max_repetitions=1) is text


def test_line_ends_and_the_final_newline() -> None:
    crlf = f"{INDEXER}\r\n\r\n{STORE}\r\n\r\n{INDEXER}\r\n"
    assert deduplicate_sections(crlf, max_repetitions=1) == f"{INDEXER}\n\n{STORE}\n"
    no_newline = f"{INDEXER}\n\n{STORE}\n\n{INDEXER}"
    assert deduplicate_sections(no_newline, max_repetitions=1) == f"{INDEXER}\n\n{STORE}"


# --- clean_repetitive_output ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cleaned"),
    [
        ("Answer: " + "the " * 30 + "end.", "Answer: the end."),
        ("Sure. " + "I'm sorry. " * 20 + "Let me retry.", "Sure. I'm sorry. Let me retry."),
        ("I'm sorry.\n" * 12 + "Done.\n", "I'm sorry.\nDone.\n"),
        ("Laugh: " + "ha" * 50 + "!", "Laugh: ha!"),
        (paragraphs(INDEXER, STORE, INDEXER), paragraphs(INDEXER, STORE)),
        (
            paragraphs(INDEXER, "the " * 20 + "x", STORE, INDEXER_EDITED),
            paragraphs(INDEXER, "the x", STORE),
        ),
    ],
)
def test_clean_collapses_loops_and_removes_repeats(text: str, cleaned: str) -> None:
    result = clean_repetitive_output(text, max_repetitions=1)
    assert result == cleaned
    assert repetition_within_limit(result)
    assert clean_repetitive_output(result, max_repetitions=1) == result  # idempotent


def test_loops_are_collapsed_whatever_the_content_preservation() -> None:
    text = "ok " + "the " * 1000
    assert (
        clean_repetitive_output(text, max_repetitions=1, min_content_preservation=1.0) == "ok the "
    )
    repeated = paragraphs(INDEXER, INDEXER, INDEXER)
    assert (
        clean_repetitive_output(repeated, max_repetitions=1) is repeated
    )  # the dedup step refuses


# --- repetition_check -------------------------------------------------------------------


def test_check_passes_clean_text() -> None:
    check = repetition_check()
    assert isinstance(check, Check) and check.name == "repetition"
    assert check.on_fail is OnFail.FIX_REASK
    outcome = check(paragraphs(INDEXER, STORE))
    assert outcome.passed and outcome.problems == () and outcome.fixed is None


def test_check_reports_each_repetition_with_expectation_fix_and_details() -> None:
    text = paragraphs(INDEXER, STORE, INDEXER_EDITED, "Well: " + "the " * 20)
    outcome = repetition_check()(text)
    assert not outcome.passed
    loop, repeat = outcome.problems
    assert loop.message == "generation loop: 'the' repeated 20 times in a row (lines 7-7)"
    assert loop.details == {
        "kind": "generation_loop",
        "unit": "word",
        "repeats": 20,
        "lines": [7, 7],
    }
    assert repeat.message.startswith("repeated section: lines 5-5 repeat lines 1-1")
    assert repeat.details["kind"] == "repeated_section"
    assert repeat.details["lines"] == [5, 5] and repeat.details["repeats_lines"] == [1, 1]
    assert 0.8 <= repeat.details["similarity"] < 1
    for problem in outcome.problems:
        assert problem.expected and problem.fix
    # The loop's trailing space was the text's own.
    assert outcome.fixed == paragraphs(INDEXER, STORE, "Well: the ")
    assert repetition_check()(outcome.fixed).passed
    assert outcome.to_dict()["problems"][0]["details"]["kind"] == "generation_loop"


def test_check_settings() -> None:
    text = paragraphs(INDEXER, STORE, INDEXER_EDITED)
    assert repetition_check(max_repetitions=2)(text).passed
    assert repetition_check(similarity_threshold=0.95)(text).passed
    outcome = repetition_check(max_repetitions=2)(paragraphs(INDEXER, INDEXER, INDEXER, STORE))
    assert "each section written at most 2 times" in outcome.problems[0].expected
    assert repetition_check(on_fail="reask").on_fail is OnFail.REASK


def test_check_caps_problems_and_counts_the_rest() -> None:
    text = paragraphs(*[INDEXER, STORE] * 5)  # 8 repeats
    problems = repetition_check()(text).problems
    assert len(problems) == 6
    assert problems[-1].message == "3 more repetitions like the ones above"
    assert problems[-1].details == {"kind": "more", "count": 3}


def test_check_offers_no_fix_when_cleaning_would_remove_too_much() -> None:
    outcome = repetition_check()(paragraphs(INDEXER, INDEXER, INDEXER))
    assert not outcome.passed and outcome.fixed is None


# --- settings -------------------------------------------------------------------------

BAD_SETTINGS: list[tuple[Callable[[], object], str]] = [
    (lambda: detect_repetition(b"bytes"), "text must be a string"),  # type: ignore[arg-type]
    (lambda: detect_repetition(None), "text must be a string"),  # type: ignore[arg-type]
    (lambda: detect_repetition("x", similarity_threshold=0), "similarity_threshold"),
    (lambda: detect_repetition("x", similarity_threshold=1.5), "similarity_threshold"),
    (lambda: detect_repetition("x", similarity_threshold=True), "similarity_threshold"),
    (lambda: detect_repetition("x", similarity_threshold="0.8"), "similarity_threshold"),  # type: ignore[arg-type]
    (lambda: detect_repetition("x", min_section_chars=0), "min_section_chars"),
    (lambda: detect_repetition("x", max_examples=-1), "max_examples"),
    (lambda: calculate_unique_content_ratio("x", min_section_chars=2.5), "min_section_chars"),  # type: ignore[arg-type]
    (lambda: repetition_within_limit("x", max_repetitions=0), "max_repetitions"),
    (lambda: deduplicate_sections("x", mode="fast"), "mode must be one of"),
    (lambda: deduplicate_sections("x", max_repetitions=1.5), "max_repetitions"),  # type: ignore[arg-type]
    (lambda: deduplicate_sections("x", min_content_preservation=1.1), "min_content"),
    (lambda: deduplicate_sections("x", similarity_threshold=-0.1), "similarity_threshold"),
    (lambda: clean_repetitive_output("x", min_content_preservation=-0.1), "min_content"),
    (lambda: clean_repetitive_output(42), "text must be a string"),  # type: ignore[arg-type]
    (lambda: text_similarity("x", 1), "text must be a string"),  # type: ignore[arg-type]
    (lambda: repetition_check(max_repetitions=0), "max_repetitions"),
    (lambda: repetition_check(similarity_threshold=2), "similarity_threshold"),
    (lambda: repetition_check(on_fail="retry"), "on_fail must be one of"),
]


@pytest.mark.parametrize(("call", "message"), BAD_SETTINGS)
def test_bad_settings_raise_configuration_error_naming_the_argument(
    call: Callable[[], object], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        call()


# --- similarity -----------------------------------------------------------------------


def test_similarity_is_the_mean_of_jaccard_cosine_and_trigram_overlap() -> None:
    first, second = "a a b c", "a b b d"
    jaccard = 2 / 4  # {a, b} of {a, b, c, d}
    cosine = (2 * 1 + 1 * 2) / (math.sqrt(4 + 1 + 1) * math.sqrt(1 + 4 + 1))
    grams_first = {"a a", " a ", "a b", " b ", "b c"}
    grams_second = {"a b", " b ", "b b", "b d"}
    trigram = len(grams_first & grams_second) / len(grams_first | grams_second)
    expected = (jaccard + cosine + trigram) / 3
    assert text_similarity(first, second) == pytest.approx(expected)
    assert text_similarity(second, first) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (INDEXER, INDEXER.upper(), 1.0),
        (INDEXER, "", 0.0),
        ("", "", 1.0),
        ("---", "- - -", 0.0),  # no words, different text
        ("***", "***", 1.0),
        ("alpha beta", "gamma delta", 0.0),
    ],
)
def test_similarity_edges(first: str, second: str, expected: float) -> None:
    assert text_similarity(first, second) == pytest.approx(expected)


# --- blocking keeps recall: against all pairs ------------------------------------------


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "dan", "gor", "lis"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))))
    return sorted(words)


def _corpus(seed: int, count: int) -> list[str]:
    """Zipf-distributed words in sentences; ~10% near-duplicates of earlier paragraphs."""
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng, 3000)
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]

    def sentence() -> str:
        words = rng.choices(vocabulary, weights, k=rng.randint(6, 18))
        return " ".join(words).capitalize() + "."

    out: list[str] = []
    while len(out) < count:
        if len(out) > 5 and rng.random() < 0.1:
            words = rng.choice(out).split()
            for _ in range(rng.choice([0, 1, 2, 3, 5, 8])):
                position = rng.randrange(len(words))
                action = rng.random()
                if action < 0.6:
                    words[position] = rng.choices(vocabulary, weights)[0]
                elif action < 0.8 and len(words) > 8:
                    del words[position]
                else:
                    words.insert(position, rng.choices(vocabulary, weights)[0])
            out.append(" ".join(words))
        else:
            out.append(" ".join(sentence() for _ in range(rng.randint(2, 6))))
    return out


def _all_pairs(text: str, threshold: float) -> set[int]:
    """First lines of the prose sections repeating an earlier one, every pair compared."""
    lines = text.split("\n")
    profiles = []
    short: dict[tuple[str, ...], int] = {}
    repeated_short: set[int] = set()
    for block in similarity.split_blocks(lines):
        body = "\n".join(lines[block.start : block.end]).strip()
        words = similarity._words(body)
        if len(body) >= repetition.DEFAULT_MIN_SECTION_CHARS:
            profiles.append((block.start, similarity._Profile(words)))
        elif words and tuple(words) in short:
            repeated_short.add(block.start)
        elif words:
            short[tuple(words)] = block.start
    return repeated_short | {
        line
        for later, (line, profile) in enumerate(profiles)
        if any(similarity._similarity(profile, other) >= threshold for _, other in profiles[:later])
    }


@pytest.mark.parametrize("threshold", [0.65, 0.8, 0.95])
def test_blocking_finds_what_all_pairs_find(threshold: float) -> None:
    text = "\n\n".join(_corpus(7, 400))
    expected = _all_pairs(text, threshold)
    analysis = repetition_scan.analyze(text, threshold, repetition.DEFAULT_MIN_SECTION_CHARS)
    found = {analysis.blocks[match.block].start for match in analysis.matches}
    assert len(expected) >= 15  # the corpus does hold near-duplicates
    # Every match is verified, so nothing extra; and nothing is missed.
    assert found == expected


def test_blocking_verifies_a_bounded_number_of_candidates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = Counter[str]()
    exact = similarity._similarity

    def counting(*args: object) -> float:
        calls["pairs"] += 1
        return exact(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(similarity, "_similarity", counting)
    sections = _corpus(11, 600)
    detect_repetition("\n\n".join(sections))
    assert calls["pairs"] <= similarity.MAX_CANDIDATES * len(sections)
    assert calls["pairs"] < len(sections) * (len(sections) - 1) / 2 / 20


# --- odd input: never raises, linear time ---------------------------------------------

ODD = {
    "empty": "",
    "whitespace": " \t\n\r\n\x0b\x0c\u2028\u00a0",
    "binaryish": "\x00\xff" * 50 + bytes(range(256)).decode("latin-1"),
    "lone-surrogates": "\ud800 abc \udfff" * 20,
    "combining": "a" + "\u0301" * 5000 + " word " * 3,
    "rtl-and-cjk": "שלום עולם. 你好，世界。 " * 5 + "\n\n" + "שלום עולם. 你好，世界。 " * 5,
    "eszett-loop": "ß" * 100,
    "unclosed-fence": "```\n" + INDEXER + "\n\n" + INDEXER,
    "only-headings": "# A\n## B\n### C\n",
    "setext-lines": "x\n===\n\n---\n\n===\n",
}


@pytest.mark.parametrize("text", ODD.values(), ids=ODD.keys())
def test_odd_text_never_raises(text: str) -> None:
    result = detect_repetition(text)
    assert isinstance(result.found, bool) and 0.0 <= result.unique_ratio <= 1.0
    assert isinstance(repetition_within_limit(text), bool)
    assert isinstance(
        deduplicate_sections(text, max_repetitions=1, min_content_preservation=0), str
    )
    assert isinstance(
        clean_repetitive_output(text, max_repetitions=1, min_content_preservation=0), str
    )
    repetition_check()(text)


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_no_function_raises_on_generated_text(text: str) -> None:
    found, examples, ratio = detect_repetition(text, min_section_chars=1)
    assert 0.0 <= ratio <= 1.0 and (found or not examples)
    calculate_unique_content_ratio(text)
    repetition_within_limit(text)
    deduplicate_sections(text, max_repetitions=1, min_content_preservation=0, min_section_chars=1)
    clean_repetitive_output(
        text, max_repetitions=1, min_content_preservation=0, min_section_chars=1
    )
    outcome = repetition_check()(text)
    if outcome.fixed is not None:
        assert repetition_check()(outcome.fixed).passed


MARKDOWNISH = st.lists(
    st.sampled_from(
        [
            "a",
            "b ",
            " ",
            "\n",
            "\n\n",
            "#",
            "## H\n",
            "```\n",
            "~~~\n",
            "---\n",
            "===\n",
            "- ",
            "| x |",
            "the ",
            "I'm sorry. ",
            "ha",
            "    ",
            INDEXER,
            INDEXER_EDITED,
            STORE,
        ]
    ),
    max_size=120,
).map("".join)


@settings(deadline=None, max_examples=200)
@given(text=MARKDOWNISH)
def test_cleaned_markdown_fragments_pass_the_check(text: str) -> None:
    outcome = repetition_check()(text)
    if outcome.fixed is not None:
        assert repetition_check()(outcome.fixed).passed
    cleaned = clean_repetitive_output(text, max_repetitions=1, min_content_preservation=0)
    assert repetition_within_limit(cleaned)


def _seconds(text: str) -> float:
    started = time.perf_counter()
    detect_repetition(text)
    clean_repetitive_output(text, max_repetitions=1, min_content_preservation=0)
    return time.perf_counter() - started


def _random_paragraphs(size: int, vocabulary: int) -> str:
    rng = random.Random(size)
    words = [f"w{number}" for number in range(vocabulary)]
    out: list[str] = []
    length = 0
    while length < size:
        paragraph = " ".join(rng.choice(words) for _ in range(12))
        out.append(paragraph)
        length += len(paragraph) + 2
    return "\n\n".join(out)


GROWING = {
    "one-word-loop": lambda n: "the " * (n // 4),
    "char-loop": lambda n: "ha" * (n // 2),
    "sentence-loop": lambda n: "I'm sorry.\n\n" * (n // 12),
    "same-paragraph": lambda n: "\n\n".join([INDEXER] * (n // len(INDEXER))),
    "near-period": lambda n: ("abcdefgh" * 7 + "X ") * (n // 58),
    "distinct-paragraphs": lambda n: _random_paragraphs(n, 5000),
    "small-vocabulary": lambda n: _random_paragraphs(n, 40),
    "fences": lambda n: "```\n" * (n // 4),
    "headings": lambda n: "## H\n" * (n // 5),
    "dashes": lambda n: "-" * n,
    "combining-marks": lambda n: "a" + "\u0301" * n,
    "table-rows": lambda n: "| a | b |\n|---|---|\n" + "| x | y |\n" * (n // 10),
}


@pytest.mark.parametrize("make", GROWING.values(), ids=GROWING.keys())
def test_work_grows_linearly(make: Callable[[int], str]) -> None:
    # 4x the text must take about 4x the time; a quadratic step would take 16x.
    short, long = _seconds(make(50_000)), _seconds(make(200_000))
    assert long < 10 * short + 1.0
