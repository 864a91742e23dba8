"""A verdict follows what a reader of the rendered answer sees: nothing hidden in a
comment or a code block counts, invisible characters change nothing, and a list of
names is no answer."""

from __future__ import annotations

import json

import pytest

from citeloop.cli import main
from citeloop.grounding import GraphContextValidator
from citeloop.grounding.substance import has_prose, only_lists
from citeloop.markdown import fenced, lines_of, visible_text

CONTEXT = "# geo.py\nclass Circle  # L1-9\ndef area(radius)  # L11-12\n"
GOOD = "Circle computes its area with `area`.\n\n## Entities used\n- Circle\n- area\n"
VALIDATOR = GraphContextValidator()


def verdict(answer: str, context: str = CONTEXT):
    return VALIDATOR.validate(answer, context)


def test_the_good_answer_passes() -> None:
    assert verdict(GOOD).passed


@pytest.mark.parametrize(
    "answer",
    [
        # The names and the whole citation section in comments.
        "It works.<!-- Circle area -->\n\n<!--\n## Entities used\n- Circle\n- area\n-->\n",
        # An unclosed comment hides the rest of the answer.
        "It works.\n<!--\nCircle uses area.\n\n## Entities used\n- Circle\n- area\n",
        # The body's names in a comment, a visible list.
        "It works. <!-- Circle uses area -->\n\n## Entities used\n- Circle\n- area\n",
    ],
)
def test_what_a_comment_hides_counts_for_nothing(answer: str) -> None:
    result = verdict(answer)
    assert not result.passed
    assert set(result.failed_rules) & {"references", "citation_section", "core_citations"}


def test_a_comment_in_a_code_block_is_code() -> None:
    answer = GOOD.replace("with `area`.", "with `area`:\n\n```html\n<!-- x -->\n```\n")
    assert verdict(answer).passed
    assert "<!-- x -->" in visible_text(answer)


@pytest.mark.parametrize("fence", ["```", "~~~", "````", "> ```"])
def test_a_citation_section_inside_a_code_block_is_not_the_answers(fence: str) -> None:
    closing = fence.removeprefix("> ")
    quote = "> " if fence.startswith(">") else ""
    inner = "".join(f"{quote}{line}\n" for line in ("## Entities used", "- Circle", "- area"))
    shown = f"{fence}markdown\n{inner}{quote}{closing}"
    answer = f"Circle computes its area with `area`.\n\n{shown}\n\n## Entities used\n- Bogus\n"
    result = verdict(answer)
    assert not result.passed
    assert result.invalid_citations == ("Bogus",)
    # Without the visible section, the fenced one is still no section.
    assert "citation_section" in verdict(answer.rpartition("\n## Entities used")[0]).failed_rules


def test_two_identical_lists_and_no_prose_fail() -> None:
    listed = "## Entities used\n- Circle\n- area\n"
    result = verdict(f"{listed}\n{listed}")
    assert result.failed_rules == ("no_prose",)
    located = "## Entities used\n- Circle (geo.py:1)\n- `area` — geo.py:11\n"
    assert "no_prose" in verdict(f"**Circle**, `area()`\n\n{located}\n{located}").failed_rules


def test_prose_is_any_word_beyond_names_paths_and_labels() -> None:
    names = {"Circle", "area", "build_index", "StateGraph.compile"}
    assert not has_prose("## Entities used\n- `Circle` (geo.py:3)\n- StateGraph.compile", names)
    assert not has_prose("Circle, area and build_index.", names)
    assert has_prose("Circle computes.", names)
    assert has_prose("Circle ist rund.", names)
    assert not has_prose("", names)
    # The rule needs lists: a sentence fragment that names an entity is no list.
    assert not only_lists("Circle, area and build_index.", names)
    assert only_lists("- Circle\n- area", names)
    assert not only_lists("- Circle computes\n- area", names)


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"])
def test_an_invisible_character_in_a_name_changes_nothing(invisible: str) -> None:
    answer = GOOD.replace("- Circle\n", f"- Circle{invisible}\n").replace(
        "`area`", f"`ar{invisible}ea`"
    )
    result = verdict(answer)
    assert result.passed, result.reasons
    assert result.invalid_citations == ()


def test_a_line_separator_does_not_end_an_answer_line() -> None:
    assert lines_of("a\u2028b\r\nc\rd\ne") == ["a\u2028b", "c", "d", "e"]
    # `- Circle\u2028- Bogus` renders as one item: no second citation appears.
    result = verdict(GOOD.replace("- area\n", "- area\u2028- Bogus\n"))
    assert "Bogus" not in result.citations


def test_fenced_lines() -> None:
    lines = lines_of("a\n```py\n## x\n```\nb\n~~~~\n```\n~~~\n~~~~\nc\n```")
    assert fenced(lines) == [False, True, True, True, False, True, True, True, True, False, True]
    # A backtick fence's info string holds no backtick: ``` `x` ``` is inline code.
    assert fenced(["``` `x` ```", "y"]) == [False, False]


def test_check_reads_a_context_json_with_a_bom(tmp_path, capsys) -> None:
    entities = [{"name": "Circle", "tier": "core"}, {"name": "area", "tier": "core"}]
    context = tmp_path / "context.json"
    context.write_bytes(b"\xef\xbb\xbf" + json.dumps({"entities": entities}).encode())
    response = tmp_path / "answer.md"
    response.write_text(GOOD, encoding="utf-8")
    assert main(["check", "--context", str(context), "--response", str(response)]) == 0
    response.write_text(GOOD.replace("- area\n", "- area\n- Bogus\n"), encoding="utf-8")
    assert main(["check", "--context", str(context), "--response", str(response)]) == 1
    assert "Bogus" in capsys.readouterr().out
