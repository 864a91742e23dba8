"""Unit tests of extract_citations, mask_code and citations_check (offline)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.checks.check import CheckOutcome, OnFail
from citeloop.checks.citation_spans import MAX_EXPANDED, MAX_RANGE_SPAN, CitationSpan
from citeloop.checks.citations import Citations, citations_check, extract_citations
from citeloop.checks.code_mask import mask_code
from citeloop.errors import ConfigurationError

# --- numeric ---------------------------------------------------------------------------

NUMERIC = {
    "single": ("As shown [3].", (3,)),
    "hyphen-range": ("Described in [3-5].", (3, 4, 5)),
    "en-dash-range": ("Described in [3–5].", (3, 4, 5)),
    "em-dash-range": ("Described in [3—5].", (3, 4, 5)),
    "spaced-range": ("Described in [3 - 5].", (3, 4, 5)),
    "reversed-range": ("Described in [5-3].", (3, 4, 5)),
    "group-unsorted": ("Three agree [35, 2, 5].", (2, 5, 35)),
    "group-no-spaces": ("Agree [1,2,3].", (1, 2, 3)),
    "semicolons": ("Agree [1; 4].", (1, 4)),
    "group-and-range": ("See [1, 3-5, 9].", (1, 3, 4, 5, 9)),
    "and-in-list": ("See [1, 2, and 3].", (1, 2, 3)),
    "adjacent": ("Both hold [1][2].", (1, 2)),
    "adjacent-three": ("All hold [1][2][7].", (1, 2, 7)),
    "attached-to-year": ("It was blocked in 2024[3].", (3,)),
    "after-period": ("It holds.[4] Next.", (4,)),
    "after-quote": ('He said "no"[4].', (4,)),
    "range-across-brackets": ("Known [1]–[3].", (1, 2, 3)),
    "range-across-brackets-hyphen": ("Known [2]-[4].", (2, 3, 4)),
    "locator-dropped": ("See [3, p. 5].", (3,)),
    "locator-pages": ("See [3, pp. 10-12; 4].", (3, 4)),
    "locator-figure": ("See [2, Fig. 4].", (2,)),
    "numbered-link": ("Per [1](https://a.org) and [2](https://b.org).", (1, 2)),
    "duplicates-once": ("Again [2] and [2] and [1-2].", (1, 2)),
    "line-start-bibliography": ("[1] Smith, J. A paper. 2020.", (1,)),
    "in-list-item": ("- first point [6]\n- second point [7]", (6, 7)),
    "inner-spaces": ("See [ 8 ].", (8,)),
    "after-bold": ("**Key result**[9].", (9,)),
    "in-parentheses-after-space": ("Known (see [1], [2]).", (1, 2)),
    "after-a-closed-call": ("Call f(x) and see [5].", (5,)),
    "after-a-parenthetical-citation": ("Shown (Smith, 2020) [4].", (4,)),
    "lone-zero-is-read": ("See [0].", (0,)),
}


@pytest.mark.parametrize(("text", "expected"), NUMERIC.values(), ids=NUMERIC.keys())
def test_numeric_citations(text: str, expected: tuple[int, ...]) -> None:
    assert extract_citations(text).numeric == expected


NOT_NUMERIC = {
    "index-after-identifier": "Index the array as a[0].",
    "index-after-call": "Call f(x)[1] to get it.",
    "index-after-index": "Use grid[0][1] here.",
    "identifier-with-digits": "Read x1[2] first.",
    "word-in-brackets": "See the list [docs].",
    "markdown-link": "Read [the guide](https://x.org/2).",
    "reference-link": "Read [docs][1] first.",
    "footnote": "A claim[^1] and [^2].",
    "footnote-definition": "[^1]: The note.",
    "checkbox": "- [x] done\n- [ ] todo\n- [X] also",
    "image": "![1](figure.png)",
    "link-reference-definition": "[1]: https://example.org/paper",
    "indented-reference-definition": "   [2]: https://example.org/paper",
    "inline-code": "Use `a[0]` or `[1]`.",
    "fenced-code": "```python\nitems[1]\nprint([2])\n```",
    "tilde-fence": "~~~\n[3]\n~~~",
    "escaped": "Write \\[1\\] literally.",
    "thousands": "It costs [1,000] dollars.",
    "too-many-digits": "Phone [12345678901].",
    "letters-after-number": "See [3a].",
    "words-with-number": "See [ref 3].",
    "empty-brackets": "An empty [] pair.",
    "nested-brackets": "A [[1]] wiki link.",
    "math": "The set [0, 1) is half-open.",
    "decimal": "Interval [0.5, 1.5].",
    # Unfenced code: a list literal or an argument, not a citation.
    "numpy-array": "x = np.array([1, 2, 3])",
    "print-list": "Run print([1,2]) now.",
    "call-arguments": "Call f([1], [2]) or g(a, [3]).",
    "spaced-call": "np.array( [1, 2] )",
    "nested-list-in-call": "np.array([[1, 2], [3, 4]])",
    "call-across-lines": "np.stack(\n    [1, 2],\n    [3, 4],\n)",
    "assignment": "Set x = [1, 2] first.",
    # 0 is never a citation number: an interval or a list.
    "interval-from-zero": "The interval [0, 1] is closed.",
    "range-from-zero": "Bytes [0-255] are valid.",
}


@pytest.mark.parametrize("text", NOT_NUMERIC.values(), ids=NOT_NUMERIC.keys())
def test_not_numeric_citations(text: str) -> None:
    found = extract_citations(text)
    assert found.numeric == ()
    assert all(span.kind != "numeric" for span in found.spans)


def test_code_is_masked_but_text_after_it_is_read() -> None:
    text = "Code `a[1]`, then\n```\n[2]\n```\nand after it [3]."
    assert extract_citations(text).numeric == (3,)


def test_fence_opens_only_at_a_line_start() -> None:
    # CommonMark: the inline ``` has no closing run in its paragraph, so it is literal
    # and [2] is read; the ``` that starts a line opens a fence that never closes.
    text = "Then ```\n[2]\n``` and after it [3]."
    assert extract_citations(text).numeric == (2,)


def test_unclosed_fence_masks_to_the_end() -> None:
    assert extract_citations("Intro [1].\n```\n[2]\nmore [3]").numeric == (1,)


def test_backtick_runs_pair_by_length() -> None:
    # `` opens a span that only `` closes; the single backtick inside is literal.
    text = "Use `` a`[1] `` and [2] then ` [3] `."
    assert extract_citations(text).numeric == (2,)


def test_unpaired_backtick_is_literal() -> None:
    assert extract_citations("A lone ` backtick, then [4].").numeric == (4,)


def test_code_span_does_not_cross_a_blank_line() -> None:
    assert extract_citations("A ` tick.\n\nThen [5] and ` tick.").numeric == (5,)


# --- ranges are bounded -----------------------------------------------------------------


def test_huge_range_is_not_expanded_but_reported() -> None:
    started = time.perf_counter()
    found = extract_citations("See [1-100000000].")
    assert time.perf_counter() - started < 1.0
    assert found.capped_ranges == ((1, 100000000),)
    assert found.numeric == (1, 100000000)
    assert found.spans[0].items == (1, 100000000)


def test_range_at_the_cap_is_expanded() -> None:
    found = extract_citations(f"See [1-{MAX_RANGE_SPAN}] and [1-{MAX_RANGE_SPAN + 1}].")
    assert found.capped_ranges == ((1, MAX_RANGE_SPAN + 1),)
    assert len(found.numeric) == MAX_RANGE_SPAN + 1  # 1..1000 plus the end 1001


def test_expansion_budget_bounds_the_total() -> None:
    count = MAX_EXPANDED // MAX_RANGE_SPAN + 5
    text = " ".join(f"[{i * MAX_RANGE_SPAN + 1}-{(i + 1) * MAX_RANGE_SPAN}]" for i in range(count))
    found = extract_citations(text)
    assert len(found.capped_ranges) == 5
    assert len(found.numeric) == MAX_EXPANDED + 2 * 5


# --- author-year -----------------------------------------------------------------------

AUTHOR_YEAR = {
    "semicolons": (
        "This is well known (Smith et al., 2020; Doe 2019).",
        (("Smith et al.", 2020), ("Doe", 2019)),
    ),
    "page-locator": ("As argued (Walker, 2008, p. 34), it holds.", (("Walker", 2008),)),
    "page-that-looks-like-a-year": ("Shown (Walker, 2008, p. 1234).", (("Walker", 2008),)),
    "harvard-page": ("Shown (Walker 2008: 34).", (("Walker", 2008),)),
    "and": ("Shown (Smith and Jones 2019).", (("Smith and Jones", 2019),)),
    "ampersand": ("Shown (Smith & Jones, 2019).", (("Smith & Jones", 2019),)),
    "three-authors": ("Shown (Smith, Jones, & Lee, 2021).", (("Smith, Jones, & Lee", 2021),)),
    "suffix": ("Shown (Doe 2019a, 2020b).", (("Doe", 2019), ("Doe", 2020))),
    "et-al-without-period": ("Shown (Smith et al 2020).", (("Smith et al.", 2020),)),
    "particles-and-prefix": ("Shown (see e.g. van der Berg, 2018).", (("van der Berg", 2018),)),
    "initial": ("Shown (P. Smith, 2020).", (("P. Smith", 2020),)),
    "organisation": (
        "Shown (World Health Organization, 2020).",
        (("World Health Organization", 2020),),
    ),
    "organisation-of": ("Shown (Department of Health, 2020).", (("Department of Health", 2020),)),
    "acronym": ("Shown (WHO, 2020).", (("WHO", 2020),)),
    "the-guardian": ("Reported (The Guardian, 2020).", (("The Guardian", 2020),)),
    "hyphen-apostrophe": ("Shown (O'Neil-García, 2017).", (("O'Neil-García", 2017),)),
    "unicode": ("Shown (Müller, 2020).", (("Müller", 2020),)),
    "two-years-same-author": ("Shown (Smith, 2019, 2020).", (("Smith", 2019), ("Smith", 2020))),
    "brackets": ("Shown [Smith 2020].", (("Smith", 2020),)),
    "historic": ("As in (Newton, 1687).", (("Newton", 1687),)),
    "narrative-et-al": ("Smith et al. (2020) found it.", (("Smith et al.", 2020),)),
    "narrative-verb": ("Smith (2020) found that it holds.", (("Smith", 2020),)),
    "narrative-verb-after-adverb": ("Smith (2020) also showed it.", (("Smith", 2020),)),
    "narrative-possessive": ("In Smith's (2020) study it holds.", (("Smith", 2020),)),
    "narrative-according-to": ("According to Smith (2020), it holds.", (("Smith", 2020),)),
    "narrative-pair": ("Smith and Jones (2019) argued it.", (("Smith and Jones", 2019),)),
    "narrative-list": (
        "Smith, Jones, and Lee (2020) showed it.",
        (("Smith, Jones, and Lee", 2020),),
    ),
    "narrative-locator": ("Smith et al. (2020, p. 5) found it.", (("Smith et al.", 2020),)),
    "first-occurrence-order-unique": (
        "(Doe 2019) and (Smith 2020) and (Doe 2019).",
        (("Doe", 2019), ("Smith", 2020)),
    ),
    "corporate-author-ending-in-product-word": (
        "Policy (Cabinet Office, 2020).",
        (("Cabinet Office", 2020),),
    ),
    "vendor-as-author": ("Per the docs (Microsoft, 2020).", (("Microsoft", 2020),)),
    "acronym-without-comma": ("Shown (IBM 2019).", (("IBM", 2019),)),
    "product-word-first": (
        "Shown (Python Software Foundation, 2020).",
        (("Python Software Foundation", 2020),),
    ),
}


@pytest.mark.parametrize(("text", "expected"), AUTHOR_YEAR.values(), ids=AUTHOR_YEAR.keys())
def test_author_year_citations(text: str, expected: tuple[tuple[str, int], ...]) -> None:
    assert extract_citations(text).author_year == expected


NOT_AUTHOR_YEAR = {
    "month": "It shipped (March 2020).",
    "month-may": "It shipped (May 2020).",
    "season": "It shipped (Spring 2021).",
    "since": "It has run (since 2019).",
    "published": "A report (Published 2021).",
    "prose": "It was (released in 2020) quietly.",
    "version-with-digits": "It runs (Python 3.8, 2019).",
    "id-with-digits": "A wave (COVID-19, 2020).",
    "bare-year": "It happened (2020).",
    "title-before-year": "Inception (2010) is a film.",
    "title-pair-without-cue": "Romeo and Juliet (1968) is a film.",
    "lowercase-before-year": "the pandemic (2020) changed it.",
    "url": "See (https://example.org/2020/paper).",
    "iso-date": "Updated (2020-01-05).",
    "year-range-page": "Pages (pp. 1990-1995).",
    "too-old": "Year (Caesar 44).",
    "too-new": "Future (Smith 2150).",
    "inline-code": "Call `f(Smith, 2020)`.",
    "pandoc-key-in-brackets": "See [@doe, 2020].",
    "number-in-brackets": "See [2020].",
    # Products and releases with a year.
    "windows": "It ran on (Windows 2000).",
    "office": "Saved in (Office 2019).",
    "python": "Written in (Python 2020).",
    "product-with-comma": "It ran on (Windows, 2000).",
    "release-word": "Built with (Visual Studio 2019).",
    "server-release": "Hosted on (Windows Server 2016).",
    "product-after-vendor": "Opened in (Microsoft Office 2019).",
}


@pytest.mark.parametrize("text", NOT_AUTHOR_YEAR.values(), ids=NOT_AUTHOR_YEAR.keys())
def test_not_author_year_citations(text: str) -> None:
    assert extract_citations(text).author_year == ()


# --- keys ------------------------------------------------------------------------------

KEYS = {
    "in-text": ("See @knuth1984 for details.", ("knuth1984",)),
    "bracketed-with-locator": ("See [@lamport1994, p. 12].", ("lamport1994",)),
    "several": ("[see @doe99, pp. 33-35; also @smith04, chap. 1]", ("doe99", "smith04")),
    "suppress-author": ("Doe says so [-@doe99].", ("doe99",)),
    "trailing-period-dropped": ("As in @knuth1984.", ("knuth1984",)),
    "internal-punctuation": ("As in @Doe:2020.intro-2 here.", ("Doe:2020.intro-2",)),
    "digit-first": ("See @2019paper.", ("2019paper",)),
    "underscore-first": ("See @_private_key.", ("_private_key",)),
    "unicode-key": ("See @müller2020.", ("müller2020",)),
    "braced": ("See @{Smith & Co. 2020}.", ("Smith & Co. 2020",)),
    "doubled-punctuation-stops": ("See @a--b.", ("a",)),
    "parenthesis-before": ("(@knuth1984)", ("knuth1984",)),
    "latex-cite": ("As in \\cite{knuth1984, lamport1994}.", ("knuth1984", "lamport1994")),
    "latex-citep-locator": ("As in \\citep[p. 5]{knuth1984}.", ("knuth1984",)),
    "first-occurrence-order-unique": ("@b then @a then @b", ("b", "a")),
    "line-start-in-prose": ("@knuth1984 shows it.", ("knuth1984",)),
    "narrative-by": ("As shown by @knuth1984.", ("knuth1984",)),
    "capitalised-slash": ("See @Doe/2020 here.", ("Doe/2020",)),
}


@pytest.mark.parametrize(("text", "expected"), KEYS.values(), ids=KEYS.keys())
def test_key_citations(text: str, expected: tuple[str, ...]) -> None:
    assert extract_citations(text).keys == expected


NOT_KEYS = {
    "email": "Write to team@example.org for access.",
    "email-dotted-local": "Write to first.last@example.org now.",
    "handle-in-word": "Ping user@host or foo@bar.",
    "after-dot": "Odd x.@key form.",
    "url-at": "See https://mastodon.social/@someone now.",
    "lone-at": "Meet @ noon.",
    "inline-code-decorator": "Use `@dataclass` here.",
    "fenced-decorator": "```python\n@dataclass\nclass A: ...\n```",
    # Unfenced decorators: alone on a line, or followed by "(".
    "decorator-own-line": "@dataclass\nclass A: ...",
    "indented-decorator": "class T:\n    @pytest.fixture\n    def f(self): ...",
    "java-annotation": "@Override\npublic void run() {}",
    "decorator-call": "@app.route('/x')\ndef index(): ...",
    "decorator-in-prose": "Wrap it with @lru_cache(maxsize=1) first.",
    # npm scoped packages and handles.
    "npm-scoped": "Run npm install @types/node first.",
    "npm-scoped-import": "Import it from @angular/core.",
    "handle-contact": "Contact @john_doe for access.",
    "handle-ping": "Ping @ops-team when it fails.",
}


@pytest.mark.parametrize("text", NOT_KEYS.values(), ids=NOT_KEYS.keys())
def test_not_key_citations(text: str) -> None:
    assert extract_citations(text).keys == ()


# --- spans and the result --------------------------------------------------------------


def test_spans_are_in_text_order_with_offsets_into_the_input() -> None:
    text = "See @knuth1984, [2-3] and (Smith, 2020)."
    found = extract_citations(text)
    assert [span.kind for span in found.spans] == ["key", "numeric", "author_year"]
    for span in found.spans:
        assert text[span.start : span.end] == span.text
    assert found.spans[1] == CitationSpan("numeric", 16, 21, "[2-3]", (2, 3))
    assert found.spans[2].items == (("Smith", 2020),)
    assert found.styles == frozenset({"numeric", "author_year", "key"})


def test_offsets_stay_in_the_input_for_decomposed_unicode() -> None:
    text = "Cafe\u0301 au lait (Mu\u0308ller, 2020) [1]."
    found = extract_citations(text)
    assert [text[span.start : span.end] for span in found.spans] == [
        "(Mu\u0308ller, 2020)",
        "[1]",
    ]
    # The author is NFC-composed, so it compares equal to a composed spelling.
    assert found.author_year == (("Müller", 2020),)


def test_source_count_per_style() -> None:
    found = extract_citations("[1][2] (Doe 2019) @k @k")
    assert found.source_count() == 4
    assert found.source_count("numeric") == 2
    assert found.source_count("author_year") == 1
    assert found.source_count("key") == 1
    with pytest.raises(ConfigurationError, match="style"):
        found.source_count("footnote")


def test_to_dict_is_json_ready() -> None:
    found = extract_citations("[1] (Doe 2019) @k [1-2000]")
    data = found.to_dict()
    assert data["numeric"] == [1, 2000]
    assert data["author_year"] == [["Doe", 2019]]
    assert data["keys"] == ["k"]
    assert data["capped_ranges"] == [[1, 2000]]
    assert data["spans"][1] == {
        "kind": "author_year",
        "start": 4,
        "end": 14,
        "text": "(Doe 2019)",
        "items": [["Doe", 2019]],
    }


def test_result_is_frozen() -> None:
    found = extract_citations("[1]")
    with pytest.raises(AttributeError):
        found.numeric = (2,)  # type: ignore[misc]


@pytest.mark.parametrize("text", [None, b"[1]", 3, ["[1]"]])
def test_non_str_text_is_a_configuration_error(text: object) -> None:
    with pytest.raises(ConfigurationError, match="text must be a str"):
        extract_citations(text)  # type: ignore[arg-type]


# --- mask_code -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        "a `b` c",
        "```\ncode\n```\nafter",
        "~~~~\nx\n~~~\ny\n~~~~\nz",
        "``a ` b``",
        "`" * 7,
        "```py `x`\nno fence\n",
        "a\n```\nnever closed\n",
        "é `ü` ß",
    ],
)
def test_mask_code_keeps_offsets_and_newlines(text: str) -> None:
    masked = mask_code(text)
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"
    ]


def test_mask_code_blanks_code_only() -> None:
    assert mask_code("a `b` c") == "a     c"
    assert mask_code("x\n```\ny\n```\nz") == "x\n   \n \n   \nz"
    # A tilde fence closes only with tildes, at least as many as opened it.
    assert mask_code("~~~~\n[1]\n~~~\n[2]\n~~~~\n[3]").endswith("[3]")
    assert "[1]" not in mask_code("~~~~\n[1]\n~~~\n[2]\n~~~~\n[3]")


# --- the check -------------------------------------------------------------------------


def test_check_passes_with_enough_citations() -> None:
    check = citations_check(min_count=2)
    outcome = check("A [1] and (Doe 2019).")
    assert outcome.passed
    assert outcome.problems == ()
    assert isinstance(outcome.value, Citations)
    assert outcome.fixed is None


def test_check_fails_without_citations_and_says_how_to_fix() -> None:
    outcome = citations_check()("No sources here.")
    assert not outcome.passed
    (problem,) = outcome.problems
    assert "cites 0 sources" in problem.message
    assert "at least 1" in problem.message
    assert problem.expected and problem.fix
    assert problem.details["count"] == 0
    assert outcome.fixed is None


def test_check_min_count_zero_always_passes() -> None:
    assert citations_check(min_count=0)("Nothing cited.").passed


def test_check_counts_distinct_sources() -> None:
    check = citations_check(min_count=2)
    assert not check("[1] and again [1].").passed
    assert check("[1] and [2].").passed


@pytest.mark.parametrize(
    ("style", "text", "passes"),
    [
        ("numeric", "See [1].", True),
        ("numeric", "See (Doe 2019).", False),
        ("numeric", "See [1] and (Doe 2019).", False),
        ("author_year", "See (Doe 2019).", True),
        ("author_year", "See @doe.", False),
        ("key", "See @doe.", True),
        ("key", "See [1].", False),
    ],
)
def test_check_style(style: str, text: str, passes: bool) -> None:
    outcome = citations_check(style=style)(text)
    assert outcome.passed is passes
    if not passes:
        assert any(
            style.replace("_", "-") in p.message or style in p.expected for p in outcome.problems
        )


def test_check_wrong_style_names_the_citation() -> None:
    outcome = citations_check(style="numeric")("See [1] and (Doe 2019).")
    (problem,) = outcome.problems
    assert "(Doe 2019)" in problem.message
    assert problem.details["position"] == 12


@pytest.mark.parametrize(
    ("text", "passes", "shown"),
    [
        ("See [1] and [3].", True, None),
        ("See [4].", False, "4"),
        ("See [0].", False, "0"),
        ("See [2-5].", False, "4, 5"),
    ],
)
def test_check_max_number(text: str, passes: bool, shown: str | None) -> None:
    outcome = citations_check(max_number=3)(text)
    assert outcome.passed is passes
    if shown is not None:
        message = outcome.problems[-1].message
        assert shown in message and "1..3" in message
        assert "1 to 3" in outcome.problems[-1].fix


def test_check_flags_a_range_too_wide() -> None:
    outcome = citations_check()("See [1-100000000].")
    assert not outcome.passed
    assert any("spans more than" in problem.message for problem in outcome.problems)


def test_check_policy_and_name() -> None:
    check = citations_check(on_fail="fix_reask")
    assert check.name == "citations"
    assert check.on_fail is OnFail.FIX_REASK
    assert isinstance(check(""), CheckOutcome)


@pytest.mark.parametrize(
    ("settings_", "argument"),
    [
        ({"min_count": -1}, "min_count"),
        ({"min_count": 1.5}, "min_count"),
        ({"min_count": True}, "min_count"),
        ({"style": "harvard"}, "style"),
        ({"max_number": 0}, "max_number"),
        ({"max_number": "3"}, "max_number"),
        ({"on_fail": "retry"}, "on_fail"),
    ],
)
def test_check_bad_settings(settings_: dict[str, object], argument: str) -> None:
    with pytest.raises(ConfigurationError, match=argument):
        citations_check(**settings_)  # type: ignore[arg-type]


# --- odd input, never raises, linear time ----------------------------------------------

ODD = {
    "empty": "",
    "whitespace": " \n\t ",
    "binary": "\x00\xff[1\x00]@\x00(",
    "surrogate": "\ud800 [1] @k\ud800 (Smith\ud800, 2020)",
    "unicode-digits": "See [٣] and [３].",
    "rtl": "انظر [1] (سميث، 2020)",
    "only-brackets": "[[[[]]]]",
    "unbalanced": "(Smith, 2020 [1 @",
}


@pytest.mark.parametrize("text", ODD.values(), ids=ODD.keys())
def test_odd_text_never_raises(text: str) -> None:
    found = extract_citations(text)
    assert found.numeric == tuple(sorted(set(found.numeric)))
    citations_check()(text)


def test_non_ascii_digits_are_not_citation_numbers() -> None:
    assert extract_citations("See [٣] and [３].").numeric == ()


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_never_raises_on_generated_text(text: str) -> None:
    found = extract_citations(text)
    for span in found.spans:
        assert 0 <= span.start < span.end <= len(text)
        assert text[span.start : span.end] == span.text
    citations_check(max_number=5, style="numeric")(text)


CITATIONISH = st.text(alphabet=st.sampled_from(list("[]()@`;,.-–1234509 aSmith&etal.p\n")))


@settings(deadline=None, max_examples=200)
@given(text=CITATIONISH)
def test_never_raises_on_citation_fragments(text: str) -> None:
    found = extract_citations(text)
    assert len(found.numeric) <= MAX_EXPANDED + 2 * len(found.capped_ranges) + len(text)


PATHOLOGICAL: dict[str, Callable[[int], str]] = {
    "open-brackets": lambda n: "[" * n,
    "open-parens": lambda n: "(" * n,
    "bracket-no-close": lambda n: "[1," * (n // 3),
    "adjacent-citations": lambda n: "[1]" * (n // 3),
    "ranges": lambda n: "[1-1000] " * (n // 9),
    "wide-ranges": lambda n: "[1-99999999]" * (n // 12),
    "digits-then-index": lambda n: "1" * n + "[1]",
    "identifier-then-index": lambda n: "a" * n + "[1]",
    "ats": lambda n: "@" * n,
    "keys": lambda n: "@a " * (n // 3),
    "key-punctuation": lambda n: "@a" + ".a" * (n // 2),
    "author-year": lambda n: "(Smith, 2020) " * (n // 14),
    "narratives": lambda n: "Smith et al. (2020) " * (n // 20),
    "years": lambda n: "(Smith 2020; " * (n // 13),
    "backticks": lambda n: "` ``" * (n // 4),
    "fences": lambda n: "```\n" * (n // 4),
    "latex": lambda n: "\\cite{" * (n // 6),
    "binaryish": lambda n: bytes(range(256)).decode("latin-1") * (n // 256),
    "open-calls": lambda n: "f(" * (n // 4) + "[1]" * (n // 6),
    "calls-with-lists": lambda n: "f([1], [2]) " * (n // 12),
    "decorator-lines": lambda n: "@a\n" * (n // 3),
    "indented-keys": lambda n: "    @a" * (n // 6),
    "handles": lambda n: "ping @a " * (n // 8),
}


def _seconds(text: str) -> float:
    started = time.perf_counter()
    extract_citations(text)
    return time.perf_counter() - started


@pytest.mark.parametrize("make", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_text_takes_linear_time(make: Callable[[int], str]) -> None:
    # 4x the text must take about 4x the time; a quadratic path would take 16x.
    size = 60_000
    short, long = _seconds(make(size)), _seconds(make(4 * size))
    assert long < 10 * short + 1.0
