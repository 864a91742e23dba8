"""Unit tests of GraphContextValidator and its parsers (offline, deterministic)."""

from __future__ import annotations

import builtins
import json
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import Enum, StrEnum

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.grounding import (
    RETRY_PROMPT_HEADER,
    RULE_SUMMARIES,
    SAID_LACKING_HEADER,
    WIDENED_HEADER,
    GraphContextValidator,
    GraphValidationResult,
    NameScanner,
    build_retry_prompt,
    find_citation_section,
    parse_context_entities,
)
from citeloop.grounding.retry_prompt import (
    CHECKS_RETRY_HEADER,
    LACKING_ASK,
    SAID_LACKING_ASK,
    SAID_LACKING_PROBLEM,
)
from citeloop.text import normalize_text, plain_hyphens, stream_safe, without_invisible

CONTEXT = (
    "class GraphStore(Protocol): add_entity, neighbours\n"
    "def build_index(root)\n"
    "SqliteGraphStore inherits from GraphStore\n"
    "build_index() calls parse_module()\n"
    "GraphStore.neighbours()\n"
    "REQ-008-013 graph context validation\n"
    "## Prior decisions\n"
    "  DEC-7: SQLite is the embedded default\n"
)
NAMES = [
    "DEC-7",
    "GraphStore",
    "REQ-008-013",
    "SqliteGraphStore",
    "build_index",
    "neighbours",
    "parse_module",
]
BODY = "Uses " + ", ".join(f"`{name}`" for name in NAMES) + ".\n\n"


def validate(response: str, context: object = CONTEXT, **settings: object) -> GraphValidationResult:
    return GraphContextValidator(**settings).validate(response, context)


class Tier(StrEnum):
    """Stands in for citeloop.knowledge.Tier (the validator must not import it)."""

    CORE = "core"
    SUPPORTING = "supporting"


class PlainTier(Enum):
    """A user's own tier enum (not a str subclass): compared by value."""

    SUPPORTING = "supporting"


@dataclass(frozen=True)
class Entity:
    """Stands in for citeloop.knowledge.ContextEntity."""

    name: str
    kind: str = "class"
    tier: Tier | PlainTier = Tier.CORE


@dataclass(frozen=True)
class Injected:
    """Stands in for citeloop.knowledge.InjectedContext."""

    text: str
    entities: tuple[Entity, ...]


# --- context text -------------------------------------------------------------------


def test_parse_context_entities_kinds_and_order() -> None:
    parsed = parse_context_entities(CONTEXT)
    assert [(e.name, e.kind) for e in parsed] == [
        ("GraphStore", "class"),
        ("build_index", "function"),
        ("SqliteGraphStore", "class"),
        ("parse_module", "function"),
        ("neighbours", "method"),
        ("REQ-008-013", "requirement"),
        ("DEC-7", "decision"),
    ]


def test_parse_context_entities_skips_noise_bases_arguments_and_members() -> None:
    text = (
        "class Store(Protocol, Generic): get, put\n"
        "async def fetch(self, key: str) -> Any\n"
        "Store inherits from object\n"
        "fetch() calls len()\n"
        "self.helper()\n"
    )
    assert [e.name for e in parse_context_entities(text)] == ["Store", "fetch", "helper"]


def test_parse_context_entities_requirement_ids_anywhere_and_decisions_section() -> None:
    text = (
        "def run()  # traces REQ-1-2\n"
        "## Prior decisions\n"
        "  DEC-7: implements REQ-3\n"
        "  ADR-0012: another\n"
        "## Other\n"
        "  NOT-A-DECISION: text\n"
    )
    assert [e.name for e in parse_context_entities(text)] == [
        "run",
        "REQ-1-2",
        "DEC-7",
        "REQ-3",
        "ADR-0012",
    ]


def test_parse_context_entities_dotted_references() -> None:
    text = "pkg.mod.build() calls Store.get()\nChild inherits from pkg.base.Base\n"
    assert [e.name for e in parse_context_entities(text)] == [
        "build",
        "Store",
        "get",
        "Child",
        "Base",
    ]


# --- citation section forms ---------------------------------------------------------

SECTION_FORMS = {
    "atx-h2": "## Entities used\n- GraphStore\n- build_index\n",
    "atx-h1-title-case": "# Entities Used\n- GraphStore\n- build_index\n",
    "atx-h6-colon-closing-hashes": "###### entities used: ##\n- GraphStore\n- build_index\n",
    "atx-blank-line-before-list": "## Entities used\n\n- GraphStore\n- build_index\n",
    "setext-equals": "Entities used\n=============\n* GraphStore\n* build_index\n",
    "setext-dashes": "Entities used\n-------------\n+ GraphStore\n+ build_index\n",
    "bold": "**Entities used**\n- GraphStore\n- build_index\n",
    "bold-colon-inside": "**Entities used:**\n- GraphStore\n- build_index\n",
    "bold-colon-outside": "**Entities used**:\n- GraphStore\n- build_index\n",
    "bold-underscores": "__Entities used__\n- GraphStore\n- build_index\n",
    "bold-inline-items": "**Entities used:** GraphStore, build_index\n",
    "label-below": "Entities used:\n- GraphStore\n- build_index\n",
    "label-inline": "Entities used: GraphStore, build_index\n",
    "label-plain-lines": "Entities used:\nGraphStore\nbuild_index\n",
    "numbered-dot": "## Entities used\n1. GraphStore\n2. build_index\n",
    "numbered-paren": "## Entities used\n1) GraphStore\n2) build_index\n",
    "loose-list": "## Entities used\n- GraphStore\n\n- build_index\n",
    "backticks-and-parens": "## Entities used\n- `GraphStore`\n- `build_index()`\n",
    "bold-items": "## Entities used\n- **GraphStore**\n- build_index()\n",
    "links": "## Entities used\n- [GraphStore](store.py)\n- [`build_index`](index.py#L3)\n",
    "descriptions": "## Entities used\n- GraphStore — the protocol\n- build_index - entry point\n",
    "description-colon-en-dash": "## Entities used\n- GraphStore: store\n- build_index – entry\n",
    "description-parenthesis": "## Entities used\n- GraphStore (the protocol)\n- build_index\n",
    "comma-list-item": "## Entities used\n- GraphStore, build_index\n",
    "dotted": "## Entities used\n- citeloop.knowledge.GraphStore\n- pkg.index.build_index\n",
    "synonym-citations": "## Citations\n- GraphStore\n- build_index\n",
    "synonym-entities-cited": "### Entities cited\n- GraphStore\n- build_index\n",
    "crlf": "## Entities used\r\n- GraphStore\r\n- build_index\r\n",
}


@pytest.mark.parametrize("section", SECTION_FORMS.values(), ids=SECTION_FORMS.keys())
def test_citation_section_forms(section: str) -> None:
    response = "GraphStore is built by build_index.\n\n" + section
    result = validate(response, ["GraphStore", "build_index"])
    assert result.has_citation_section
    assert result.citations == ("GraphStore", "build_index")
    assert result.invalid_citations == ()
    assert result.passed, result.reasons


@pytest.mark.parametrize(
    "response",
    [
        "## Sources\n- GraphStore\n",
        "## References\n- GraphStore\n",
        "**Entities used** are GraphStore and build_index.\n",
        "- Entities used: GraphStore\n",
        "## Entities used in passing\n- GraphStore\n",
    ],
)
def test_not_a_citation_section(response: str) -> None:
    assert find_citation_section(response) is None


def test_section_ends_at_heading_and_prose_after_it_is_body() -> None:
    response = (
        "Intro.\n\n## Entities used\n- GraphStore\n\nbuild_index is called afterwards.\n"
        "## Notes\n- CacheLayer\n"
    )
    result = validate(response, ["GraphStore", "build_index"], reference_threshold=0.0)
    assert result.citations == ("GraphStore",)
    assert result.entities_found == ("build_index",)
    assert result.invalid_citations == ()


def test_section_ends_at_thematic_break_and_fence() -> None:
    section = find_citation_section("## Entities used\n- A\n---\n- B\n")
    assert section is not None and section.items == ("A",)
    section = find_citation_section("## Entities used\n- A\n```\n- B\n```\n")
    assert section is not None and section.items == ("A",)


def test_lazy_continuation_line_is_not_a_citation() -> None:
    section = find_citation_section("## Entities used\n- GraphStore\n  the protocol itself\n- B\n")
    assert section is not None and section.items == ("GraphStore", "B")


def test_last_section_wins() -> None:
    response = (
        "GraphStore and build_index.\n\n## Entities used\n- CacheLayer\n\n"
        "Revised.\n\n## Entities used\n- GraphStore\n- build_index\n"
    )
    result = validate(response, ["GraphStore", "build_index"])
    assert result.citations == ("GraphStore", "build_index")
    assert result.invalid_citations == ()


def test_phrase_item_cites_the_entities_it_mentions() -> None:
    response = (
        "GraphStore and build_index.\n\n## Entities used\n\nI used GraphStore and build_index.\n"
    )
    assert validate(response, ["GraphStore", "build_index"]).citations == (
        "GraphStore",
        "build_index",
    )


def test_invalid_citation_is_reported_after_dotted_reduction() -> None:
    result = validate(
        "GraphStore.\n\n## Entities used\n- pkg.cache.CacheLayer\n- GraphStore\n", ["GraphStore"]
    )
    assert result.invalid_citations == ("CacheLayer",)
    assert not result.passed


def test_citation_section_is_not_body() -> None:
    result = validate("Nothing here.\n\n## Entities used\n- GraphStore\n", ["GraphStore"])
    assert result.entities_found == ()
    assert result.cited_not_used == ("GraphStore",)
    assert not result.passed


# --- boundaries and Unicode ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("GraphStores build_index_v2 xbuild_index _build_index", set()),
        ("REQ-008-013-US1 REQ-008-0130 XREQ-008-013 REQ-008-01", set()),
        (
            "(GraphStore), `build_index()`, REQ-008-013. and DEC-7;",
            {"GraphStore", "build_index", "REQ-008-013", "DEC-7"},
        ),
        ("GraphStore.neighbours()", {"GraphStore", "neighbours"}),
        (
            "build_index-based and GraphStore/neighbours",
            {"build_index", "GraphStore", "neighbours"},
        ),
        ("**GraphStore**, [DEC-7](adr.md), 'REQ-008-013'", {"GraphStore", "DEC-7", "REQ-008-013"}),
        ("graphstore BUILD_INDEX", set()),
    ],
)
def test_boundaries(text: str, found: set[str]) -> None:
    names = ["GraphStore", "build_index", "neighbours", "REQ-008-013", "DEC-7"]
    assert NameScanner(names).scan(text) == found


def test_multi_token_names_match_same_tokens_and_separators() -> None:
    scanner = NameScanner(["GraphStore.neighbours", "New York"])
    assert scanner.scan("GraphStore.neighbours() in New York") == {
        "GraphStore.neighbours",
        "New York",
    }
    assert (
        scanner.scan("GraphStore neighbours, New  York, NewYork, GraphStore.neighbours_x") == set()
    )


def test_unicode_identifiers() -> None:
    names = ["Straße", "数据", "café"]
    response = (
        f"Die Straße, 数据 und `{unicodedata.normalize('NFD', 'café')}`; nicht Straßenbahn.\n\n"
        "## Entities used\n- Straße\n- 数据\n- café\n"
    )
    result = validate(response, names)
    assert result.entities_found == tuple(sorted(names))
    assert result.citations == tuple(sorted(names))
    assert result.passed
    assert NameScanner(["Straße"]).scan("Straßenbahn 数据Straße") == set()


# --- structured context -------------------------------------------------------------


def test_structured_context_tiers_supporting_may_be_cited_never_required() -> None:
    context = Injected(
        text="ignored when entities are given",
        entities=(
            Entity("GraphStore"),
            Entity("build_index", "function"),
            Entity("Cache", tier=Tier.SUPPORTING),
        ),
    )
    response = "GraphStore and build_index.\n\n## Entities used\n- GraphStore\n- build_index\n"
    result = validate(response, context, reference_threshold=1.0)
    assert result.core_entities == ("GraphStore", "build_index")
    assert result.public_entities == ("Cache", "GraphStore", "build_index")
    assert result.passed
    cited = validate(response + "- Cache\n", context, reference_threshold=1.0)
    assert cited.citations == ("Cache", "GraphStore", "build_index")
    assert cited.cited_not_used == ("Cache",)
    assert cited.passed


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ("We process the order and return it; the cart is not involved.", []),
        ("`Cart` goes in, and the process ends.", ["Cart"]),
        ("`process` takes the `Cart`.", ["Cart", "process"]),
        ("Calling process() empties Cart.", ["Cart", "process"]),
        ("Shop.process takes the Cart.", ["Cart", "process"]),
    ],
)
def test_a_core_name_that_is_a_plain_word_is_referenced_only_as_code(body, found) -> None:
    # A task's plain word is never core; an answer's plain word ("we process the order")
    # does not reference a core `process` either. A helper found it passing at 50%.
    context = [{"name": "process", "tier": "core"}, {"name": "Cart", "tier": "core"}]
    result = validate(body + "\n\n## Entities used\n- process\n- Cart\n", context)
    assert list(result.entities_found) == found


@pytest.mark.parametrize(
    "context",
    [
        [{"name": "GraphStore", "tier": "core"}, {"name": "Cache", "tier": "supporting"}],
        {"entities": [{"name": "GraphStore"}, {"name": "Cache", "tier": "SUPPORTING"}]},
        (Entity("GraphStore"), Entity("Cache", tier=Tier.SUPPORTING)),
        (Entity("GraphStore"), Entity("Cache", tier=PlainTier.SUPPORTING)),
        [
            Entity("Cache", tier=Tier.SUPPORTING),
            "GraphStore",
            Entity("Cache", tier=Tier.SUPPORTING),
        ],
    ],
    ids=["mappings", "mapping-with-entities", "objects", "plain-enum-tier", "mixed-duplicates"],
)
def test_structured_context_shapes(context: object) -> None:
    result = validate("GraphStore.\n\n## Entities used\n- GraphStore\n", context)
    assert result.core_entities == ("GraphStore",)
    assert result.public_entities == ("Cache", "GraphStore")
    assert result.passed


def test_duplicate_name_core_wins() -> None:
    context = [Entity("Cache", tier=Tier.SUPPORTING), Entity("Cache")]
    assert validate("", context).core_entities == ("Cache",)


INVOKES = [  # click's shape: two core methods and a supporting one share a name
    {"id": "core.Group", "kind": "class", "name": "Group", "tier": "core",
     "path": "core.py", "line": 1671, "end_line": 2100},
    {"id": "core.Context", "kind": "class", "name": "Context", "tier": "core",
     "path": "core.py", "line": 213, "end_line": 957},
    {"id": "core.Group.invoke", "kind": "method", "name": "invoke", "tier": "core",
     "path": "core.py", "line": 2020, "end_line": 2060},
    {"id": "core.Context.invoke", "kind": "method", "name": "invoke", "tier": "core",
     "path": "core.py", "line": 861, "end_line": 911},
    {"id": "core.Command.invoke", "kind": "method", "name": "invoke", "tier": "supporting",
     "path": "core.py", "line": 1400, "end_line": 1410},
]  # fmt: skip
INVOKES_BODY = "`Group.invoke` runs the subcommand; `Context.invoke` calls the callback."


def test_core_members_that_share_a_name_are_each_required_by_their_class() -> None:
    """`Group.invoke` and `Context.invoke` are two requirements: an answer about
    `Command.invoke` references neither, and cites neither."""
    off = "`Group` and `Context` end up in `Command.invoke`."
    result = validate(off + "\n\n## Entities used\n- Group\n- Context\n- Command.invoke\n", INVOKES)
    assert result.core_entities == ("Context", "Context.invoke", "Group", "Group.invoke")
    assert result.entities_missing == ("Context.invoke", "Group.invoke")
    assert result.missing_core_citations == ("Context.invoke", "Group.invoke")
    assert "core_citations" in result.failed_rules
    section = "\n\n## Entities used\n- Group\n- Context\n- Group.invoke\n- Context.invoke\n"
    assert validate(INVOKES_BODY + section, INVOKES).passed
    # A name cited bare is the member its location lies in.
    by_place = "\n\n## Entities used\n- Group\n- Context\n- invoke (core.py:2030)\n"
    result = validate(INVOKES_BODY + by_place + "- invoke (core.py:870)\n", INVOKES)
    assert result.passed
    result = validate(INVOKES_BODY + by_place, INVOKES)
    assert result.missing_core_citations == ("Context.invoke",)


def test_namesakes_one_bare_name_of_the_task_chose_among_are_one_requirement() -> None:
    """The task writes `invoke` bare, and both `Group.invoke` and `Context.invoke` became
    core: the answer means one of them, and using and citing it is enough (a played
    answer about label propagation had been made to cite a topic model's and a PCA's
    `fit`). When the task writes them by their classes, both are asked."""
    body = "`Group` and `Context` meet in `Group.invoke`, which runs the subcommand."
    section = "\n\n## Entities used\n- Group\n- Context\n- Group.invoke\n"
    validator = GraphContextValidator()
    bare = validator.validate(body + section, INVOKES, prompt="How does `invoke` dispatch?")
    assert bare.passed and bare.compliance_ratio == 1.0
    assert bare.missing_core_citations == () and bare.entities_missing == ()
    # Neither used nor cited: the requirement stands, every namesake listed.
    off = validator.validate(
        "`Group` and `Context`." + "\n\n## Entities used\n- Group\n- Context\n",
        INVOKES,
        prompt=["How does `invoke` dispatch?", ""],
    )
    assert off.missing_core_citations == ("Context.invoke", "Group.invoke")
    assert off.compliance_ratio == 2 / 3
    # Another namesake the context holds is the answer's choice too: "the `deconstruct()`
    # method" made `RenameField.deconstruct` core, and a played answer about the
    # `Field.deconstruct` meant had been failed for not citing it.
    command = "`Group` and `Context` end up in `Command.invoke`, which runs the callback."
    chosen = validator.validate(
        command + "\n\n## Entities used\n- Group\n- Context\n- Command.invoke\n",
        INVOKES,
        prompt="How does `invoke` dispatch?",
    )
    assert chosen.passed and chosen.missing_core_citations == ()
    both = "How do `Group.invoke` and `Context.invoke` differ?"
    asked = validator.validate(body + section, INVOKES, prompt=both)
    assert asked.missing_core_citations == ("Context.invoke",)
    assert "core_citations" in asked.failed_rules


def test_a_shared_member_name_beside_its_class_alone_references_that_class_s() -> None:
    """ "`Group` dispatches in `invoke()`" means `Group.invoke` when the body names no
    other class whose `invoke` the context shows; beside `Context` too, it means
    neither."""
    result = validate("`Group` dispatches in `invoke()`.", INVOKES)
    assert "Group.invoke" not in result.entities_missing
    assert "Context.invoke" in result.entities_missing
    both = validate("`Group` and `Context` both go through `invoke()`.", INVOKES)
    assert {"Group.invoke", "Context.invoke"} <= set(both.entities_missing)
    # Another class of the context that has an `invoke` counts too (`Command`).
    other = validate("`Group` hands `invoke()` to `Command`.", INVOKES)
    assert "Group.invoke" in other.entities_missing


def test_a_shared_member_name_the_section_cites_under_its_class_is_referenced() -> None:
    """A played answer wrote `decision_function` beside `NearestCentroid` and the mixin
    it comes from, and cited `NearestCentroid.decision_function (path:line)`: it was
    rejected for not using the core entity. The citation says which one it means."""
    body = "`Group` and `Context` both go through `invoke()`."
    cited = "\n\n## Entities used\n- Group\n- Context\n- Group.invoke (core.py:2020)\n"
    result = validate(body + cited, INVOKES)
    assert "Group.invoke" not in result.entities_missing
    assert "Context.invoke" in result.entities_missing  # cited neither way
    # The name must be in the body: a citation alone uses nothing.
    result = validate("`Group` and `Context` differ." + cited, INVOKES)
    assert "Group.invoke" in result.entities_missing


def test_a_name_one_class_defines_is_required_as_before() -> None:
    unique = [e for e in INVOKES if e["id"] != "core.Context.invoke"]
    unique += [{"id": "core.Context.forward", "kind": "method", "name": "forward"}]
    result = validate("", unique)
    assert result.core_entities == ("Context", "Group", "Group.invoke", "forward")
    alone = [e for e in unique if e["id"] != "core.Command.invoke"]
    assert validate("", alone).core_entities == ("Context", "Group", "forward", "invoke")
    # Context text says no tier: its names are required as they always were.
    text = "class Group  # L1-9\nGroup.invoke()  # L2-3\nContext.invoke()  # L5-6\n"
    assert validate("", text).core_entities == ("Context", "Group", "invoke")


def test_a_member_cited_under_its_class_cites_the_class_too() -> None:
    """`Group.invoke (core.py:2020)` writes `Group` and lies inside it: a played answer
    about `StateGraph.compile` that cited `StateGraph.compile` and other members but
    not `StateGraph` alone had been rejected for the class. A member the context
    shows under no such class, or a class cited through a member of another, cites
    nothing more."""
    section = "\n\n## Entities used\n- Context\n- Group.invoke (core.py:2020)\n"
    section += "- Context.invoke (core.py:861)\n"
    result = validate(INVOKES_BODY + section, INVOKES)
    assert result.passed, result.reasons
    assert result.missing_core_citations == ()
    # `Group.forward` is no member the context shows under `Group`.
    other = [
        *INVOKES,
        {
            "id": "core.Context.forward",
            "kind": "method",
            "name": "forward",
            "tier": "supporting",
            "path": "core.py",
            "line": 900,
            "end_line": 905,
        },
    ]
    section = "\n\n## Entities used\n- Context\n- Group.forward\n- Group.invoke\n"
    result = validate(INVOKES_BODY + section + "- Context.invoke\n", other)
    assert result.missing_core_citations == ()  # through `Group.invoke`
    result = validate(
        INVOKES_BODY + "\n\n## Entities used\n- Context\n- Group.forward\n"
        "- Context.invoke\n- invoke (core.py:2030)\n",
        other,
    )
    assert result.missing_core_citations == ("Group",)


def test_a_member_cited_with_sub_items_cites_itself_and_its_class_as_an_item_does() -> None:
    """A citation list may nest: `- Group.invoke` with its sub-items under it is a
    group label, which cites what it names. It had cited neither `Group` (the class of
    the member it writes) nor `Group.invoke` among the namesakes `invoke`, so the
    nested list failed where the flat one passed."""
    flat = "\n\n## Entities used\n- Context\n- Group.invoke\n- Context.invoke\n"
    assert validate(INVOKES_BODY + flat, INVOKES).passed
    nested = "\n\n## Entities used\n- Group.invoke\n  - Context\n  - Context.invoke\n"
    result = validate(INVOKES_BODY + nested, INVOKES)
    assert result.passed, result.reasons
    assert result.missing_core_citations == ()
    located = "\n\n## Entities used\n- Group.invoke (core.py:2020)\n"
    located += "  - Context.invoke (core.py:861)\n    - Context\n"
    result = validate(INVOKES_BODY + located, INVOKES)
    assert result.passed, result.reasons


def test_another_class_at_a_core_members_lines_cites_neither() -> None:
    # `Command.invoke` is not in a context without it, wherever its location points.
    context = [e for e in INVOKES if e["id"] != "core.Command.invoke"]
    section = "\n\n## Entities used\n- Group\n- Context\n- Context.invoke (core.py:861)\n"
    result = validate(INVOKES_BODY + section + "- Command.invoke (core.py:2030)\n", context)
    assert result.invalid_citations == ("Command.invoke",)
    assert result.missing_core_citations == ("Group.invoke",)


def test_members_without_their_classes_are_named_as_required() -> None:
    # Only the methods are in the context: `Group.invoke` is what it requires, so
    # writing it invents nothing; and what a report requires can be required again.
    methods = [e for e in INVOKES if e["kind"] == "method"]
    section = "\n\n## Entities used\n- Group.invoke\n- Context.invoke\n"
    result = validate(INVOKES_BODY + section, methods)
    assert result.passed, result.reasons
    again = validate(INVOKES_BODY + section, methods, core_entities=result.core_entities)
    assert again.core_entities == ("Context.invoke", "Group.invoke") and again.passed


def test_a_member_location_is_checked_against_the_class_it_names() -> None:
    swapped = "\n\n## Entities used\n- Group\n- Context\n"
    swapped += "- Group.invoke (core.py:861)\n- Context.invoke (core.py:2020)\n"
    result = validate(INVOKES_BODY + swapped, INVOKES)
    assert result.invalid_locations == (
        "Group.invoke (core.py:861)",
        "Context.invoke (core.py:2020)",
    )
    assert "locations" in result.failed_rules


def test_parsed_context_entities_check_locations_as_their_text_does() -> None:
    # The entities parse_context_entities gives keep the places their lines say: an
    # answer is judged against them as against the text they were parsed from.
    text = "# shop/cart.py\nclass Basket  # L10-40\nBasket.total() -> int  # L30-34\n"
    answer = "`Basket.total` sums the items.\n\n## Entities used\n- Basket\n"
    answer += "- Basket.total (shop/cart.py:80)\n"
    from_text = validate(answer, text)
    from_parsed = validate(answer, parse_context_entities(text))
    assert from_text.invalid_locations == ("Basket.total (shop/cart.py:80)",)
    assert from_parsed.invalid_locations == from_text.invalid_locations
    assert from_parsed.to_dict() == from_text.to_dict()


@pytest.mark.parametrize(
    ("name", "error", "says"),
    [
        ("", ValueError, "has an empty name"),
        ("  ", ValueError, "has an empty name"),
        ("->", ValueError, "has no letter, digit or underscore"),
        (None, TypeError, "has no string name"),
        (3, TypeError, "has no string name"),
    ],
)
def test_a_parsed_entity_s_name_is_checked_as_any_name_is(name, error, says) -> None:
    # An attack had found these accepted (or failing inside) once parsed entities were
    # read on their own path.
    from citeloop.grounding.context_text import ParsedEntity

    with pytest.raises(error, match=re.escape(says)):
        validate("`A` does it.", [ParsedEntity(name, "class")])


def test_private_entities_reported_never_required() -> None:
    context = ["Loader", "_read_one", "_cache"]
    response = "Loader calls _read_one.\n\n## Entities used\n- Loader\n- _read_one\n"
    result = validate(response, context, reference_threshold=1.0)
    assert result.passed
    assert result.private_entities == ("_cache", "_read_one")
    assert result.private_found == ("_read_one",)
    assert result.private_missing == ("_cache",)
    assert result.core_entities == ("Loader",)


# --- verdict ------------------------------------------------------------------------


@pytest.mark.parametrize("context", ["", "just prose, no entities\n", [], {"entities": ()}])
def test_vacuous_context_passes_and_says_so(context: object) -> None:
    result = validate("Any answer at all.", context)
    assert result.passed and result.vacuous
    assert result.compliance_ratio == 1.0
    assert result.total_entities == 0
    assert result.reasons == ()


SUPPORTING_ONLY = [{"name": "Cache", "tier": "supporting"}, {"name": "Store", "tier": "supporting"}]


def test_a_context_without_core_entities_still_needs_a_citation() -> None:
    # The task named no code: an answer that cites nothing of a non-empty context fails,
    # so there is never a vacuous pass over a context.
    result = validate("No references.", SUPPORTING_ONLY)
    assert not result.passed and not result.vacuous
    assert "cite at least 1" in " ".join(result.reasons)
    cited = validate("Cache keeps it.\n\n## Entities used\n- Cache\n", SUPPORTING_ONLY)
    assert cited.passed and cited.compliance_ratio == 1.0


def test_invalid_citations_do_not_count_toward_min_citations() -> None:
    result = validate("Redis keeps it.\n\n## Entities used\n- Redis\n", SUPPORTING_ONLY)
    assert not result.passed
    assert any("cite at least 1" in reason for reason in result.reasons)


@pytest.mark.parametrize(("minimum", "passed"), [(0, True), (2, False)])
def test_min_citations_setting(minimum: int, passed: bool) -> None:
    validator = GraphContextValidator(min_citations=minimum)
    answer = "Cache keeps it.\n\n## Entities used\n- Cache\n"
    assert validator.validate(answer, SUPPORTING_ONLY).passed is passed


@pytest.mark.parametrize(
    ("value", "error"), [(-1, ValueError), (1.5, TypeError), (True, TypeError)]
)
def test_bad_min_citations(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="min_citations"):
        GraphContextValidator(min_citations=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("threshold", "passed"), [(0.0, True), (3 / 7, True), (0.5, False), (1.0, False)]
)
def test_reference_threshold(threshold: float, passed: bool) -> None:
    response = "GraphStore, build_index, DEC-7.\n\n## Entities used\n" + "".join(
        f"- {name}\n" for name in NAMES
    )
    result = validate(response, reference_threshold=threshold)
    assert result.compliance_ratio == pytest.approx(3 / 7)
    assert result.passed is passed
    assert result.entities_missing == (
        "REQ-008-013",
        "SqliteGraphStore",
        "neighbours",
        "parse_module",
    )


def test_require_citations_false_ignores_the_section() -> None:
    assert validate(BODY, require_citations=False).passed
    result = validate(BODY)
    assert not result.passed
    assert result.missing_core_citations == tuple(NAMES)
    assert "no citation section ('## Entities used')" in result.reasons


def test_fail_on_cited_not_used() -> None:
    response = "Only GraphStore.\n\n## Entities used\n- GraphStore\n- build_index\n"
    context = ["GraphStore", "build_index"]
    assert validate(response, context).passed
    strict = validate(response, context, fail_on_cited_not_used=True)
    assert not strict.passed
    assert strict.reasons == ("cited but not used in the body: build_index",)


def test_result_to_dict_is_json_with_documented_fields() -> None:
    result = validate(BODY + "## Entities used\n" + "\n".join(NAMES))
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert asdict(result).keys() == data.keys()
    assert set(data) == {
        "passed", "vacuous", "public_entities", "private_entities", "core_entities",
        "public_found", "public_missing", "private_found", "private_missing",
        "total_entities", "public_count", "private_count", "found_count", "core_count",
        "citations", "invalid_citations", "missing_core_citations", "cited_not_used",
        "compliance_ratio", "entities_found", "entities_missing", "has_citation_section",
        "reasons", "failed_rules", "invented_names", "ungrounded_in_graph", "lacking_not_in_graph",
        "cited_locations",
        "invalid_locations", "missing_locations", "insufficient_context", "graph_searched",
        "context_located",
    }  # fmt: skip
    assert data["passed"] and data["core_count"] == data["found_count"] == 7


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "context", [None, 42, b"class A", {"text": "class A"}, [42], [{"tier": "core"}]]
)
def test_wrong_context_type_raises_type_error(context: object) -> None:
    with pytest.raises(TypeError, match="context"):
        validate("answer", context)


@pytest.mark.parametrize("context", [[""], [{"name": "A", "tier": "optional"}]])
def test_bad_context_values_raise_value_error(context: object) -> None:
    with pytest.raises(ValueError, match="entity"):
        validate("answer", context)


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan")])
def test_threshold_out_of_range(threshold: float) -> None:
    with pytest.raises(ValueError, match="reference_threshold"):
        GraphContextValidator(reference_threshold=threshold)


@pytest.mark.parametrize("threshold", ["0.5", True])
def test_threshold_not_a_number(threshold: object) -> None:
    with pytest.raises(TypeError, match="reference_threshold"):
        GraphContextValidator(reference_threshold=threshold)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="reference_threshold"):
        GraphContextValidator(threshold=threshold)  # type: ignore[arg-type]


def test_section_labels_must_be_labels() -> None:
    """A str had been taken as its characters, one label each: no answer's section was
    ever found. A blank label names no heading."""
    with pytest.raises(TypeError, match=r"section_labels must be a list .*\('Sources',\)"):
        GraphContextValidator(section_labels="Sources")  # type: ignore[arg-type]
    for labels in ([], [""], ["  "], [None]):
        with pytest.raises(ValueError, match="section_labels"):
            GraphContextValidator(section_labels=labels)  # type: ignore[arg-type]
    assert GraphContextValidator(section_labels=["Sources"]).section_labels == ("Sources",)


def test_a_missing_section_is_named_by_the_labels_given() -> None:
    """With labels of one's own, the reason asks for a heading they accept, not for
    '## Entities used', which they do not."""
    result = validate(BODY, section_labels=("Sources",))
    assert "no citation section ('## Sources')" in result.reasons
    assert validate(BODY + "## Sources\n" + "".join(f"- {n}\n" for n in NAMES),
                    section_labels=("Sources",)).passed  # fmt: skip
    bare = validate("Nothing here.", ["x", "y"], core_entities=[], section_labels=("Sources",))
    assert any("under '## Sources'" in reason for reason in bare.reasons)


def test_no_threshold_means_the_documented_half() -> None:
    assert GraphContextValidator(reference_threshold=None).reference_threshold == 0.5
    with pytest.raises(ValueError, match="disagree"):
        GraphContextValidator(threshold=0.4, reference_threshold=0.6)


def test_response_must_be_text() -> None:
    with pytest.raises(TypeError, match="response"):
        GraphContextValidator().validate(None, CONTEXT)  # type: ignore[arg-type]


# --- retry prompt -------------------------------------------------------------------


def test_retry_prompt_lists_problems_and_asks_for_the_section() -> None:
    result = validate(
        "GraphStore is used with a CacheLayer.\n\n## Entities used\n- GraphStore\n- CacheLayer\n"
    )
    prompt = build_retry_prompt("Explain the graph store.", result)
    assert prompt.startswith("Explain the graph store.\n")
    # The task writes neither id: the prompt says nothing of how they came to be core
    # (the model was shown no tiers).
    missing = "Cite these core entities (they were missing): DEC-7; REQ-008-013;"
    assert missing in prompt
    assert "line of its own): CacheLayer" in prompt
    assert (
        "Reference these core entities in the body of the answer, written as code (`name`): DEC-7;"
        in prompt
    )
    assert "marks it core" not in prompt
    # A payload that writes one is named as where it was written.
    with_payload = build_retry_prompt("Explain the graph store.", result, payload="See DEC-7.")
    assert "DEC-7 (the payload writes `DEC-7`); REQ-008-013;" in with_payload
    assert "See DEC-7." not in with_payload  # the payload is not repeated
    assert prompt.endswith("## Entities used\n- <entity name>\n")  # no locations to give
    assert "one entity per line" in prompt
    header = prompt.splitlines()[2]
    assert header.startswith(RETRY_PROMPT_HEADER)
    for rule in ("references", "core_citations", "invalid_citations"):
        assert RULE_SUMMARIES[rule] in header


def test_retry_prompt_never_nests() -> None:
    task = "Explain the graph store."
    first = build_retry_prompt(task, validate("Nothing."))
    second = build_retry_prompt(task, validate("Still nothing about GraphStore."))
    for prompt in (first, second):
        assert prompt.count(task) == 1
        assert prompt.count(RETRY_PROMPT_HEADER) == 1
    # Even a caller that passes the previous prompt instead of the task gets no nesting.
    assert build_retry_prompt(first, validate("Still nothing about GraphStore.")) == second
    assert GraphContextValidator.build_retry_prompt(task, validate("Nothing.")) == first


def test_a_retry_for_a_said_insufficient_context_does_not_call_it_rejected() -> None:
    """Naming what the context lacks is what the system prompt asks: the retry says the
    context was widened (when it was) and asks to still name what is missing, and a
    fault beside it is the only thing called a rejection."""
    task = "Explain the graph store."
    caveat = "GraphStore keeps the facts, but the context does not show how they are saved."
    honest = validate(f"{caveat}\n\n## Entities used\n- GraphStore\n", ["GraphStore"])
    assert honest.failed_rules == ("insufficient_context",)
    prompt = build_retry_prompt(task, honest, previous_answer=caveat, widened=True)
    assert prompt.splitlines()[2] == WIDENED_HEADER
    assert "rejected" not in prompt
    # Said once, asked once: no list repeats the header, no "problems above" to change.
    assert prompt.splitlines()[3] == LACKING_ASK
    assert prompt.count("lacks code it needs") == 1 and "problems above" not in prompt
    assert "Revise your previous answer accordingly." in prompt
    # A failed check beside it is a fault: the header says the answer was rejected, and
    # the saying is one line of the list.
    checked = build_retry_prompt(
        task, honest, ["- [short] too long."], previous_answer=caveat, widened=True
    )
    assert checked.splitlines()[2] == CHECKS_RETRY_HEADER
    assert checked.count("lacks code it needs") == 1 and "problems above" in checked
    again = build_retry_prompt(prompt, honest, previous_answer=caveat, widened=True)
    assert again == prompt  # no nesting
    # The validator's own context is fixed: no widening is claimed (the design's API).
    fixed = GraphContextValidator("class GraphStore").build_retry_prompt(task, honest)
    assert fixed.splitlines()[2] == SAID_LACKING_HEADER
    assert "widened" not in fixed and "rejected" not in fixed
    assert fixed.splitlines()[3] == SAID_LACKING_ASK
    assert "Answer again accordingly." in fixed  # the design's API shows no previous answer
    assert build_retry_prompt(fixed, honest) == fixed  # no nesting either
    # With a fault beside it, the header names the fault alone.
    faulty = validate(f"{caveat}\n\n## Entities used\n- GraphStore\n- CacheLayer\n", ["GraphStore"])
    assert {"insufficient_context", "invalid_citations"} <= set(faulty.failed_rules)
    listed = build_retry_prompt(task, faulty)
    header = listed.splitlines()[2]
    assert SAID_LACKING_PROBLEM in listed and "problems above" in listed
    assert header.startswith(RETRY_PROMPT_HEADER)
    assert RULE_SUMMARIES["invalid_citations"] in header
    assert RULE_SUMMARIES["insufficient_context"] not in header


def test_a_retry_for_check_problems_only_says_the_checks_failed() -> None:
    task = "Explain the graph store."
    passed = GraphContextValidator().validate("Nothing to cite.", [])
    assert passed.passed
    prompt = build_retry_prompt(task, passed, ["- [json] no JSON value found"])
    assert not any(summary in prompt for summary in RULE_SUMMARIES.values())
    assert "did not pass these checks.\n- [json] no JSON value found" in prompt
    # The checks' own retry does not nest either, nor does a later context rejection.
    assert build_retry_prompt(prompt, passed, ["- [json] no JSON value found"]) == prompt
    assert build_retry_prompt(prompt, validate("Nothing.")) == build_retry_prompt(
        task, validate("Nothing.")
    )
    assert GraphContextValidator.build_retry_prompt(task, passed, ["- x"]) == build_retry_prompt(
        task, passed, ["- x"]
    )


def test_retry_prompt_without_section_says_so() -> None:
    prompt = build_retry_prompt("Task.", validate(BODY))
    assert "no '## Entities used' section" in prompt


# --- never raises, linear time ------------------------------------------------------


@settings(max_examples=300)
@given(response=st.text(), context=st.text())
def test_validate_never_raises_on_arbitrary_text(response: str, context: str) -> None:
    result = validate(response, context)
    assert 0.0 <= result.compliance_ratio <= 1.0
    validate(response, CONTEXT)


MARKDOWNISH = st.text(
    alphabet=st.sampled_from(list("#*-+_`[]()=:,.\n 1aZ-ßEntiesud")), max_size=400
)


@settings(max_examples=300)
@given(response=MARKDOWNISH)
def test_validate_never_raises_on_markdown_fragments(response: str) -> None:
    validate(response + "\n## Entities used\n" + response, CONTEXT)


MEGABYTE = 1_000_000
PATHOLOGICAL = {
    "dashes": "-" * MEGABYTE,
    "hyphen-chain": "a-" * (MEGABYTE // 2),
    "hashes": "#" * MEGABYTE,
    "stars": "**" * (MEGABYTE // 2),
    "brackets": "[" * MEGABYTE,
    "parens": "(" * MEGABYTE,
    "backticks": "`" * MEGABYTE,
    "bullets": "\n- " * (MEGABYTE // 3),
    "headings": "## Entities used\n" * (MEGABYTE // 17),
    "bold-labels": "**Entities used**\n- " * (MEGABYTE // 20),
    "inline-labels": "Entities used: " * (MEGABYTE // 15),
    "digits": "1" * MEGABYTE + ".",
    "setext": "x\n" + "=" * MEGABYTE,
    "spaces": " " * MEGABYTE + "calls x",
    "ids": "REQ-" * (MEGABYTE // 4),
    "binaryish": bytes(range(256)).decode("latin-1") * (MEGABYTE // 256),
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_megabyte_of_pathological_text_completes(text: str) -> None:
    # Linear scanning keeps each of these well under a second; a backtracking regex
    # would not finish at this size.
    result = validate(text, CONTEXT)
    assert not result.passed
    parse_context_entities(text)


def test_defined_names_that_shadow_builtins_are_entities():
    text = "def compile(source)\nParser.format()\ncompile() calls len()\nA inherits from object\n"
    names = [e.name for e in parse_context_entities(text)]
    assert names == ["compile", "Parser", "format", "A"]


# --- combining marks: Stream-Safe Text Format (UAX #15 §13) ----------------------------

COMBINING_RUNS = {
    "alternating-marks": lambda n: "\u0301\u0316" * (n // 2),
    "one-base-many-marks": lambda n: "a" + "\u0301" * n,
    "tibetan-ii": lambda n: "\u0f73" * n,  # combining class 0, two non-starters in NFKD
}


def _seconds(text: str) -> float:
    started = time.perf_counter()
    GraphContextValidator().validate(text, ["A"])
    return time.perf_counter() - started


@pytest.mark.parametrize("make", COMBINING_RUNS.values(), ids=COMBINING_RUNS.keys())
def test_runs_of_combining_marks_take_linear_time(make: Callable[[int], str]) -> None:
    # NFC sorts a run of n marks in O(n**2): 64k marks took seconds, 1 MB would take
    # minutes. Stream-safe runs are at most 30 long, so 4x the text is ~4x the time.
    short, long = _seconds(make(MEGABYTE // 4)), _seconds(make(MEGABYTE))
    assert long < 10 * short + 2.0


def test_stream_safe_inserts_cgj_after_30_non_starters_and_loses_nothing() -> None:
    text = "x" + "a" + "\u0301\u0316" * 40 + " é " + "\u0f73" * 20
    safe = stream_safe(text)
    assert safe.replace("\u034f", "") == text
    # Non-starters counted in NFKD, as UAX #15 counts them; CGJ and spaces are starters.
    runs = [
        sum(1 for part in unicodedata.normalize("NFKD", run) if unicodedata.combining(part))
        for run in safe.replace(" ", "\u034f").split("\u034f")
    ]
    assert runs == [30, 30, 20, 1, 30, 10]
    assert stream_safe("a" + "\u0301" * 30) == "a" + "\u0301" * 30
    assert stream_safe("a" + "\u0301" * 31) == "a" + "\u0301" * 30 + "\u034f\u0301"


def test_normalize_text_composes_and_keeps_ascii() -> None:
    assert normalize_text(unicodedata.normalize("NFD", "café")) == "café"
    ascii_text = "plain ASCII"
    assert normalize_text(ascii_text) is ascii_text


def test_without_invisible_drops_each_invisible_character_and_keeps_the_rest() -> None:
    invisible = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
    assert without_invisible("".join(f"{char}x\u2019" for char in invisible)) == "x\u2019" * 6
    assert without_invisible("caf\u00e9") == "caf\u00e9"
    ascii_text = "plain text"
    assert without_invisible(ascii_text) is ascii_text


@pytest.mark.parametrize("hyphen", ["\u2011", "\u2010"])
def test_an_id_written_with_a_unicode_hyphen_is_the_id(hyphen: str) -> None:
    """Chat models write a non-breaking hyphen in ids (`REQ\u2011008\u2011013`): it
    shows as `REQ-008-013`, and had been neither a reference of it nor its citation,
    but a citation of something the context does not have."""
    written = {"REQ-008-013": "REQ-008-013".replace("-", hyphen), "DEC-7": f"DEC{hyphen}7"}
    body = BODY
    section = "## Entities used\n" + "".join(f"- {name}\n" for name in NAMES)
    for name, shown in written.items():
        body, section = body.replace(name, shown), section.replace(name, shown)
    result = validate(body + section)
    assert result.passed, result.reasons
    assert result.invalid_citations == () and result.entities_missing == ()
    assert plain_hyphens("a\u2011b\u2010c \u2013 d") == "a-b-c \u2013 d"  # a dash stays


def test_name_after_a_long_run_of_marks_is_found() -> None:
    response = "\u0301" * 5000 + " GraphStore\n\n## Entities used\n- GraphStore\n"
    assert validate(response, ["GraphStore"], reference_threshold=1.0).passed


# --- names with punctuation -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "hits", "misses"),
    [
        ("C++", ["C++", "(C++)", "C++17 and", "use C++."], ["C", "C#", "C+", "ObjC++x"]),
        (".env", [".env", "config/.env", "`.env`"], ["env", "envs", ".envs", ". env"]),
        ("-v", ["run -v", "(-v)", "--v"], ["v", "-verbose", "x-v"]),
        ("x[0]", ["x[0]", "x[0].y", "(x[0])"], ["x", "x[1]", "x[0", "yx[0]", "x[01]"]),
        ("#tag", ["#tag", "a #tag."], ["tag", "#tags"]),
    ],
)
def test_names_with_punctuation_match_literally_on_word_boundaries(
    name: str, hits: list[str], misses: list[str]
) -> None:
    scanner = NameScanner([name, "C"])
    for text in hits:
        assert name in scanner.scan(text), text
    for text in misses:
        assert name not in scanner.scan(text), text


def test_punctuated_names_can_reach_full_compliance() -> None:
    context = ["C++", ".env", "x[0]"]
    response = "C++ code reads .env into x[0].\n\n## Entities used\n- C++\n- `.env`\n- x[0]\n"
    result = validate(response, context, reference_threshold=1.0)
    assert result.entities_found == (".env", "C++", "x[0]")
    assert result.passed, result.reasons
    plain_c = validate("Only C here.\n\n## Entities used\n- C++\n", ["C++"])
    assert plain_c.entities_found == ()


@pytest.mark.parametrize("name", ["(*)", "->", "--", "*"])
def test_names_without_word_characters_are_rejected(name: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(name))):
        validate("anything", [name, "GraphStore"])
    with pytest.raises(ValueError, match="no letter, digit or underscore"):
        NameScanner([name])


def test_an_invented_name_is_explained_by_what_was_looked_up() -> None:
    """With a knowledge graph, a name in neither the context nor the graph is invented
    code; without one (``citeloop check``), only the context was looked at."""
    answer = "`Order.refund` does it, with `A`.\n\n## Entities used\n- A\n"
    alone = GraphContextValidator().validate(answer, ["A"])
    assert "names code the context does not have (only the context was searched)" in (
        " ".join(alone.reasons)
    )
    graphed = GraphContextValidator().validate(answer, ["A"], graph_names={"A", "B"})
    assert "in neither the context nor the knowledge graph: Order.refund" in " ".join(
        graphed.reasons
    )


def test_a_retry_prompt_claims_no_more_than_was_searched() -> None:
    """Only a validation that searched the knowledge graph tells the model that a name
    is not in the code base; one against the context alone (the design's text API)
    says the context does not have it."""
    answer = "`Order.refund` does it, with `A`.\n\n## Entities used\n- A\n"
    alone = GraphContextValidator().validate(answer, ["A"])
    graphed = GraphContextValidator().validate(answer, ["A"], graph_names={"A", "B"})
    assert (alone.graph_searched, graphed.graph_searched) == (False, True)
    context_only = build_retry_prompt("Explain `A`.", alone)
    assert "code base" not in context_only.replace("not the code base", "")
    assert "it names code the context does not have" in context_only
    assert "not in the context (only the context was searched, not the code base)" in context_only
    assert "Order.refund" in context_only
    searched = build_retry_prompt("Explain `A`.", graphed)
    assert "names code that is in neither the context nor the code base's graph" in searched
    assert "in neither the context nor the code base's knowledge graph (its" in searched
    # A report kept before the field existed reads as the weaker claim.
    kept = {k: v for k, v in graphed.to_dict().items() if k != "graph_searched"}
    assert not GraphValidationResult.from_dict(kept).graph_searched


def test_every_name_an_answer_writes_is_checked_however_many_come_before() -> None:
    """Mentions are capped for a task (a pasted file), never for what an answer claims:
    an invented name after 205 grounded ones still fails it."""
    padding = " ".join(f"`{name}()`" for name in sorted(dir(builtins))[:205])
    answer = f"`A` does it. {padding} Then `PaymentGateway.charge_card_now` runs."
    result = GraphContextValidator().validate(answer + "\n\n## Entities used\n- A\n", ["A"])
    assert not result.passed
    assert result.invented_names == ("PaymentGateway.charge_card_now",)


def test_a_reason_lists_twenty_names_and_counts_the_rest() -> None:
    names = " ".join(f"`Name{i}x`" for i in range(300))
    answer = f"`A` does it with {names}.\n\n## Entities used\n- A\n"
    result = GraphContextValidator().validate(answer, ["A"])
    assert len(result.invented_names) == 300  # the field keeps them all
    (reason,) = result.reasons
    assert reason.endswith("Name18x, Name19x and 280 more")
    prompt = build_retry_prompt("Explain `A`.", result)
    assert "Name19x and 280 more" in prompt and "Name20x" not in prompt


def test_graph_names_given_as_one_string_is_refused() -> None:
    """``in`` on a str matches any part of it: `Ledger` would be found in `"Ledgers"`."""
    answer = "`Ledger.record` does it.\n\n## Entities used\n- A\n"
    with pytest.raises(TypeError, match=r"graph_names must be a collection.*\{'Ledgers'\}"):
        GraphContextValidator().validate(answer, ["A"], graph_names="Ledgers")
    result = GraphContextValidator().validate(answer, ["A"], graph_names={"Ledger", "record"})
    assert (result.invented_names, result.ungrounded_in_graph) == ((), ("Ledger.record",))


def test_a_retry_asks_for_locations_only_when_the_context_gives_them() -> None:
    """A plain-text context without file headings or `# L` marks gives no locations: the
    retry asks for names alone, not for paths the model was never shown."""
    answer = "`checkout` takes a cart.\n\n## Entities used\n- checkout\n"
    bare = GraphContextValidator("def checkout(cart)\ndef total(cart)\n")
    result = bare.validate(answer).report
    assert not result.context_located
    prompt = bare.build_retry_prompt("How does `checkout` work?", result)
    assert prompt.endswith("## Entities used\n- <entity name>\n")
    assert "file heading" not in prompt and "<path>" not in prompt
    located = "# shop/cart.py\ndef checkout(cart)  # L41-43\ndef total(cart)  # L45-50\n"
    with_places = GraphContextValidator(located).validate(answer).report
    assert with_places.context_located
    prompt = build_retry_prompt("How does `checkout` work?", with_places)
    assert prompt.endswith("## Entities used\n- <entity name> (<path>:<line>)\n")


def test_a_retry_that_does_not_show_the_previous_answer_does_not_ask_to_revise_it() -> None:
    """The design's API builds a retry without the previous answer, which may not be
    before the model: it asks to answer again, keeping what was right."""
    result = validate("Nothing about it.")
    unshown = build_retry_prompt("Explain the graph store.", result)
    assert "Answer again: keep what was right in your previous answer" in unshown
    assert "Revise your previous answer" not in unshown
    shown = build_retry_prompt("Explain the graph store.", result, previous_answer="Nothing.")
    assert "Revise your previous answer: keep what is right" in shown
    assert "<previous_answer>\nNothing.\n</previous_answer>" in shown
