"""Parsing context text back: the current line shapes, the README's example, and a
context saved in the older format."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citeloop.grounding import GraphContextValidator, parse_context_entities

ROOT = Path(__file__).parent.parent.parent
OLD_FORMAT = Path(__file__).parent.parent / "fixtures" / "contexts" / "old_format.txt"


def parsed(text: str) -> dict[str, str]:
    return {entity.name: entity.kind for entity in parse_context_entities(text)}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("# shapes/circle.py", {}),
        ("class Circle(Shape)  # L8 — A round shape.", {"Circle": "class"}),
        ("class Box[T](Base, Generic[T])  # L3", {"Box": "class"}),
        ("def typed_circle(radius: float) -> Circle  # L30", {"typed_circle": "function"}),
        ("Circle.area() -> float  # L13 — The area.", {"Circle": "class", "area": "method"}),
        (
            "Graph.add_edge(start: str | list[str], end: str, ...) -> Self  # L40",
            {"Graph": "class", "add_edge": "method"},
        ),
        ("Circle.radius: float = radius  # L10", {"Circle": "class", "radius": "attribute"}),
        ("Circle.radius = radius  # L10", {"Circle": "class", "radius": "attribute"}),
        ("PI = 3.14159  # L4", {"PI": "attribute"}),
        ("MAX: int = 3", {"MAX": "attribute"}),
        ('X: Literal["=="] = "a"  # L2', {"X": "attribute"}),
        (
            "label() calls Circle.area(), format_area()",
            {"label": "function", "Circle": "class", "area": "method", "format_area": "function"},
        ),
        (
            "Group.invoke() calls Command.invoke()",
            {"Group": "class", "invoke": "method", "Command": "class"},
        ),
        ("run() calls len(), helper()", {"run": "function", "helper": "function"}),
        (
            "formatter calls StrictFormatter()",
            {"formatter": "attribute", "StrictFormatter": "function"},
        ),
        ("Kreis inherits from Circle", {"Kreis": "class", "Circle": "class"}),
        (
            "Limit (d/mysql.py:12) inherits from Limit (d/ansi.py:40)",
            {"Limit": "class"},
        ),
        (
            "parse() (d/my-sql.py:50) calls parse() (d/ansi.py:90), lone()",
            {"parse": "function", "lone": "function"},
        ),
        ("Node (a.py:3) calls Leaf() (b.py:9)", {"Node": "attribute", "Leaf": "function"}),
        # A place's path may hold spaces and commas: still no name of it is an entity.
        (
            "run() calls parse() (data/raw, old/tools.py:5)",
            {"run": "function", "parse": "function"},
        ),
        (
            "parse() (my dir/a.py:50) calls parse() (b.py:3), lone()",
            {"parse": "function", "lone": "function"},
        ),
        ("Limit (my\u2028dir/m.py:12) inherits from Base", {"Limit": "class", "Base": "class"}),
        ("A inherits from B (c.py:1)D", {"A": "class", "B": "class"}),  # no "BD"
    ],
)
def test_line_shapes(line: str, expected: dict[str, str]) -> None:
    assert parsed(line) == expected


def test_the_comment_of_a_line_names_nothing() -> None:
    names = parsed("def f(x)  # L3 — Calls Helper.run() and REQ-1, inherits from Base")
    assert names == {"f": "function"}
    assert parsed("PATTERN = ...  # L19 — An id such as ``REQ-008-013``.") == {
        "PATTERN": "attribute"
    }


def test_the_readme_example_parses_as_documented() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The graph-context format", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.DOTALL)
    assert block is not None
    assert set(parsed(block.group(1))) == {
        "Circle",
        "__init__",
        "radius",
        "area",
        "typed_circle",
        "PI",
        "REQ-008-013",
        "Shape",
        "label",
        "format_area",
        "DEC-7",
    }


def test_a_context_saved_in_the_older_format_still_validates() -> None:
    text = OLD_FORMAT.read_text(encoding="utf-8")
    names = parsed(text)
    assert {"Circle", "Shape", "Kreis", "größe", "format_area", "test_label"} <= set(names)
    assert {"REQ-001-002", "ADR-0001"} <= set(names)
    # The member list of a class line names no entity of its own: `größe` is an entity
    # because `Kreis.größe()` and the calls line name it.
    assert "test_circle_area" in names and names["Circle"] == "class"
    context = {
        "entities": [
            {"name": "Circle", "tier": "core"},
            {"name": "area", "tier": "core"},
            {"name": "REQ-001-002", "tier": "core"},
            *({"name": name, "tier": "supporting"} for name in names),
        ]
    }
    answer = (
        "Circle.area overrides Shape.area and returns a non-negative value (REQ-001-002).\n\n"
        "## Entities used\n- Circle\n- area\n- Shape\n- REQ-001-002\n"
    )
    assert GraphContextValidator().validate(answer, context).passed
    assert GraphContextValidator().validate(answer, text).passed is False  # text: all core


def test_requirements_under_their_heading_parse_as_before_and_belong_to_no_file() -> None:
    """Requirements come under `## Requirements` (without it, one read as code of the
    file heading above); a context saved with them right after the files parses the
    same."""
    requirement = "REQ-001 quantities never go negative\n"
    new = f"# inv/items.py\nclass Item  # L1-9\n## Requirements\n{requirement}"
    old = f"# inv/items.py\nclass Item  # L1-9\n{requirement}"
    for text in (new, old):
        parsed = {entity.name: entity for entity in parse_context_entities(text)}
        assert parsed["REQ-001"].kind == "requirement" and parsed["REQ-001"].places == ()
        assert parsed["Item"].places[0].path == "inv/items.py"
