"""Citation section choice and answer formats the validator must read (offline)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from citeloop.grounding import GraphContextValidator, GraphValidationResult, find_citation_section
from citeloop.grounding.citation_section import CitationSection, CitedLocation

NAMES = ["GraphStore", "SqliteGraphStore", "build_index"]
BODY = "GraphStore and SqliteGraphStore are filled by build_index.\n\n"


def validate(response: str, context: object = NAMES, **settings: object) -> GraphValidationResult:
    return GraphContextValidator(**settings).validate(response, context)


# --- which section is the citation list -----------------------------------------------


@pytest.mark.parametrize(
    "trailer",
    [
        "Citations: none beyond the list above.",
        "Entities used: all of the above",
        "**Entities used:** see the list above.",
    ],
)
def test_trailing_prose_label_does_not_replace_the_list(trailer: str) -> None:
    response = (
        BODY + "## Entities used\n- GraphStore\n- SqliteGraphStore\n- build_index\n\n" + trailer
    )
    result = validate(response, reference_threshold=1.0)
    assert result.citations == tuple(NAMES)
    assert result.invalid_citations == ()
    assert result.passed, result.reasons


def test_last_section_is_used_when_none_cites_an_entity() -> None:
    response = BODY + "## Entities used\n- CacheLayer\n\n## Entities used\n- Indexer\n"
    result = validate(response)
    assert result.invalid_citations == ("Indexer",)
    assert result.citations == ()
    assert not result.passed


def test_later_section_citing_an_entity_wins() -> None:
    response = BODY + "## Entities used\n- GraphStore\n\nEntities used: GraphStore, build_index\n"
    assert validate(response).citations == ("GraphStore", "build_index")


def test_find_citation_section_prefer() -> None:
    text = "## Entities used\n- A\n\nCitations: none.\n"
    assert find_citation_section(text).items == ("none",)
    chosen = find_citation_section(text, prefer=lambda section: "A" in section.items)
    assert chosen is not None and chosen.items == ("A",) and chosen.start == 0


# --- answer formats -------------------------------------------------------------------

FORMS = {
    "nested-groups": (
        "## Entities used\n- Classes:\n  - GraphStore\n  - SqliteGraphStore\n"
        "- Functions:\n  - build_index\n"
    ),
    "nested-groups-bold-numbered": (
        "## Entities used\n1. **Classes:**\n   1. GraphStore\n   2. SqliteGraphStore\n"
        "2. **Functions**:\n   1. build_index\n"
    ),
    "plain-group-lines": (
        "## Entities used\nClasses:\n- GraphStore\n- SqliteGraphStore\n\n"
        "Functions:\n- build_index\n"
    ),
    "underscore-bold": "## Entities used\n- __GraphStore__\n- SqliteGraphStore\n- build_index\n",
    "emphasis": "## Entities used\n- *GraphStore*\n- _SqliteGraphStore_\n- build_index\n",
    "escaped": "## Entities used\n- GraphStore\n- SqliteGraphStore\n- build\\_index\n",
    "escaped-in-code-and-link": (
        "## Entities used\n- `GraphStore`\n- [SqliteGraphStore](s.py)\n- **build\\_index()**\n"
    ),
    "task-list": "## Entities used\n- [x] GraphStore\n- [ ] SqliteGraphStore\n- [X] build_index\n",
    "heading-count": "## Entities used (3)\n- GraphStore\n- SqliteGraphStore\n- build_index\n",
    "bold-label-count": (
        "**Entities used (3):**\n- GraphStore\n- SqliteGraphStore\n- build_index\n"
    ),
    "heading-title-case-colon": (
        "### Entities Used:\n- GraphStore\n- SqliteGraphStore\n- build_index\n"
    ),
    "inline-count": "Entities used (3): GraphStore, SqliteGraphStore, build_index\n",
    "blockquote": "> ## Entities used\n> - GraphStore\n> - SqliteGraphStore\n> - build_index\n",
    "nested-blockquote": (
        "> > **Entities used**\n> > - GraphStore\n> >   - SqliteGraphStore\n> > - build_index\n"
    ),
    "table": (
        "## Entities used\n| Entity | Role |\n|---|---|\n| GraphStore | protocol |\n"
        "| SqliteGraphStore | store, default |\n| `build_index` | entry |\n"
    ),
    "table-without-outer-pipes": (
        "## Entities used\n\nEntity | Role\n:--- | ---:\nGraphStore | protocol\n"
        "SqliteGraphStore | store\nbuild_index() | entry\n"
    ),
    "description-with-commas": (
        "## Entities used\n- GraphStore which does a, b\n"
        "- SqliteGraphStore (the store, default)\n- build_index: walks a, b, c\n"
    ),
    "description-dash-commas": (
        "## Entities used\n- GraphStore — reads, writes\n- SqliteGraphStore - sqlite, files\n"
        "- build_index – parses, links\n"
    ),
    "comma-list-with-notes": (
        "## Entities used\n- GraphStore (protocol, abstract), SqliteGraphStore, build_index\n"
    ),
    "comma-list-in-code": "## Entities used\n- `GraphStore`, `SqliteGraphStore`, `build_index`\n",
}


@pytest.mark.parametrize("section", FORMS.values(), ids=FORMS.keys())
def test_answer_formats(section: str) -> None:
    result = validate(BODY + section, reference_threshold=1.0)
    assert result.has_citation_section
    assert result.citations == tuple(NAMES)
    assert result.invalid_citations == ()
    assert result.passed, result.reasons


def test_group_label_naming_an_entity_cites_it() -> None:
    response = (
        "GraphStore.neighbours and add_entity.\n\n"
        "## Entities used\n- GraphStore:\n  - neighbours\n  - add_entity\n"
    )
    result = validate(response, ["GraphStore", "neighbours", "add_entity"])
    assert result.citations == ("GraphStore", "add_entity", "neighbours")
    assert result.passed, result.reasons


def test_group_label_is_never_an_invalid_citation() -> None:
    section = find_citation_section("## Entities used\n- Classes:\n  - GraphStore\n")
    assert section is not None
    assert section.items == ("GraphStore",)
    assert section.group_labels == ("Classes",)


def test_item_ending_in_colon_without_nested_items_is_an_item() -> None:
    section = find_citation_section("## Entities used\n- GraphStore:\n- build_index\n")
    assert section is not None and section.items == ("GraphStore", "build_index")


def test_table_header_and_delimiter_rows_are_not_items() -> None:
    section = find_citation_section(
        "## Entities used\n| Entity | Role |\n| :-- | --- |\n| GraphStore | protocol |\n\nAfter."
    )
    assert section is not None and section.items == ("GraphStore",)


def test_prose_item_cites_only_the_entity_it_names() -> None:
    result = validate("build_index.\n\n## Entities used\n- build_index which reads a, b\n")
    assert result.citations == ("build_index",)
    assert result.invalid_citations == ()


def test_escaped_name_in_body_is_a_reference() -> None:
    result = validate("Call build\\_index on \\*GraphStore\\*.", ["build_index", "GraphStore"])
    assert result.entities_found == ("GraphStore", "build_index")


def test_underscore_emphasis_in_body_is_a_reference() -> None:
    result = validate("The __GraphStore__ holds _build_index_ output.", NAMES)
    assert result.entities_found == ("GraphStore", "build_index")


def test_dunder_names_keep_their_underscores() -> None:
    context = ["__init__", "Loader"]
    response = "Loader.__init__ sets up.\n\n## Entities used\n- __init__\n- __Loader__\n"
    result = validate(response, context, reference_threshold=1.0)
    assert result.citations == ("Loader", "__init__")
    assert result.entities_found == ("Loader", "__init__")
    assert result.invalid_citations == ()


def test_unknown_emphasized_item_is_reported_as_written() -> None:
    result = validate("GraphStore.\n\n## Entities used\n- GraphStore\n- __Cache__\n", NAMES)
    assert result.invalid_citations == ("__Cache__",)


# --- group labels, subheadings, numbered tables, prose labels (QA repros) -------------

QA_CONTEXT = "class BuildIndex\ndef build_index(root)\nclass StateGraph\nStateGraph.compile()\n"
QA_CONTEXT += "def add_node(x)\n"
QA_NAMES = ("BuildIndex", "StateGraph", "add_node", "build_index", "compile")
QA_BODY = "BuildIndex wraps build_index; StateGraph.compile() runs after add_node.\n\n"


def assert_cites_all(section: str) -> None:
    result = validate(QA_BODY + section, QA_CONTEXT, reference_threshold=1.0)
    assert result.citations == QA_NAMES
    assert result.invalid_citations == ()
    assert result.passed, result.reasons


def test_group_label_with_inline_items() -> None:
    assert_cites_all(
        "## Entities used\n- Classes: BuildIndex, StateGraph\n"
        "- **Functions:** build_index, `add_node()`\n- Methods: compile"
    )
    # An entity followed by a description keeps that reading, even a one-word one.
    result = validate(
        "StateGraph and build_index.\n\n## Entities used\n- StateGraph: the graph\n"
        "- build_index: entry\n",
        QA_CONTEXT,
    )
    assert result.citations == ("StateGraph", "build_index")
    assert result.invalid_citations == ()


def test_bold_group_labels_on_their_own_lines_continue_the_section() -> None:
    assert_cites_all(
        "## Entities used\n**Classes:**\n- BuildIndex\n- StateGraph\n"
        "**Functions:**\n- build_index\n- add_node\n\n**Methods**\n- compile\n"
    )


def test_deeper_subheadings_continue_the_section() -> None:
    assert_cites_all(
        "## Entities used\n### Classes\n- BuildIndex\n- StateGraph\n"
        "### Functions\n- build_index\n- add_node\n\n### Methods\ncompile\n"
    )
    # A heading of the same level ends the section.
    section = find_citation_section("## Entities used\n### Classes\n- A\n## Notes\n- B\n")
    assert section is not None
    assert (section.items, section.group_labels) == (("A",), ("Classes",))


def test_group_bullet_without_colon_labels_its_nested_items() -> None:
    assert_cites_all(
        "## Entities used\n- Classes\n  - BuildIndex\n  - StateGraph\n"
        "- **Functions**\n  - build_index\n  - add_node\n- Methods\n  - compile\n"
    )


def test_table_row_number_column_is_not_the_name_column() -> None:
    assert_cites_all(
        "## Entities used\n| # | Entity | Kind |\n|---|---|---|\n| 1 | BuildIndex | class |\n"
        "| 2 | `build_index` | function |\n| 3 | StateGraph | class |\n"
        "| 4. | compile() | method |\n| 5 | add_node | function |\n"
    )


def test_prose_label_line_after_the_list_does_not_replace_it() -> None:
    assert_cites_all(
        "## Entities used\n- BuildIndex\n- build_index\n- StateGraph\n- compile\n"
        "- add_node\n\nCitations: StateGraph is the key one."
    )


# --- linear time on the new structures -------------------------------------------------

MEGABYTE = 1_000_000
PATHOLOGICAL = {
    "blockquote-markers": "## Entities used\n" + "> " * (MEGABYTE // 2),
    "quoted-lines": "> ## Entities used\n" + "> - x\n" * (MEGABYTE // 6),
    "group-labels": "## Entities used\n" + "- a:\n" * (MEGABYTE // 5),
    "blank-after-labels": "## Entities used\n" + "- a:\n\n\n" * (MEGABYTE // 7),
    "table-rows": "## Entities used\n| a | b |\n|---|---|\n" + "| x |" * (MEGABYTE // 5),
    "escaped-pipes": "## Entities used\n|a|\n|-|\n|" + "\\|" * (MEGABYTE // 2),
    "comma-parens": "## Entities used\n- " + "(," * (MEGABYTE // 2),
    "commas": "Entities used: " + "a, " * (MEGABYTE // 3),
    "backslashes": "## Entities used\n- " + "\\_" * (MEGABYTE // 2),
    "task-markers": "## Entities used\n" + "- [x] a\n" * (MEGABYTE // 8),
    "labels-with-notes": "## Entities used (1)\n" * (MEGABYTE // 21),
    "subheadings": "## Entities used\n" + "### a\n" * (MEGABYTE // 6),
    "bold-group-labels": "## Entities used\n" + "**a:**\n- b\n" * (MEGABYTE // 12),
    "labelled-list": "## Entities used\n- Classes: " + "a, " * (MEGABYTE // 3),
    "label-colons": "## Entities used\n- " + "a: " * (MEGABYTE // 3),
    # One long row of numbers, then many short ones: the name column is still found
    # by looking at each cell once.
    "ragged-number-table": (
        "## Entities used\n|a|\n|-|\n" + "|1" * (MEGABYTE // 4) + "\n" + "|1\n" * (MEGABYTE // 6)
    ),
    # Label lines containing a label, "and" joins and locations (issue 13).
    "contained-labels": "Key citations:\n" * (MEGABYTE // 15),
    "plain-labels-without-list": "Entities used in this answer\n" * (MEGABYTE // 29),
    "plain-labels-blank-runs": ("Entities used here\n" + "\n" * 50) * (MEGABYTE // 70),
    "and-joins": "Entities used: " + "`a` and " * (MEGABYTE // 8),
    "oxford-commas": "Entities used: " + "a, and " * (MEGABYTE // 7),
    "located-items": "Entities used: " + "a (b.py:1), " * (MEGABYTE // 12),
    "located-lines": "## Entities used\n" + "- `a` (b.py:1-2)\n" * (MEGABYTE // 17),
    "bare-locations": "## Entities used\n" + "- a/b.py:1\n" * (MEGABYTE // 11),
    "table-location-cells": "## Entities used\n|a|b|\n|-|-|\n" + "|a|a.py:1" * (MEGABYTE // 9),
    "nested-paren-location": (
        "## Entities used\n- a " + "(" * (MEGABYTE // 2) + "a.py:1" + ")" * (MEGABYTE // 2)
    ),
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_megabyte_of_markdown_structure_completes(text: str) -> None:
    started = time.perf_counter()
    validate(text, NAMES)
    # Linear scanning takes well under a second here; a quadratic path takes minutes.
    # Generous: a loaded CI machine must not fail it, a quadratic path takes minutes.
    assert time.perf_counter() - started < 30.0


# --- label lines containing a label (issue 13) ----------------------------------------

ITEMS = "- GraphStore\n- SqliteGraphStore\n- build_index\n"


@pytest.mark.parametrize(
    "label",
    [
        "Entities used in this answer:",
        "## 📚 Entities used",
        "### Key entities cited",
        "**Citations (with locations):**",
        "## 🔗 Citations",
        "Here are the citations:",
        "## Entities Used & Locations",
        "**Key entities cited**",
        "📚Entities used:",
        "Entities cited in this response",
        "Key entities cited\n---",
        "> ## 📚 Entities used in the answer",
        "## Citations used",
        "## Entities Used & Their Roles",
        "## Citations (path:line)",
        "## Entities actually used",
        "### Entities cited in this walkthrough",
    ],
)
def test_label_line_containing_a_label(label: str) -> None:
    items = ITEMS.replace("- ", "> - ") if label.startswith(">") else ITEMS
    result = validate(BODY + label + "\n" + items, reference_threshold=1.0)
    assert result.has_citation_section
    assert result.citations == tuple(NAMES)
    assert result.invalid_citations == ()
    assert result.passed, result.reasons


def test_label_line_containing_a_label_with_inline_items() -> None:
    section = find_citation_section("Entities used in this answer: GraphStore, build_index")
    assert section is not None and section.items == ("GraphStore", "build_index")


@pytest.mark.parametrize(
    "text",
    [
        "The citations below are complete and I checked them against the code.\n- A\n",
        "I reviewed the citations and they look complete:\n- A\n",
        "## Notes on citations\n- A\n",
        "## Why these citations matter\n- A\n",
        "## Entities used in passing\n- A\n",
        "## Citations and sources\n- A\n",
        "**No citations**\n- A\n",
        # A plain line needs a colon or a list below it, and is not itself an item.
        "Entities used in this answer\nA\n",
        "- Entities used in this answer: A\n",
        # Labels are short.
        "## " + "very " * 20 + "key entities used\n- A\n",
    ],
)
def test_prose_mentioning_citations_is_not_a_label(text: str) -> None:
    assert find_citation_section(text) is None


def test_prose_line_with_citations_does_not_end_or_replace_the_list() -> None:
    text = (
        "## Entities used\n- GraphStore\n- build_index\n\n"
        "The citations above are complete and I checked them against the code.\n"
    )
    section = find_citation_section(text)
    assert section is not None and section.items == ("GraphStore", "build_index")


def test_custom_labels_are_contained_too() -> None:
    section = find_citation_section("## 🔗 Code used\n- A\n", labels=("code used",))
    assert section is not None and section.items == ("A",)
    assert find_citation_section("## 🔗 Entities used\n- A\n", labels=("code used",)) is None


# --- items joined by "and" -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Entities used: `A`, `B`, and `C`.", ("A", "B", "C")),
        ("Entities used: A, B and C", ("A", "B", "C")),
        ("Entities used: A, B, and C.", ("A", "B", "C")),
        ("Entities used: `A` and `B`", ("A", "B")),
        ("## Entities used\n- A and B\n", ("A", "B")),
        ("## Entities used\n- `A` (the builder) and `B` — the compiled graph\n", ("A", "B")),
        ("## Entities used\n- A (builder), B (runtime), and C (checkpointer)\n", ("A", "B", "C")),
        ("## Entities used\n- A (reads and writes) and B\n", ("A", "B")),
        ("## Entities used\n- `A()` and **B**\n- C\n", ("A", "B", "C")),
        ("## Entities used\n- [A](a.py) and [B](b.py)\n", ("A", "B")),
    ],
    ids=[
        "backticks-oxford-period",
        "plain",
        "plain-oxford-period",
        "two-backticked",
        "list-item",
        "descriptions-paren-and-dash",
        "paren-descriptions-oxford",
        "and-inside-parentheses",
        "call-and-bold",
        "links",
    ],
)
def test_items_joined_by_and(text: str, items: tuple[str, ...]) -> None:
    section = find_citation_section(text)
    assert section is not None and section.items == items


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Entities used: A which calls B and C", ("A which calls B and C",)),
        ("## Entities used\n- A — reads and writes\n", ("A",)),
        ("## Entities used\n- A: parses and links\n", ("A",)),
        ("## Entities used\n- A, B which calls C and D\n", ("A, B which calls C and D",)),
        ("## Entities used\n- I used A and B.\n", ("I used A and B",)),
    ],
    ids=[
        "name-then-prose",
        "dash-description",
        "colon-description",
        "list-then-prose",
        "sentence",
    ],
)
def test_name_followed_by_prose_with_and_stays_one_item(text: str, items: tuple[str, ...]) -> None:
    section = find_citation_section(text)
    assert section is not None and section.items == items


def test_and_joined_items_are_validated() -> None:
    response = BODY + "Entities used: `GraphStore`, `SqliteGraphStore`, and `build_index`.\n"
    result = validate(response, reference_threshold=1.0)
    assert result.citations == tuple(NAMES)
    assert result.invalid_citations == ()
    assert result.passed, result.reasons
    # A name followed by prose cites what the prose names, nothing invalid.
    result = validate(BODY + "## Entities used\n- build_index which fills GraphStore and more\n")
    assert result.invalid_citations == ()
    assert "build_index" in result.citations


def test_labelled_list_joined_by_and() -> None:
    section = find_citation_section(
        "## Entities used\n- Classes: GraphStore and SqliteGraphStore\n",
        is_entity=lambda name: name in NAMES,
    )
    assert section is not None
    assert (section.items, section.group_labels) == (
        ("GraphStore", "SqliteGraphStore"),
        ("Classes",),
    )


# --- locations ---------------------------------------------------------------------------


def section_of(item: str, is_entity: Callable[[str], bool] | None = None) -> CitationSection:
    section = find_citation_section("## Entities used\n- " + item + "\n", is_entity=is_entity)
    assert section is not None
    return section


@pytest.mark.parametrize(
    ("item", "path", "start", "end"),
    [
        ("Name (src/a.py:12)", "src/a.py", 12, 12),
        ("Name (a.py:3-9)", "a.py", 3, 9),
        ("Name (a.py:3–9)", "a.py", 3, 9),
        ("`Name` — a.py:4", "a.py", 4, 4),
        ("`Name` – a.py:4", "a.py", 4, 4),
        ("Name - pkg/a.py:4-5", "pkg/a.py", 4, 5),
        ("`Name` (`a.py:5`)", "a.py", 5, 5),
        ("`Name` (`a.py`:5)", "a.py", 5, 5),
        ("Name at pkg/a.py:6", "pkg/a.py", 6, 6),
        ("`Name` at `a.py:6-8`", "a.py", 6, 8),
        ("Name: a.py:7", "a.py", 7, 7),
        ("Name (a.py#L12)", "a.py", 12, 12),
        ("Name (a.py#L12-L40)", "a.py", 12, 40),
        ("Name (a.py:L12)", "a.py", 12, 12),
        ("Name (a.py:L12-L40)", "a.py", 12, 40),
        ("Name (README.md:3)", "README.md", 3, 3),
        ("Name (src/Makefile:3)", "src/Makefile", 3, 3),
        ("`Name()` (a.py:2) — the builder", "a.py", 2, 2),
        ("Name — the builder (a.py:2)", "a.py", 2, 2),
        ("**Name** (`src/a.py:1-2`)", "src/a.py", 1, 2),
        ("Name (a.py:9-3)", "a.py", 9, 3),
        ("Name (pkg/a.py, L12)", "pkg/a.py", 12, 12),
        ("Name (pkg/a.py line 12)", "pkg/a.py", 12, 12),
        ("Name (pkg/a.py lines 12-40)", "pkg/a.py", 12, 40),
        ("`Name` ([pkg/a.py:12](pkg/a.py#L12))", "pkg/a.py", 12, 12),
        # Double backticks, as reStructuredText writes code (and Markdown a code span).
        ("``Name`` (a.py:2)", "a.py", 2, 2),
        ("``Name()`` — a.py:2", "a.py", 2, 2),
    ],
)
def test_item_location(item: str, path: str, start: int, end: int) -> None:
    for is_entity in (None, lambda name: name == "Name"):
        section = section_of(item, is_entity=is_entity)
        assert section.items == ("Name",)
        assert section.locations == (CitedLocation("Name", path, start, end, item),)


@pytest.mark.parametrize(
    "item",
    [
        "``Name`` — the builder",
        "``Name``: the builder",
        "```Name``` - the builder",
        "`` `Name` `` - the builder",
    ],
)
def test_a_name_in_a_code_span_of_several_backticks_is_cited(item: str) -> None:
    """A code span opened by a run of backticks ends at a run as long: the item
    ``Name`` followed by a description had cited nothing (the name was read up to the
    second backtick of the opening run, and was empty)."""
    assert section_of(item).items == ("Name",)
    result = validate("`Name` builds it.\n\n## Entities used\n- " + item + "\n", "class Name\n")
    assert result.citations == ("Name",) and result.passed, result.reasons


@pytest.mark.parametrize(
    ("item", "path", "start", "end"),
    [
        ("src/a.py:1-20", "src/a.py", 1, 20),
        ("`a.py:3`", "a.py", 3, 3),
        ("a.py#L12", "a.py", 12, 12),
        ("`a.py#L12-L40`", "a.py", 12, 40),
        ("a.py:L5-L9", "a.py", 5, 9),
        ("pkg/mod.rs:7–9", "pkg/mod.rs", 7, 9),
        ("a.py:12.", "a.py", 12, 12),
    ],
)
def test_bare_location_item(item: str, path: str, start: int, end: int) -> None:
    for is_entity in (None, lambda name: False):
        section = section_of(item, is_entity=is_entity)
        assert section.items == ()
        assert section.group_labels == ()
        assert section.locations == (CitedLocation(None, path, start, end, item),)


@pytest.mark.parametrize(
    ("item", "items"),
    [
        ("https://x.org/a.py:12", ("https",)),
        ("Name (https://x.org/a.py:12)", ("Name",)),
        ("[Name](a.py#L3)", ("Name",)),
        ("Name (a.py)", ("Name",)),
        ("Name (x:12)", ("Name",)),
        ("Name: 12 entries", ("Name",)),
        ("pkg.cli:main", ("pkg.cli",)),
    ],
)
def test_not_a_location(item: str, items: tuple[str, ...]) -> None:
    section = section_of(item)
    assert section.items == items
    assert section.locations == ()


@pytest.mark.parametrize(
    ("item", "place"),
    [
        ("Name (a.py:0)", ("a.py", 0, 0)),
        ("Name (a.py:-1)", ("a.py", 0, 0)),
        ("Name (a.py:1234567890)", ("a.py", 0, 0)),
        ("Name (a.py:1.5)", ("a.py", 0, 0)),
        ("Name (:12)", ("", 0, 0)),
        ("Name (a.py:12:5)", ("a.py", 12, 12)),  # a line and a column
        ("Name (C:\\src\\a.py:3)", ("/src/a.py", 3, 3)),  # a Windows path
    ],
)
def test_a_place_written_with_no_line_of_a_file_is_kept_to_be_judged(
    item: str, place: tuple[str, int, int]
) -> None:
    """A location written as a place whose line no file has (0, negative, a fraction,
    ten digits, no path) is kept with line 0, so the validator reports it as invalid
    instead of dropping what the answer wrote."""
    (location,) = section_of(item).locations
    assert (location.name, location.path, location.start, location.end) == ("Name", *place)


def test_locations_in_inline_lists() -> None:
    section = section_of("A (a.py:1), B (b.py:2), and C (c.py:3)")
    assert section.items == ("A", "B", "C")
    assert section.locations == (
        CitedLocation("A", "a.py", 1, 1, "A (a.py:1)"),
        CitedLocation("B", "b.py", 2, 2, "B (b.py:2)"),
        CitedLocation("C", "c.py", 3, 3, "C (c.py:3)"),
    )
    section = section_of("D at d.py:1 and E at e.py:2-3, f.py:4")
    assert section.items == ("D", "E")
    assert [(loc.name, loc.path, loc.start, loc.end) for loc in section.locations] == [
        ("D", "d.py", 1, 1),
        ("E", "e.py", 2, 3),
        (None, "f.py", 4, 4),
    ]


def test_location_in_a_labelled_list() -> None:
    section = section_of("Classes: A (a.py:1), B", is_entity=lambda name: name in {"A", "B"})
    assert (section.items, section.group_labels) == (("A", "B"), ("Classes",))
    assert section.locations == (CitedLocation("A", "a.py", 1, 1, "A (a.py:1)"),)


def test_location_of_a_group_label() -> None:
    section = find_citation_section("## Entities used\n- `GraphStore` (store.py:3-40):\n  - add\n")
    assert section is not None
    assert (section.items, section.group_labels) == (("add",), ("GraphStore",))
    assert section.locations == (
        CitedLocation("GraphStore", "store.py", 3, 40, "`GraphStore` (store.py:3-40):"),
    )


def test_location_column_of_a_table() -> None:
    section = find_citation_section(
        "## Entities used\n| # | Entity | Where |\n|---|---|---|\n"
        "| 1 | `GraphStore` | `store.py:3-40` |\n| 2 | build_index | index.py:7 |\n"
        "| 3 | SqliteGraphStore | - |\n"
    )
    assert section is not None
    assert section.items == ("GraphStore", "build_index", "SqliteGraphStore")
    assert section.locations == (
        CitedLocation("GraphStore", "store.py", 3, 40, "`GraphStore` | `store.py:3-40`"),
        CitedLocation("build_index", "index.py", 7, 7, "build_index | index.py:7"),
    )


def test_inline_label_with_locations() -> None:
    section = find_citation_section("Entities used: `A` (a.py:3-9) and B.")
    assert section is not None and section.items == ("A", "B")
    assert section.locations == (CitedLocation("A", "a.py", 3, 9, "`A` (a.py:3-9)"),)


def test_located_and_bare_items_are_valid_citations() -> None:
    response = BODY + (
        "## 📚 Entities used in this answer\n- GraphStore (citeloop/store.py:3)\n"
        "- `SqliteGraphStore` — citeloop/store.py:10-40\n- build_index at index.py:5\n"
        "- citeloop/store.py:1-2\n"
    )
    result = validate(response, reference_threshold=1.0)
    assert result.citations == tuple(NAMES)
    # A bare location is not a name: never an invalid citation (whether it lies inside
    # a cited entity is the validator's location check, not the parser's).
    assert result.invalid_citations == ()


def test_prose_item_location_belongs_to_the_item() -> None:
    section = section_of("GraphStore is defined at store.py:12")
    assert section.items == ("GraphStore is defined",)
    assert section.locations == (
        CitedLocation(
            "GraphStore is defined", "store.py", 12, 12, "GraphStore is defined at store.py:12"
        ),
    )


# --- one adversarial megabyte line parses well under a second -----------------------------

ADVERSARIAL_LINES = {
    "label-symbols": "## " + "📚 " * (MEGABYTE // 2) + "Entities used\n- a\n",
    "label-words": "Key " * (MEGABYTE // 4) + "entities used:\n- a\n",
    "bold-label": "**" + "Key " * (MEGABYTE // 4) + "citations**\n- a\n",
    "label-colons": "Entities used" + ":" * MEGABYTE,
    "and-spaces": "Entities used: a" + " " * MEGABYTE + "and b",
    "and-after-description": "Entities used: a — " + "b and " * (MEGABYTE // 6),
    "and-in-parentheses": "Entities used: a (" + "b and " * (MEGABYTE // 6),
    "at-words": "## Entities used\n- " + "a at " * (MEGABYTE // 5),
    "location-colons": "## Entities used\n- " + "a.py:" * (MEGABYTE // 5),
    "location-dashes": "## Entities used\n- a.py:" + "1-" * (MEGABYTE // 2),
    "location-digits": "## Entities used\n- a.py:" + "1" * MEGABYTE,
    "location-anchors": "## Entities used\n- " + "#L" * (MEGABYTE // 2),
    "long-path": "## Entities used\n- a (" + "b/" * (MEGABYTE // 2) + "c.py:1)",
    "long-path-spaced": "## Entities used\n- a (" + "b/ " * (MEGABYTE // 3) + "c.py:1)",
}


@pytest.mark.parametrize("text", ADVERSARIAL_LINES.values(), ids=ADVERSARIAL_LINES.keys())
def test_adversarial_megabyte_line_parses_fast(text: str) -> None:
    started = time.perf_counter()
    find_citation_section(text, is_entity=lambda name: name == "a")
    # Linear: tens of milliseconds; generous for a loaded machine.
    assert time.perf_counter() - started < 1.0
