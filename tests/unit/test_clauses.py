"""A definition under a clause of its module's or class's body says which: the indexer
records it (``Entity.under``) and the entity line shows it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from citeloop.grounding.context_text import Place, parse_context_entities
from citeloop.knowledge import ContextInjector, SqliteGraphStore, index_tree
from citeloop.knowledge.indexing.clauses import MAX_CLAUSE_CHARS
from citeloop.knowledge.render import entity_line

SPELLING = """\
import sys
try:
    import enchant
    from enchant.tokenize import Filter, get_tokenizer

    AVAILABLE = True
except ImportError:  # pragma: no cover
    AVAILABLE = False

    class Filter:
        def _skip(self, word: str) -> bool:
            raise NotImplementedError

    @staticmethod
    def get_tokenizer(filters=None):
        return Filter()
else:
    VERSION = enchant.__version__
finally:
    LOADED = True


class RegExFilter(Filter):
    def _skip(self, word):
        return True

    if sys.version_info >= (3, 11):
        def newer(self):
            pass
    elif sys.version_info >= (3, 10):
        def middle(self):
            pass
    else:
        def older(self):
            pass


match sys.platform:
    case "win32":
        SEP = "\\\\"
    case _:
        SEP = "/"

for _name in ("a", "b"):
    def made():
        def inner():
            pass

if sys.platform == {"win": 1}.get("x", "y"):  # a comment
    WIDE = 1

if __name__ == "__main__":
    MAIN = 1
else:
    IMPORTED = 1
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SqliteGraphStore:
    root = tmp_path_factory.mktemp("tree")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "spelling.py").write_text(SPELLING, encoding="utf-8")
    db = tmp_path_factory.mktemp("db") / "graph.db"
    with SqliteGraphStore(db) as writer:
        index_tree(root, writer)
    graph = SqliteGraphStore(db, read_only=True)
    yield graph
    graph.close()


def under(store: SqliteGraphStore, name: str) -> str:
    entity = store.get_entity(f"pkg.spelling.{name}")
    assert entity is not None, name
    return entity.under


@pytest.mark.parametrize(
    ("name", "clause"),
    [
        # The played case: pylint's stand-in `Filter` when pyenchant is missing.
        ("Filter", "except ImportError (L7)"),
        ("get_tokenizer", "except ImportError (L7)"),  # its decorator's line counts
        ("AVAILABLE", "try (L2)"),  # the first of its two assignments
        ("VERSION", "else of try (L17)"),
        ("LOADED", "finally (L19)"),
        ("RegExFilter.newer", "if sys.version_info >= (3, 11) (L27)"),
        ("RegExFilter.middle", "elif sys.version_info >= (3, 10) (L30)"),
        ("RegExFilter.older", "else of elif sys.version_info >= (3, 10) (L33)"),
        ("SEP", 'case "win32" (L39)'),
        ("made", 'for _name in ("a", "b") (L44)'),
        ("WIDE", 'if sys.platform == {"win": 1}.get("x", "y") (L49)'),
        ("IMPORTED", ""),  # a main guard's `else:` is the module's import
        # A class's own body, a function's inside and top level are under nothing.
        ("Filter._skip", ""),
        ("made.inner", ""),
        ("RegExFilter", ""),
        ("RegExFilter._skip", ""),
    ],
)
def test_a_definition_knows_the_clause_it_is_under(store, name, clause) -> None:
    assert under(store, name) == clause


def test_the_line_says_the_clause(store) -> None:
    """The entity line names the clause after the place, and a context that holds it
    still reads back: the place is the line's first ``# L`` mark."""
    line = entity_line(store.get_entity("pkg.spelling.Filter"), None)
    assert line == "class Filter  # L10-12 under except ImportError (L7)"
    line = entity_line(store.get_entity("pkg.spelling.AVAILABLE"), None)
    assert line == "AVAILABLE = True  # L6 set 2 times, under try (L2)"
    context = ContextInjector(store).inject("How does `RegExFilter` use `Filter`?")
    assert "class Filter  # L10-12 under except ImportError (L7)" in context.text
    parsed = {entity.name: entity for entity in parse_context_entities(context.text)}
    assert parsed["Filter"].places == (Place("pkg/spelling.py", 10, 12),)
    assert parsed["get_tokenizer"].places == (Place("pkg/spelling.py", 14, 16),)


def test_a_long_clause_header_is_cut(tmp_path: Path) -> None:
    condition = " and ".join(f"flag_{i}" for i in range(30))
    root = tmp_path / "tree"
    root.mkdir()
    (root / "long.py").write_text(
        textwrap.dedent(f"""\
        if {condition}:
            LIMIT = 1
        """),
        encoding="utf-8",
    )
    with SqliteGraphStore(tmp_path / "graph.db") as store:
        index_tree(root, store)
        clause = store.get_entity("long.LIMIT").under
    assert clause.endswith("… (L1)") and len(clause) <= MAX_CLAUSE_CHARS + len(" (L1)")


ODD = """\
from typing import TYPE_CHECKING
try:
    from typing import Protocol
except ImportError:
    class Protocol: pass
try:
    import numpy
except (
    ImportError,
    ModuleNotFoundError,
):  # no numpy
    class Array:
        pass
if a and \\
        b:
    JOINED = 1
if x == {"a": 1}: DICT = 1
if line.startswith("  #"):# a comment
    HASH = 1
match cmd:
    case (
        "multi"
    ):
        MULTI = 1
if a:
    pass
else:
    @register(
        elsewhere=True,
    )
    def registered():
        pass
if TYPE_CHECKING:
    registry: dict
registry = {}
"""


@pytest.mark.parametrize(
    ("name", "clause"),
    [
        ("Protocol", "except ImportError (L4)"),  # a class on one line
        ("Array", "except ( ImportError, ModuleNotFoundError, ) (L8)"),  # over lines
        ("JOINED", "if a and b (L14)"),  # a continued line
        ("DICT", 'if x == {"a": 1} (L17)'),  # `: ` inside the header
        ("HASH", 'if line.startswith("  #") (L18)'),  # `  #` in a string, then a comment
        ("MULTI", 'case "multi" (L21)'),  # the `case` line, not the pattern's
        ("registered", "else of if a (L27)"),  # not the decorator's `elsewhere=`
        # A declaration under `if TYPE_CHECKING:` of a name the module sets anyway.
        ("registry", ""),
    ],
)
def test_a_header_is_read_from_the_syntax_tree(tmp_path: Path, name: str, clause: str) -> None:
    """A tester's cases: the header as the source writes each expression, on one line,
    with the line of its keyword."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "odd.py").write_text(ODD, encoding="utf-8")
    with SqliteGraphStore(tmp_path / "graph.db") as store:
        index_tree(root, store)
        assert store.get_entity(f"odd.{name}").under == clause


def test_a_header_s_backtick_is_closed_on_the_line() -> None:
    """A header that writes a lone backtick would pair with the next one a model
    writes (a tester's case: `if sys.argv[-1] == "`":`)."""
    from citeloop.knowledge import Entity, EntityKind

    entity = Entity(
        "m.TICK", EntityKind.ATTRIBUTE, "TICK", "m.py", 16, " = 1", under='if a == "`" (L15)'
    )
    assert entity_line(entity, None) == 'TICK = 1  # L16 under if a == "`"` (L15)'
