"""What an entity carries: signature, docstring and summary, decorators, attributes, spans."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from citeloop.knowledge import Entity, EntityKind, RelationKind, SqliteGraphStore, index_tree
from citeloop.knowledge.indexing.signatures import SourceText, decorator_written
from citeloop.knowledge.model import MAX_DOCSTRING_CHARS, MAX_SUMMARY_CHARS, first_sentence

MODULE = '''
"""Shapes and their registry.

More text.
"""
import dataclasses
import functools
from typing import ClassVar, overload

DEFAULT_SIDES = 4
"""How many sides a shape has by default."""
_registry: dict[str, "Shape"] = {}
__all__ = ["Shape"]


@dataclasses.dataclass(frozen=True)
class Shape:
    """A shape. It has sides, e.g. four."""

    name: str
    sides: int = DEFAULT_SIDES
    kinds: ClassVar[tuple[str, ...]] = ("polygon",)

    def __init__(self, name: str, sides: int = 4) -> None:
        self.name = name
        self.scale: float = 1.0

    @functools.cache
    def area(self, unit: str = "cm", /, *, exact: bool = False, **options: int) -> float:
        """Return the area.

        Args:
            unit: The unit.
        """
        return 0.0

    @classmethod
    def square(cls, *sides: int) -> "Shape":
        return cls("square")

    @staticmethod
    def parse(text):
        return text

    @overload
    def scaled(self, factor: int) -> int: ...
    @overload
    def scaled(self, factor: float) -> float: ...
    def scaled(self, factor):
        return factor


WIDTH, HEIGHT = 640, DEFAULT_SIDES * 2
LOW, *REST = 1, 2, 3


async def fetch(url: str) -> bytes:
    return b""


class Loader:
    async def load(self) -> None:
        async for _ in self.rows():
            pass

    async def rows(self):
        yield 1
'''


@pytest.fixture
def store(tmp_path: Path) -> SqliteGraphStore:
    root = tmp_path / "tree"
    (root / "geo").mkdir(parents=True)
    (root / "geo" / "__init__.py").write_text("")
    (root / "geo" / "shapes.py").write_text(textwrap.dedent(MODULE).lstrip("\n"))
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(root, graph)
        yield graph


def entity(store: SqliteGraphStore, entity_id: str) -> Entity:
    found = store.get_entity(entity_id)
    assert found is not None, entity_id
    return found


def test_function_signature_keeps_annotations_defaults_markers_and_return(
    store: SqliteGraphStore,
) -> None:
    area = entity(store, "geo.shapes.Shape.area")
    assert area.signature == (
        '(self, unit: str = "cm", /, *, exact: bool = False, **options: int) -> float'
    )
    assert entity(store, "geo.shapes.Shape.square").signature == ('(cls, *sides: int) -> "Shape"')
    assert entity(store, "geo.shapes.Shape.parse").signature == "(text)"


def test_docstrings_and_summaries(store: SqliteGraphStore) -> None:
    module = entity(store, "geo.shapes")
    assert module.docstring == "Shapes and their registry.\n\nMore text."
    assert module.summary == "Shapes and their registry."
    shape = entity(store, "geo.shapes.Shape")
    assert shape.summary == "A shape."
    area = entity(store, "geo.shapes.Shape.area")
    assert area.docstring.startswith("Return the area.\n\nArgs:\n    unit: The unit.")
    assert area.summary == "Return the area."


def test_decorators_by_name(store: SqliteGraphStore) -> None:
    # with their arguments when short: `frozen=True` says the class is immutable (a
    # judge found a frozen dataclass shown as a plain one, and the answer missed it)
    assert entity(store, "geo.shapes.Shape").decorators == ("dataclasses.dataclass(frozen=True)",)
    assert entity(store, "geo.shapes.Shape.area").decorators == ("functools.cache",)
    assert entity(store, "geo.shapes.Shape.square").decorators == ("classmethod",)
    assert entity(store, "geo.shapes.Shape.parse").decorators == ("staticmethod",)


def test_coroutine_functions_are_asynchronous(store: SqliteGraphStore) -> None:
    """A judge found `Channel.get()` shown as a plain method where the code has `async
    def get`: whether it is awaited is part of what a function is."""
    assert entity(store, "geo.shapes.fetch").asynchronous
    assert entity(store, "geo.shapes.Loader.load").asynchronous
    assert entity(store, "geo.shapes.Loader.rows").asynchronous  # an async generator's
    assert not entity(store, "geo.shapes.Shape.area").asynchronous
    assert not entity(store, "geo.shapes.Loader").asynchronous


def test_overloads_keep_the_implementation(store: SqliteGraphStore) -> None:
    scaled = entity(store, "geo.shapes.Shape.scaled")
    assert scaled.signature == "(self, factor)" and scaled.decorators == ()
    defines = store.facts_of("geo.shapes.Shape.scaled", [RelationKind.DEFINES])
    assert [fact.provenance.start_line for fact in defines] == [scaled.line]


@pytest.mark.parametrize(
    ("entity_id", "signature"),
    [
        ("geo.shapes.DEFAULT_SIDES", " = 4"),
        ("geo.shapes._registry", ': dict[str, "Shape"] = {}'),
        ("geo.shapes.Shape.name", ": str"),
        ("geo.shapes.Shape.sides", ": int = DEFAULT_SIDES"),
        ("geo.shapes.Shape.kinds", ': ClassVar[tuple[str, ...]] = ("polygon",)'),
        ("geo.shapes.Shape.scale", ": float = 1.0"),
        # Unpacked from a tuple of as many values, each name has its own; starred, none.
        ("geo.shapes.WIDTH", " = 640"),
        ("geo.shapes.HEIGHT", " = DEFAULT_SIDES * 2"),
        ("geo.shapes.LOW", ""),
    ],
)
def test_attributes_are_entities(store: SqliteGraphStore, entity_id: str, signature: str) -> None:
    attribute = entity(store, entity_id)
    assert attribute.kind is EntityKind.ATTRIBUTE and attribute.signature == signature
    owner = entity_id.rpartition(".")[0]
    defines = {f.object for f in store.facts_of(owner, [RelationKind.DEFINES])}
    assert entity_id in defines


def test_attribute_docstring_and_dunders(store: SqliteGraphStore) -> None:
    assert entity(store, "geo.shapes.DEFAULT_SIDES").docstring == (
        "How many sides a shape has by default."
    )
    assert store.get_entity("geo.shapes.__all__") is None


def test_a_class_dunder_is_an_attribute_a_module_dunder_is_not(tmp_path: Path) -> None:
    """`__slots__` and `__hash__ = None` say what a class's instances can do (a played
    pylint question about slots had never seen one); a module's `__all__` and
    `__version__` are bookkeeping."""
    root = tmp_path / "tree"
    root.mkdir()
    code = (
        '__all__ = ["Point"]\n__version__ = "1.0"\n\n\n'
        'class Point:\n    __slots__ = ("x", "y")\n    __hash__ = None\n'
        '    __doc__ = "A point."\n    __module__ = "geo"\n    ____ = 1\n'
    )
    (root / "geo.py").write_text(code, encoding="utf-8")
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(root, graph)
        slots = entity(graph, "geo.Point.__slots__")
        assert slots.kind is EntityKind.ATTRIBUTE and slots.signature == ' = ("x", "y")'
        assert entity(graph, "geo.Point.__hash__").signature == " = None"
        assert graph.get_entity("geo.__all__") is None
        assert graph.get_entity("geo.__version__") is None
        # What Python sets on every class, and a bare run of underscores, say nothing.
        for name in ("__doc__", "__module__", "____"):
            assert graph.get_entity(f"geo.Point.{name}") is None


def test_provenance_spans(store: SqliteGraphStore) -> None:
    shape = entity(store, "geo.shapes.Shape")
    assert (shape.path, shape.line) == ("geo/shapes.py", 15)  # its decorator
    assert shape.end_line == 49
    area = entity(store, "geo.shapes.Shape.area")
    assert (area.line, area.end_line) == (27, 34)  # from its decorator
    (defines,) = [f for f in store.facts_of(area.id, [RelationKind.DEFINES]) if f.object == area.id]
    assert (defines.provenance.start_line, defines.provenance.end_line) == (27, 34)  # decorator


def test_instance_attribute_from_init_is_defined_once(store: SqliteGraphStore) -> None:
    # `name` is a dataclass field and set in __init__: one entity, at the field.
    name = entity(store, "geo.shapes.Shape.name")
    assert name.line == 19


def test_long_docstrings_are_bounded() -> None:
    from citeloop.knowledge.indexing.signatures import bounded_docstring

    text = bounded_docstring("line\n" * (MAX_DOCSTRING_CHARS))
    assert len(text) <= MAX_DOCSTRING_CHARS and text.endswith("…")


@pytest.mark.parametrize(
    ("docstring", "summary"),
    [
        ("", ""),
        ("One line", "One line"),
        ("First. Second.", "First."),
        ("Uses e.g. this. Then.", "Uses e.g. this."),
        ("Wrapped\nover two lines.\n\nBody.", "Wrapped over two lines."),
        ("Version 1.0 is out! Yes.", "Version 1.0 is out!"),
        ("word " * 100, ("word " * 100)[: MAX_SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "…"),
        # A section heading opens no summary (a played prompt's summary of matplotlib's
        # Fonts.get_metrics read "Parameters ---------- font : str One of…").
        ("Parameters\n----------\nfont : str\n    One of the names.", ""),
        ("\n    Returns\n    -------\n    int\n", ""),
        ("Get metrics\nParameters\n----------\nfont : str", "Get metrics"),
        ("Args:\n    x: The value.", ""),
        ("Add two.\nReturns:\n    The sum.", "Add two."),
        ("A title\n=======\nBody.", "A title"),
        ("Warning: slow. Use fast().", "Warning: slow."),
        # pylint's BaseChecker.open had read "Called before visiting project (i.e."
        (
            "Called before visiting project (i.e. set of modules).",
            "Called before visiting project (i.e. set of modules).",
        ),
        ('Quoted "e.g. this" too. Then.', 'Quoted "e.g. this" too.'),
        ("Use `i.e. this` form. Next", "Use `i.e. this` form."),
        ("Emphasis *e.g. this* works. Next", "Emphasis *e.g. this* works."),
        # Rules above the text, overlines, and other underline characters (a tester's)
        ("----------\nParameters\n----------\nx : int", ""),
        ("==========\nTitle\n==========\n\nBody text.", "Title"),
        ("-------\nSummary text. More.", "Summary text."),
        ("Raises\n~~~~~~\nValueError", ""),
        ("Returns: the sum of x and y", "Returns: the sum of x and y"),
    ],
)
def test_first_sentence(docstring: str, summary: str) -> None:
    assert first_sentence(docstring) == summary


def test_syntax_newer_than_this_python_is_indexed(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "boxes.py").write_text(
        "type Pair[K] = tuple[K, K]\n\n\n"
        "class Box[T: int = int](Base):\n"
        "    def get[U](self, default: U) -> T | U:\n"
        '        return f"{self.labels["main"]}"\n\n\n'
        "def unbox(box: Box[int]) -> int:\n"
        "    return box.get(0)\n"
    )
    (root / "broken.py").write_text("class Box[T]:\n    pass\n\nx = = 1\n")
    with SqliteGraphStore(tmp_path / "graph.db") as store:
        report = index_tree(root, store)
        assert report.lowered == ("boxes.py",)
        assert [(s.path, s.reason) for s in report.skipped] == [
            ("broken.py", "syntax error at line 4: invalid syntax")
        ]
        box = entity(store, "boxes.Box")
        assert box.signature == "[T: int = int](Base)" and box.line == 4
        get = entity(store, "boxes.Box.get")
        assert get.signature == "[U](self, default: U) -> T | U"
        assert entity(store, "boxes.Pair").signature == "[K] = tuple[K, K]"
        calls = store.facts_of("boxes.unbox", [RelationKind.CALLS])
        assert [fact.object for fact in calls] == ["boxes.Box.get"]


@pytest.mark.parametrize(
    ("decorator", "written"),
    [
        ("@dataclasses.dataclass(frozen=True)", "dataclasses.dataclass(frozen=True)"),
        ("@register(Tags.security, deploy=True)", "register(Tags.security, deploy=True)"),
        ("@dataclass(**_DC_KWARGS)", "dataclass(**_DC_KWARGS)"),
        ("@functools.cache", "functools.cache"),
        ("@app.route()", "app.route"),
        (
            '@pytest.mark.parametrize("a,b", [(1, 2), (3, 4), (5, 6), (7, 8)])',
            "pytest.mark.parametrize",
        ),
        ("@lru_cache(\n    maxsize=None,\n)", "lru_cache(maxsize=None)"),
    ],
)
def test_a_decorator_is_written_with_its_short_arguments(decorator: str, written: str) -> None:
    """Short arguments say what the decorator makes of the code (``frozen=True``); long
    ones (a ``parametrize`` table) are left out, and a call without any reads as a name."""
    source = f"{decorator}\ndef f():\n    pass\n"
    node = ast.parse(source).body[0]
    assert decorator_written(node.decorator_list[0], SourceText(source)) == written
