"""A body that says nothing its entity line does not (a docstring, ``pass``, ``...``,
``raise NotImplementedError``) gives its excerpt's place to the next, unless named."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from citeloop.knowledge import Entity, EntityKind
from citeloop.knowledge.body_lines import BodyLines
from citeloop.knowledge.excerpts import choose_excerpts
from citeloop.text import estimated_tokens


class Files:
    """A line source over in-memory files."""

    def __init__(self, files: dict[str, tuple[str, ...]]) -> None:
        self.files = files

    def lines(self, paths: Collection[str]) -> dict[str, tuple[str, ...]]:
        return {path: self.files[path] for path in paths if path in self.files}


def _method(name: str, first: int, last: int) -> Entity:
    return Entity(f"m.Tag.{name}", EntityKind.METHOD, name, "m.py", first, "(self)", end_line=last)


@pytest.mark.parametrize(
    ("body", "stub"),
    [
        (['    def f(self):', '        """Say what it does."""'], True),
        (["    def f(self):", "        pass"], True),
        (["    def f(self):", "        ...  # abstract"], True),
        (["    def f(self):", '        """Doc."""', "", "        raise NotImplementedError"], True),
        (
            ["    def f(self):", "        raise NotImplementedError(", '  "why"', "        )"],
            True,
        ),
        (["    def f(self,", "          value):", "        # overridden", "        pass"], True),
        (["    def f(self):", "        return NotImplemented"], False),
        (["    def f(self):", "        raise NotImplementedError", "        return 1"], False),
        (["    def f(self):", "        if x:", "            raise NotImplementedError"], False),
        (["    def f(self): return 1", ""], False),
        (["    def f(self):", "        return self.value"], False),
    ],
)  # fmt: skip
def test_what_says_nothing_more_than_its_entity_line(body: list[str], stub: bool) -> None:
    entity = _method("f", 1, len(body) if body[-1] else 1)
    assert BodyLines(entity, tuple(body), {}).says_nothing_more() is stub


def test_a_class_head_always_says_more() -> None:
    entity = Entity("m.Tag", EntityKind.CLASS, "Tag", "m.py", 1, end_line=3)
    lines = ("class Tag:", '    """A tag."""', "    pass")
    assert not BodyLines(entity, lines, {}).says_nothing_more()


SOURCE = (
    "class Tag:",  # 1
    "    def check(self, value):",  # 2
    '        """Check the value."""',  # 3
    "        raise NotImplementedError",  # 4
    "    def to_json(self, value):",  # 5
    "        return str(value.__html__())",  # 6
    "    def to_python(self, value):",  # 7
    "        return Markup(value)",  # 8
)
ENTITIES = {
    "m.Tag.check": _method("check", 2, 4),
    "m.Tag.to_json": _method("to_json", 5, 6),
    "m.Tag.to_python": _method("to_python", 7, 8),
}


def test_a_stub_gives_its_place_to_the_next_body() -> None:
    """With room for two excerpts, the abstract ``check`` ranked first shows none, and
    the two bodies after it show theirs."""
    chosen = choose_excerpts(
        list(ENTITIES), ENTITIES, Files({"m.py": SOURCE}), 200, estimated_tokens, most=2
    )
    assert list(chosen.blocks) == ["m.Tag.to_json", "m.Tag.to_python"]


def test_a_named_stub_still_shows() -> None:
    """A stub the task names (or an answer asked for) shows its lines: the question may
    be why it raises."""
    chosen = choose_excerpts(
        list(ENTITIES),
        ENTITIES,
        Files({"m.py": SOURCE}),
        200,
        estimated_tokens,
        named=["m.Tag.check"],
        most=2,
    )
    assert list(chosen.blocks) == ["m.Tag.check", "m.Tag.to_json"]
    assert "raise NotImplementedError" in chosen.blocks["m.Tag.check"][-1]
