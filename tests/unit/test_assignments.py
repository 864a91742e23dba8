"""Where an instance attribute is set (knowledge/assignments.py), and a widening that
shows those lines of an attribute the answer said the context lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloop.knowledge import ContextExpansion, ContextInjector, SqliteGraphStore, index_tree
from citeloop.knowledge.assignments import _assignment, assignment_sites
from citeloop.knowledge.source import SourceReader
from citeloop.knowledge.store import batched

RESPONSE = '''\
class Response:
    """An HTTP response."""

    _content: bytes | None

    def __init__(self) -> None:
        self.status = 200
        self.headers = {}
        self.elapsed = 0  # the time the request took
        # a comment
        self._content = None
        self.reason = ""

    @property
    def content(self) -> bytes:
        """The body, read once."""
        if self._content is None:
            self._content = b"".join(self.iter_content())
        return self._content

    def iter_content(self):
        """Yield the body."""
        if self._content == b"":
            return
        yield b"x"

    def close(self):
        self._content: bytes | None = None
        self.status += 1

    def restart(self):
        self.status = 0
        if self.headers:
            self.status = 1
        self.hooks: dict[
            str, list
        ] = {}

    @classmethod
    def empty(cls):
        cls._content = b""
        return cls()


LIMIT = 3


def reset(response):
    response._content = None
'''


@pytest.fixture
def graph(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "http.py").write_text(RESPONSE, encoding="utf-8")
    with SqliteGraphStore(tmp_path / "graph.db") as store:
        index_tree(root, store)
        yield root, store


def sites(store: SqliteGraphStore, root: Path, *ids: str, most: int = 3) -> list:
    entities = [store.get_entity(entity_id) for entity_id in ids]
    return assignment_sites(batched(store), entities, SourceReader(root, store.file_digests), most)


def line_of(text: str) -> int:
    return RESPONSE.splitlines().index(text) + 1


def test_an_attribute_is_set_first_in_init_then_in_its_class_s_methods_in_order(graph) -> None:
    root, store = graph
    found = sites(store, root, "http.Response._content", most=5)
    assert found == [
        (
            "http.Response.__init__",
            line_of("        self._content = None"),
            line_of("        self._content = None"),
        ),
        (
            "http.Response.content",
            line_of('            self._content = b"".join(self.iter_content())'),
            line_of('            self._content = b"".join(self.iter_content())'),
        ),
        (
            "http.Response.close",
            line_of("        self._content: bytes | None = None"),
            line_of("        self._content: bytes | None = None"),
        ),
        (
            "http.Response.empty",
            line_of('        cls._content = b""'),
            line_of('        cls._content = b""'),
        ),
    ]
    # A comparison (`==`, `is None`) sets nothing: iter_content is no site.
    assert "http.Response.iter_content" not in {site[0] for site in found}


def test_at_most_the_first_sites_and_an_augmented_assignment_counts(graph) -> None:
    root, store = graph
    assert [site[0] for site in sites(store, root, "http.Response._content")] == [
        "http.Response.__init__",
        "http.Response.content",
        "http.Response.close",
    ]
    assert sites(store, root, "http.Response._content", most=0) == []
    status = sites(store, root, "http.Response.status", most=4)
    # Breadth first: each method's first statement, then restart's second.
    assert [site[1] for site in status] == [
        line_of("        self.status = 200"),
        line_of("        self.status += 1"),
        line_of("        self.status = 0"),
        line_of("            self.status = 1"),
    ]
    assert [site[0] for site in status][1:3] == ["http.Response.close", "http.Response.restart"]


def test_an_annotation_that_runs_on_to_later_lines_is_a_site(graph) -> None:
    root, store = graph
    (site,) = sites(store, root, "http.Response.hooks")
    assert site == ("http.Response.restart",) + (line_of("        self.hooks: dict["),) * 2


@pytest.mark.parametrize(
    ("line", "sets"),
    [
        ("        self.x = 1", True),
        ("        cls.x += 1", True),
        ("        self.x: int = 3", True),
        ("        self.x: dict[", True),
        ("        if self.x:", False),
        ("        return {self.x: 1}", False),
        ("        self.x == 2", False),
        ("        self.xy = 3", False),
        ("        self.x.y = 2", False),
    ],
)
def test_which_statements_set_an_attribute(line: str, sets: bool) -> None:
    assert bool(_assignment("x").search(line)) is sets


def test_a_long_line_of_many_near_misses_is_scanned_in_linear_time() -> None:
    # Each place a match may start reads a bounded span: an unbounded annotation would
    # read the rest of the line from each of 30,000 places (about 10**9 steps).
    line = "a" + " self.x: b" * 30_000
    assert _assignment("x").search(line) is None


def test_what_is_no_attribute_of_a_class_has_no_sites(graph) -> None:
    root, store = graph
    # A module attribute, a method and a function: only a class's attributes are set
    # by its methods (`reset` sets `_content` of a response it is given, not its own).
    assert sites(store, root, "http.LIMIT", "http.Response.close", "http.reset") == []


def test_a_file_edited_since_indexing_gives_no_sites(graph) -> None:
    root, store = graph
    (root / "http.py").write_text("# moved\n" + RESPONSE, encoding="utf-8")
    assert sites(store, root, "http.Response._content") == []


def test_a_widening_shows_where_an_attribute_the_answer_lacks_is_set(graph) -> None:
    """The attribute's line is its class-level annotation; the widened context shows
    the statement of ``__init__`` that sets it, though the task's words choose other
    lines of ``__init__`` (a played widening had shown the ``elapsed`` comment)."""
    _, store = graph
    task = "How does `Response` track the elapsed time and the status?"
    injector = ContextInjector(store, max_context_tokens=300)
    setting = f"    {line_of('        self._content = None'):>2} |         self._content = None"
    default = injector.inject(task)
    assert setting not in default.text.splitlines()
    lacking = ("Response._content",)
    wider = injector.inject(
        task, expansion=ContextExpansion.for_attempt(0, lacking, lacking), default=default
    )
    assert setting in wider.text.splitlines()
    # Named only, not said to be lacking, the attribute brings no lines of its setters.
    named = injector.inject(
        task, expansion=ContextExpansion.for_attempt(0, lacking), default=default
    )
    assert setting not in named.text.splitlines()
