"""A class a function passes, raises or catches as a value (``vo_warn(W39)``,
``isinstance(x, Bit)``, ``raise ParseError``, ``except ParseError:``) becomes a
``references`` fact to that class, resolved as a callee is, and re-linked when the class
appears; and the code that issues a warning comes into the context of a question about
the warning."""

from __future__ import annotations

import textwrap
from pathlib import Path

from citeloop.knowledge import ContextInjector, SqliteGraphStore, index_tree
from tests.unit.test_string_references import _index as _references
from tests.unit.test_string_references import _write

VOTABLE = {
    "vo/__init__.py": "",
    "vo/exceptions.py": """
        class W39(Warning):
            '''Bit values can not be masked.'''


        class ParseError(Exception):
            pass


        def vo_warn(warning, *args, config=None):
            pass
        """,
    "vo/converters.py": """
        from vo import exceptions
        from vo.exceptions import W39, vo_warn


        class Bit:
            def output(self, value, mask):
                if mask:
                    vo_warn(W39)
                return str(value)

            def parse(self, text, config):
                try:
                    return int(text)
                except (ValueError, exceptions.ParseError):
                    raise exceptions.ParseError
                finally:
                    vo_warn(warning=W39, config=config)

            def check(self, value):
                label = lambda W39: W39
                return isinstance(value, Bit), label, vo_warn(value), vo_warn(self.Missing)
        """,
}


def test_a_class_passed_raised_or_caught_as_a_value_is_referenced(tmp_path: Path) -> None:
    _write(tmp_path / "src", VOTABLE)
    found = _references(tmp_path / "src", tmp_path / "graph.db")
    assert found == {
        ("vo.converters.Bit.output", "vo.exceptions.W39"),
        ("vo.converters.Bit.parse", "vo.exceptions.ParseError"),  # caught and raised: once
        ("vo.converters.Bit.parse", "vo.exceptions.W39"),  # a keyword argument
        ("vo.converters.Bit.check", "vo.converters.Bit"),
    }  # not the lambda's parameter, a lower-case value, a name no class of the tree has


def test_a_class_that_appears_is_linked_to_the_code_that_named_it(tmp_path: Path) -> None:
    files = dict(VOTABLE)
    files["vo/exceptions.py"] = "def vo_warn(warning):\n    pass\n"
    files["vo/converters.py"] = """
        from vo.exceptions import *


        def output(mask):
            vo_warn(W39)
        """
    _write(tmp_path / "src", files)
    db = tmp_path / "graph.db"
    assert _references(tmp_path / "src", db) == set()
    _write(tmp_path / "src", {"vo/exceptions.py": VOTABLE["vo/exceptions.py"]})
    assert _references(tmp_path / "src", db) == {("vo.converters.output", "vo.exceptions.W39")}


def test_the_code_that_issues_a_warning_ranks_first_in_the_context_of_a_question_about_it(
    tmp_path: Path,
) -> None:
    # `Bit.check` calls `vo_warn` too, and forty functions beside `W39` issue another
    # warning through it: only the reference to `W39` tells `Bit.output` apart.
    files = dict(VOTABLE)
    files["vo/exceptions.py"] = textwrap.dedent(files["vo/exceptions.py"])
    files["vo/exceptions.py"] += "\n\nclass W40(Warning):\n    pass\n" + "".join(
        f"\n\ndef emit_{number}():\n    vo_warn(W40)\n" for number in range(40)
    )
    _write(tmp_path / "src", files)
    with SqliteGraphStore(tmp_path / "graph.db") as store:
        index_tree(tmp_path / "src", store)
        injector = ContextInjector(store, max_context_tokens=400)
        context = injector.inject("Where is the `W39` warning issued?")
    ids = [entity.id for entity in context.entities]
    assert ids.index("vo.converters.Bit.output") < ids.index("vo.converters.Bit.check")
    before = ids[: ids.index("vo.converters.Bit.output")]
    assert not any(".emit_" in entity_id for entity_id in before)
