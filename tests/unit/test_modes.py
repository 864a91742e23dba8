"""Formatting hygiene, response modes and their checks."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.checks.formatting import fix_formatting, formatting_check, formatting_result
from citeloop.checks.modes import (
    CompletenessResult,
    ResponseMode,
    complete_check,
    completeness_result,
    response_mode,
)
from citeloop.errors import ConfigurationError, ValidationError

# --- formatting -----------------------------------------------------------------------

FORMATTING = {
    "clean": ("A sentence with `code` and ``a ` tick``.\n\n```py\nx = 1\n```\n", ()),
    "empty": ("", ("empty",)),
    "whitespace": (" \n\t\r\n", ("empty",)),
    "invisible": ("\u200b\ufeff \u200d", ("empty",)),
    "unclosed-fence": ("Here:\n```python\nprint(1)\n", ("unclosed_fence",)),
    "unclosed-tilde-fence": ("~~~\ncode", ("unclosed_fence",)),
    "fence-closed-by-longer": ("```\ncode\n`````\n", ()),
    "unmatched-backtick": ("Call `build_index with a root.", ("unbalanced_backticks",)),
    "unmatched-double": ("Use ``x` here and then call it.", ("unbalanced_backticks",)),
    "unmatched-swallows-line": (
        "Then run ``make install and wait for the build.",
        ("unbalanced_backticks",),
    ),
    "unmatched-triple-inline": (
        "Run ```pip install citeloop and then start it.",
        ("unbalanced_backticks",),
    ),
    "escaped-backtick": ("A literal \\` backtick.", ()),
    "span-across-lines": ("Use `a\nb` here.", ()),
    "span-not-across-paragraphs": ("Use `a long name here\n\nb` here.", ("unbalanced_backticks",)),
    "backticks-in-code-block": ("```\nodd ` tick\n```\n", ()),
    "nul": ("Done.\x00", ("control_characters",)),
    "escape-sequence": ("\x1b[31mred\x1b[0m", ("control_characters",)),
    "c1-control": ("a\x85b", ("control_characters",)),
    "tabs-and-crlf": ("a\tb\r\nc\n", ()),
    "replacement": ("caf\ufffd", ("replacement_characters",)),
    "lone-surrogate": ("a\ud800b", ("lone_surrogates",)),
    "two-blank-lines": ("a\n\n\nb", ()),
    "three-blank-lines": ("a\n\n\n\nb", ("blank_lines",)),
    "blank-lines-with-spaces": ("a\n \n\t\n  \n\nb", ("blank_lines",)),
    "blank-lines-in-code": ("```\na\n\n\n\n\nb\n```", ()),
    "all-at-once": (
        "`x is never closed here\x00\ufffd\n\n\n\n```\ncut",
        (
            "unclosed_fence",
            "unbalanced_backticks",
            "control_characters",
            "replacement_characters",
            "blank_lines",
        ),
    ),
}


@pytest.mark.parametrize(("text", "codes"), FORMATTING.values(), ids=FORMATTING.keys())
def test_formatting_rules(text: str, codes: tuple[str, ...]) -> None:
    result = formatting_result(text)
    assert result.codes == codes
    assert result.passed == (not codes)
    for problem in result.problems:
        assert problem.message and problem.expected and problem.fix


def test_formatting_problem_details_point_at_the_first_issue() -> None:
    text = "Intro.\n\nThen `open and never close it\n\nmore `open and more words."
    (problem,) = formatting_result(text).problems
    assert problem.details["count"] == 2
    assert problem.details["position"] == text.index("`")
    assert problem.details["line"] == 3


def test_max_blank_lines_setting() -> None:
    assert formatting_result("a\n\nb", max_blank_lines=0).codes == ("blank_lines",)
    assert formatting_result("a\n\n\n\n\nb", max_blank_lines=4).codes == ()
    with pytest.raises(ConfigurationError, match="max_blank_lines"):
        formatting_result("a", max_blank_lines=-1)


def test_fix_formatting_removes_only_what_is_safe() -> None:
    text = "a\x00b\ud800\n\n\n\n\nc\n```\nx\n\n\n\n\ny\n```\n"
    assert fix_formatting(text) == "ab\n\n\nc\n```\nx\n\n\n\n\ny\n```\n"


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("Done.\x00", "Done."),
        ("a\n\n\n\n\nb", "a\n\n\nb"),
        ("Unclosed `tick and more words", None),
        ("```\ncut", None),
        ("Mixed \x00 and `tick that is never closed", None),
        ("\x00", None),  # the fix would leave nothing
        # the fix would join the backticks into one unmatched run
        ("Call `\x00`build_index with a root.", None),
    ],
)
def test_formatting_check_fixes_only_fixable_issues(text: str, fixed: str | None) -> None:
    check = formatting_check(on_fail="fix")
    outcome = check(text)
    assert not outcome.passed
    assert outcome.fixed == fixed
    if fixed is not None:
        assert check(fixed).passed


def test_formatting_check_passes_clean_text() -> None:
    outcome = formatting_check()("Fine.")
    assert outcome.passed and outcome.fixed is None


# --- modes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "mode"),
    [
        ("short", ResponseMode.SHORT),
        ("LONG", ResponseMode.LONG),
        (" Structured ", ResponseMode.STRUCTURED),
        (ResponseMode.RAW, ResponseMode.RAW),
    ],
)
def test_response_mode(value: str, mode: ResponseMode) -> None:
    assert response_mode(value) is mode


@pytest.mark.parametrize("value", ["brief", "", 3, None])
def test_unknown_mode_is_a_configuration_error(value: object) -> None:
    with pytest.raises(ConfigurationError, match="'short'"):
        response_mode(value)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        complete_check(value)  # type: ignore[arg-type]


COMPLETE = "Paris is the capital of France. It has about two million inhabitants."

CUT_OFF = {
    "mid-sentence": ("Paris is the capital. It has about two million people and", True),
    "trailing-comma": ("Paris, Lyon,", True),
    "trailing-colon": ("Here are the steps:", True),
    "dangling-dash": ("The answer is pre-", True),
    "open-paren": ("See the docs (", True),
    "heading-at-end": ("Intro.\n\n## Details", True),
    "list-item-comma": ("Steps:\n- open the file,", True),
    "finished": (COMPLETE, False),
    "yes": ("Yes", False),
    "short-no-period": ("The answer is 42", False),
    "no-sentences-at-all": ("one two three four five six", False),
    "question": ("Is that what you meant?", False),
    "ellipsis": ("And so on…", False),
    "closing-quote": ('He said "it works."', False),
    "bold-end": ("This is **important.**", False),
    "list-item": ("Steps.\n- open the file\n- save it", False),
    "table": ("Data.\n\n| a | b |\n|---|---|\n| 1 | 2 |", False),
    "code-block-end": ("Run:\n```\nmake\n```", False),
    "url-end": ("More details are here. See https://example.com/docs", False),
    "email-end": ("Questions are welcome. Write to support@example.com", False),
    "emoji-end": ("Glad it worked. Have a nice day 🙂", False),
    "label-line": ("GraphStore holds the graph.\n\nEntities used: GraphStore, build_index", False),
    "connector-en-dash": ("The range is 10 –", True),
    "connector-em-dash": ("The answer is simple —", True),
    "apa-doi": ("Reference.\n\n- Smith, J. (2020). A title. https://doi.org/10.1000/xyz123", False),
    "closing-paren": ("The result is stable across runs (see Table 2)", False),
    "url-with-paren": ("Read more here. See https://en.wikipedia.org/wiki/Foo_(bar", False),
}


@pytest.mark.parametrize(("text", "cut"), CUT_OFF.values(), ids=CUT_OFF.keys())
def test_standard_mode_detects_answers_cut_off(text: str, cut: bool) -> None:
    result = completeness_result(text)
    assert ("truncated" in result.codes) == cut
    assert result.passed == (not cut)


def test_standard_mode_reports_cut_inside_code_as_unclosed_fence() -> None:
    result = completeness_result("Run:\n```bash\nmake inst")
    assert result.codes == ("unclosed_fence",)


@pytest.mark.parametrize(
    ("mode", "text", "codes"),
    [
        ("raw", "", ("empty",)),
        ("raw", "half a sent,\x00 `", ()),
        ("standard", " ", ("empty",)),
        ("standard", COMPLETE, ()),
        ("short", COMPLETE, ()),
        ("short", "word " * 300 + "end.", ("too_long",)),
        ("short", "Cut off, but short,", ()),
        ("long", COMPLETE, ("too_short",)),
        ("long", "A long answer. " * 150, ()),
        ("long", "A long answer. " * 150 + "And then it stops in the middle of", ("truncated",)),
        ("long", "```\n" + "code\n" * 500, ("unclosed_fence",)),
        ("short", "Use `x and then call it again.", ("unbalanced_backticks",)),
    ],
)
def test_modes_bundle_checks(mode: str, text: str, codes: tuple[str, ...]) -> None:
    result = completeness_result(text, mode)
    assert isinstance(result, CompletenessResult)
    assert result.codes == codes
    assert result.mode is ResponseMode(mode)
    assert (result.length is not None) == (mode in ("short", "long"))


def test_token_bounds_of_short_and_long() -> None:
    assert completeness_result(
        "one two three.", "short", max_tokens=2, tokenizer=str.split
    ).codes == ("too_long",)
    assert completeness_result("one two.", "long", min_tokens=2, tokenizer=str.split).passed


@pytest.mark.parametrize(
    ("mode", "settings", "match"),
    [
        ("standard", {"schema": {"type": "object"}}, "mode 'structured'"),
        ("standard", {"min_tokens": 3}, "min_tokens"),
        ("short", {"min_tokens": 3}, "min_tokens"),
        ("raw", {"max_tokens": 3}, "max_tokens"),
        ("short", {"max_tokens": -3}, "max_tokens"),
        ("structured", {"schema": {"type": 5}}, "schema"),
    ],
)
def test_mode_settings_are_checked(mode: str, settings: dict, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        completeness_result("text.", mode, **settings)
    with pytest.raises(ConfigurationError, match=match):
        complete_check(mode, **settings)


# --- structured -----------------------------------------------------------------------

SCHEMA = {"type": "object", "required": ["answer"], "properties": {"answer": {"type": "string"}}}


def test_structured_returns_the_value() -> None:
    result = completeness_result('Here:\n```json\n{"answer": "42"}\n```', "structured", SCHEMA)
    assert result.passed and result.value == {"answer": "42"} and result.problems == ()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I cannot answer that.", "no_json"),
        ('{"answer": "the text was cu', "truncated"),
        ('[{"answer": "a"}, {"answer": "b"}, {"ans', "truncated"),
        ('{"answer": 42}', "schema"),
        ("", "empty"),
    ],
)
def test_structured_raises_on_failure(text: str, reason: str) -> None:
    schema = SCHEMA if not text.startswith("[") else None
    with pytest.raises(ValidationError) as caught:
        completeness_result(text, ResponseMode.STRUCTURED, schema)
    assert caught.value.details["reason"] == reason


def test_structured_check_is_the_json_check_with_a_fix() -> None:
    check = complete_check("structured", SCHEMA)
    assert check.on_fail == "fix_reask"
    outcome = check('```json\n{"answer": "42"}\n```')
    assert not outcome.passed and outcome.fixed == '{"answer": "42"}'
    assert check(outcome.fixed).passed
    schema_failure = check('{"answer": 1}')
    assert schema_failure.fixed is None
    assert schema_failure.problems[0].details["path"] == "$.answer"


# --- complete_check -------------------------------------------------------------------


def test_complete_check_outcomes() -> None:
    check = complete_check()
    assert repr(check) == "Check('complete', on_fail='fix_reask')"
    passed = check(COMPLETE)
    assert passed.passed and isinstance(passed.value, CompletenessResult)
    cut = check("It was fine. But then the answer was cut because the")
    assert not cut.passed and cut.fixed is None
    assert cut.problems[0].details["code"] == "truncated"
    fixable = check(COMPLETE + "\x00")
    assert fixable.fixed == COMPLETE and check(fixable.fixed).passed


def test_complete_check_checks_tokenizer_at_once() -> None:
    with pytest.raises(ConfigurationError, match="tokenizer"):
        complete_check("short", tokenizer=7)


# --- never raises, linear time --------------------------------------------------------

SIGNAL_MODES = [mode for mode in ResponseMode if mode is not ResponseMode.STRUCTURED]
MARKDOWNISH = st.text(
    alphabet=st.sampled_from(list("`~#-*|>\\\n \t.,:;(a1\x00\ufffd")), max_size=300
)


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_signal_checks_never_raise_on_any_text(text: str) -> None:
    formatting_result(text)
    for mode in SIGNAL_MODES:
        result = completeness_result(text, mode)
        assert result.passed == (not result.problems)


@settings(deadline=None, max_examples=200)
@given(text=MARKDOWNISH)
def test_signal_checks_never_raise_on_markdown_fragments(text: str) -> None:
    outcome = formatting_check(on_fail="fix")(text)
    if outcome.fixed is not None:
        assert formatting_check()(outcome.fixed).passed
    complete_check()(text)


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_structured_raises_only_validation_error(text: str) -> None:
    with contextlib.suppress(ValidationError):
        completeness_result(text, "structured")


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "backticks": lambda n: "`" * n,
    "alternating-backtick-runs": lambda n: "` `` " * (n // 5),
    "escaped-backticks": lambda n: "\\`" * (n // 2),
    "backslashes-then-tick": lambda n: "\\" * n + "`",
    "fences": lambda n: "```\n" * (n // 4),
    "unclosed-fence-spaces": lambda n: "```" + " " * n,
    "blank-lines": lambda n: "a" + "\n" * n,
    "spaces": lambda n: " " * n + "x",
    "nul": lambda n: "\x00" * n,
    "long-line": lambda n: "word, " * (n // 6),
    "many-lines": lambda n: "a line.\n" * (n // 8),
    "hashes": lambda n: "#" * n,
    "open-ticks-and-words": lambda n: "`a b c d e " * (n // 11),
    "code-spans-with-brackets": lambda n: "Fine. " + "`(` " * (n // 4),
    "open-brackets": lambda n: "Fine. " + "(" * n,
    "urls-with-brackets": lambda n: "Fine. " + "https://x.y/(a " * (n // 15),
    "long-last-line": lambda n: "Fine. " + "word " * (n // 5) + "the",
}


def _seconds(text: str) -> float:
    started = time.perf_counter()
    formatting_result(text)
    completeness_result(text)
    completeness_result(text, "long")
    return time.perf_counter() - started


@pytest.mark.parametrize("make", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_adversarial_inputs_take_linear_time(make: Callable[[int], str]) -> None:
    short, long = _seconds(make(100_000)), _seconds(make(400_000))
    assert long < 10 * short + 1.0


# --- review regressions: cut-off detection (H2) ---------------------------------------

LETTER = (
    "Dear Ms. Smith,\n\nThank you for the interview. I look forward to hearing from you.\n\n"
    "Best regards,\nJane Doe\nSenior Engineer at Example Corp"
)
APA = (
    "Sources are listed below.\n\n## References\n\n"
    "Smith, J., & Lee, K. (2020). Graph retrieval for question answering. "
    "Journal of AI Research, 12(3), 45-67"
)

NOT_CUT_OFF = {
    "citation": "Paris is the capital of France. It lies on the Seine.[1]",
    "citations-spaced": "Paris is the capital of France. It lies on the Seine. [1][2]",
    "footnote": "The method is described in the paper. See the appendix for details.[^2]",
    "boxed": "We add the two numbers. So the answer is \\boxed{2}",
    "signature": LETTER,
    "apa-reference": APA,
    "closer": "Here are three options. Let me know if you'd like more details on any of these",
    "german": "Berlin ist die Hauptstadt. Die Stadt hat etwa vier Millionen Einwohner",
    "number-end": "Preheat the oven to 180 degrees. Then bake the cake for 10 minutes",
    "arrow": "The pipeline has three stages. The data flows A -> B -> C",
    "stranded-preposition": "Pick the tool. It is the one I was telling you about",
    "pronoun-that": "Thanks for the report. I will look into that",
    "plan-a": "Both plans work. I would still go with plan A",
    "old-rule-mid-sentence": "Paris is the capital. It has about two million",
    "half-open-interval": "The estimate is fine. It lies in [0, 1)",
    "code-span-paren": "Everything is set up. Now call `start(` in the shell",
    "emoticon": "Sorry, that did not work :(",
}


@pytest.mark.parametrize("text", NOT_CUT_OFF.values(), ids=NOT_CUT_OFF.keys())
def test_complete_answers_are_not_called_cut_off(text: str) -> None:
    result = completeness_result(text)
    assert result.passed, result.problems
    assert complete_check()(text).passed


CUT_OFF_PRECISE = {
    "list-item-article": "Steps:\n1. Open the app.\n2. Go to the network tab and Configure the",
    "because-the": "Note: the build failed on Monday because the",
    "open-paren-in-line": "The error rate dropped sharply (see Table",
    "open-bracket": "The results improved in every run [as shown",
    "and": "We need flour, sugar and",
    "of": "It is one of the largest cities of",
}


@pytest.mark.parametrize("text", CUT_OFF_PRECISE.values(), ids=CUT_OFF_PRECISE.keys())
def test_real_cut_offs_are_found(text: str) -> None:
    result = completeness_result(text)
    assert result.codes == ("truncated",)
    outcome = complete_check()(text)
    assert not outcome.passed and outcome.fixed is None


def test_function_word_rule_needs_three_words() -> None:
    assert completeness_result("Rock and").passed
    assert not completeness_result("Rock and roll and").passed


# --- review regressions: backticks (low) ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Markdown uses ` for code.",
        "He called it ``quotes'' in the old manuscript and kept doing so.",
        "I don`t think that this is what you wanted here.",
        "Mention ``` inline to show a fence marker in the text.",
    ],
)
def test_legitimate_backticks_are_not_unbalanced(text: str) -> None:
    assert formatting_result(text).passed
    assert complete_check()(text).passed


# --- review regressions: structured mode (H5, M1) -------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, I cannot produce JSON. See [1].",
        "The probability lies in [0, 1] for any event.",
        '{"id": 1}\n{"id": 2}',
        '```json\n{"id": 1}\n```\n\n```json\n{"id": 2}\n```',
    ],
)
def test_structured_check_never_fixes_prose_or_several_values(text: str) -> None:
    outcome = complete_check("structured")(text)
    assert not outcome.passed and outcome.fixed is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"id": 1}\n{"id": 2}', "multiple"),
        ('We tried ["a", "b"] first. Result:\n{"x": 1}', "multiple"),
        ('{"x": 1e999999}', "non_finite"),
        ("The probability lies in [0, 1] for any event.", "not_json"),
    ],
)
def test_structured_mode_raises_on_several_values_and_overflow(text: str, reason: str) -> None:
    with pytest.raises(ValidationError) as caught:
        completeness_result(text, "structured")
    assert caught.value.details["reason"] == reason


def test_structured_mode_accepts_a_top_level_scalar() -> None:
    assert complete_check("structured", {"type": "integer"})("42").passed
    classifier = complete_check("structured", {"enum": ["yes", "no"]})
    assert classifier('"yes"').passed and not classifier('"maybe"').passed
    assert completeness_result("null", "structured").value is None
    outcome = complete_check("structured", {"type": "integer"})("```json\n42\n```")
    assert outcome.fixed == "42"
