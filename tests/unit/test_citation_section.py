"""Citation section choice and answer formats the validator must read (offline)."""

from __future__ import annotations

import time

import pytest

from citeloop.validation import GraphContextValidator, GraphValidationResult, find_citation_section

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
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_megabyte_of_markdown_structure_completes(text: str) -> None:
    started = time.perf_counter()
    validate(text, NAMES)
    # Linear scanning takes well under a second here; a quadratic path takes minutes.
    # Generous: a loaded CI machine must not fail it, a quadratic path takes minutes.
    assert time.perf_counter() - started < 30.0
