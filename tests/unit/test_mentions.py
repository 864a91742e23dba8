"""What a task names as code (mentions) and the words lexical retrieval looks up."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.grounding.mentions import (
    MAX_MENTIONS,
    answer_mentions,
    code_mentions,
    identifier_words,
    is_code_shaped,
    qualified,
    query_words,
)


def mentioned(text: str) -> dict[str, str]:
    return {mention.name: mention.form for mention in code_mentions(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Does `read` block?", {"read": "backticks"}),
        ("Use ``run`` here", {"run": "backticks"}),
        ("How is StateGraph built?", {"StateGraph": "camel"}),
        ("What does JSONProvider do?", {"JSONProvider": "camel"}),
        ("Why StateGraph.compile?", {"StateGraph.compile": "dotted"}),
        ("What does compile() return?", {"compile": "call"}),
        ("Where is add_node defined?", {"add_node": "underscore"}),
        ("Is _private used? MAX_SIZE?", {"_private": "underscore", "MAX_SIZE": "underscore"}),
        # a fitted attribute, a name kept off a keyword: no word ends with "_"
        ("Are deviations_ and class_ set?", {"deviations_": "underscore", "class_": "underscore"}),
        (
            "See REQ-008-013 and ADR-0003 and DEC-7",
            {"REQ-008-013": "id", "ADR-0003": "id", "DEC-7": "id"},
        ),
        (
            "How does the Checkout flow use Cart?",
            {"Checkout": "capitalized", "Cart": "capitalized"},
        ),
        # a capitalized word that starts the sentence makes no title of the next
        (
            "The Checkout flow uses Cart, Ledger and Till",
            {"Checkout": "capitalized"}
            | {name: "capitalized" for name in ("Cart", "Ledger", "Till")},
        ),
    ],
)
def test_code_shapes_are_mentions(text: str, expected: dict[str, str]) -> None:
    assert mentioned(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "How do I run a command?",
        "Why does it read stale values where it should not?",
        "Can I decode, fit, build it, and when?",
        "Pregel runs it.",  # a capitalized word that starts a sentence
        "What does the API return?",  # an acronym
        "Equal ASTs hash the same; the URLs and IDs stay",  # acronyms' plurals
        "Open state.py and config.toml",  # file names
        "e.g. this, i.e. that",  # abbreviations
        "It runs. Then it stops",
        "- Run it\n# Heading words",
        "see read.go and where.rs, then open Run.png",  # file names of other languages
        "I read.Then I left",  # a missing space
        "1) Run the job again",  # list items, brackets, bullets, quotes, ellipses
        "(see above) Run it",
        "\u2705 Run it",
        "wait\u2026 Run it",
        "\u201cRun\u201d it",
        "\u3002Run it",
        # a run of capitalized words: a title, a quoted summary, a proper name (a played
        # answer's "Test Docstring First Line Empty" had named four classes)
        'only its summary "Test Docstring First Line Empty" is given',
        "it moved to New York",
        "as in the Python Software Foundation docs",
    ],
)
def test_plain_words_are_not_mentions(text: str) -> None:
    assert mentioned(text) == {}


def test_a_fenced_block_mentions_every_name_but_not_its_language() -> None:
    text = "Look:\n```python\nvalue = compute(item)\n```\nthen"
    assert mentioned(text) == {"value": "backticks", "compute": "backticks", "item": "backticks"}


def test_invisible_characters_do_not_split_a_name() -> None:
    assert mentioned("Use Stat\u200bGraph and read\u00ad_node") == {
        "StatGraph": "camel",
        "read_node": "underscore",
    }


def test_an_id_written_with_a_non_breaking_hyphen_is_the_id() -> None:
    """`REQ\u2011002` shows as `REQ-002`: a task written so names the requirement."""
    assert mentioned("What does REQ\u2011002 require of `DEC\u20107`?") == {
        "REQ-002": "id",
        "DEC-7": "backticks",
    }


def test_an_unclosed_backtick_is_text() -> None:
    assert mentioned("a ` lone tick and read") == {}
    assert mentioned("``a` b`` c`") == {"a": "backticks", "b": "backticks"}


@pytest.mark.parametrize("gap", ["\n\n", "\n- ", "\n  2. ", "\n## "])
def test_a_backtick_pairs_only_in_its_block(gap: str) -> None:
    """A quote's lone backtick (```nan'``) is text: a paragraph, a list item or a
    heading ends the code span it could open, so the words between the code spans of
    the next block stay prose (a played answer was failed for the verb of "`fit` uses
    `kneighbors`"). A fence holds its blank lines."""
    text = f"to avoid `nan' when it is 0.{gap}`fit` uses `kneighbors`."
    assert mentioned(text) == {"fit": "backticks", "kneighbors": "backticks"}
    assert mentioned("```python\nvalue = 1\n\ncompute(value)\n```") == {
        "value": "backticks",
        "compute": "backticks",
    }


def test_a_path_in_backticks_names_no_code() -> None:
    """A file's path names the file: its folders are no names (a played answer's
    `` `astropy/io/votable/tree.py` `` had made `io` and `votable` code it lacked)."""
    text = "See `check_ucd` in `astropy/io/votable/tree.py` and `./tools/run.sh`."
    assert mentioned(text) == {"check_ucd": "backticks"}
    spaced = {"a.b": "backticks", "a": "backticks", "b": "backticks"}
    assert mentioned("Is `a.b` or `a / b` code?") == spaced


def test_a_path_in_prose_names_no_code() -> None:
    """A path an answer writes outside backticks names a file too (a played answer's
    "in src/_pytest/pathlib.py:1038" had made `_pytest` code it lacked, and the widening
    brought a test fixture so named); two names a slash separates are still names."""
    text = "Like `absolutepath` in src/_pytest/pathlib.py:1038 (see ./tools/run_x, _py/)."
    assert mentioned(text) == {"absolutepath": "backticks"}
    assert [m.name for m in answer_mentions(text)] == ["absolutepath"]
    pair = "The add_node/add_edge pair and read_file/write_file."
    assert list(mentioned(pair)) == ["add_node", "add_edge", "read_file", "write_file"]
    assert [m.name for m in answer_mentions(pair)] == list(mentioned(pair))


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("tests/test_app.py::TestSession::test_cookie fails", ["TestSession", "test_cookie"]),
        ("src/flask/app.py:Flask.run starts", ["Flask.run"]),
        ("Why does pd.read_csv('data/train.csv') drop it?", ["pd.read_csv"]),
        ("See [StateGraph.compile](langgraph/graph/state.py).", ["StateGraph.compile"]),
        ("MEDIA_ROOT=/var/www/media/ is set", ["MEDIA_ROOT"]),
        ("Cart.total(shop/cart.py:12) and np.divide/np.mod", ["Cart.total", "np.divide", "np.mod"]),
        ("src/_pytest/pathlib.py's import_path and src\\_pytest\\x.py", ["import_path"]),
        (
            "It is sum(losses)/batch_size, or counts[k]/total_weight.",
            ["batch_size", "total_weight"],
        ),
        ("See github.com/org/my_repo/blob/main/my_pkg/core.py or /etc/my_conf.", []),
        ("Escaped, \\MyClass stays a name.", ["MyClass"]),
    ],
)
def test_only_the_path_of_a_word_that_holds_one_names_no_code(text, names) -> None:
    """What a word writes before or after a path (a test's node id, `file:function`, a
    call around a data file's path, a link's text) is code; the path itself is not."""
    assert list(mentioned(text)) == names
    assert [m.name for m in answer_mentions(text)] == names


def test_a_statement_of_upper_case_keywords_in_backticks_names_no_code() -> None:
    """`` `CREATE TABLE` `` is SQL, not the names ``CREATE`` and ``TABLE`` (a played
    answer that lacked the `CREATE TABLE` statement had brought a constant ``TABLE``);
    one upper-case word alone may be a constant's name."""
    assert mentioned("The `CREATE TABLE` statement and a `GROUP BY` clause.") == {}
    assert mentioned("Then `CREATE TABLE users (id int)` and `SELECT id FROM t`.") == {}
    # upper-case names an expression multiplies are code
    assert list(mentioned("It is `MAX * 2` or `TIMEOUT * RETRIES`.")) == [
        "MAX",
        "TIMEOUT",
        "RETRIES",
    ]
    assert mentioned("The `TABLE` level and `MAX_SIZE`.") == {
        "TABLE": "backticks",
        "MAX_SIZE": "backticks",
    }


def test_a_hyphenated_word_in_backticks_names_no_code() -> None:
    """`` `assignment-from-no-return` `` is a checker's message, not the names
    ``assignment`` and ``no`` (a played answer's lacking list had asked for them); two
    names a minus joins may be a subtraction, and an id stays one."""
    assert mentioned("Where is `assignment-from-no-return` emitted?") == {}
    assert list(mentioned("It computes `end-start`, `n_rows - offset`, `total-1`.")) == [
        "end",
        "start",
        "n_rows",
        "offset",
        "total",
    ]
    assert list(mentioned("See `REQ-auth-login`.")) == ["REQ-auth-login"]


def test_mentions_keep_their_order_and_are_bounded() -> None:
    text = " ".join(f"name_{i}" for i in range(MAX_MENTIONS + 50))
    names = [mention.name for mention in code_mentions(text)]
    assert names == [f"name_{i}" for i in range(MAX_MENTIONS)]


@pytest.mark.parametrize(
    "text",
    ["`" * 50_000, "`a" * 50_000, "``a`" * 20_000, "a." * 100_000 + "b", "REQ-" + "1-" * 50_000],
)
def test_scanning_stays_linear(text: str) -> None:
    started = time.perf_counter()
    code_mentions(text)
    query_words(text)
    assert time.perf_counter() - started < 5  # quadratic work would take minutes


def _answer_seconds(text: str) -> float:
    started = time.perf_counter()
    answer_mentions(text)
    return time.perf_counter() - started


@pytest.mark.parametrize(
    "unit",
    ["1.", "a.1.", "x1.y2.", "_.", "a.(", "Ab.1", "a()" + "." * 3, "a_b.1."],
)
def test_an_answer_of_dotted_runs_is_scanned_in_linear_time(unit: str) -> None:
    # 4x the text must take about 4x the time; scanning a dotted run again from each
    # of its words would take 16x (a 20 KB answer of `1.` took 18 s, 40 KB 70 s).
    size = 10_000 // len(unit)
    short, long = _answer_seconds(unit * size), _answer_seconds(unit * 4 * size)
    assert long < 10 * short + 0.5


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("DefaultJSONProvider", ["default", "json", "provider"]),
        ("add_node", ["add", "node"]),
        ("HTTPServer2", ["http", "server", "2"]),
        ("pkg.mod.Class", ["pkg", "mod", "class"]),
        ("größe_von", ["größe", "von"]),
        ("ÄrgerÜber", ["ärger", "über"]),
        ("parse2HTML", ["parse", "2", "html"]),
        ("REQ-001-002", ["req", "001", "002"]),
    ],
)
def test_identifier_words(name: str, words: list[str]) -> None:
    assert list(identifier_words(name)) == words


def test_query_words_split_identifiers_and_drop_stop_words() -> None:
    words = query_words("How does the DefaultJSONProvider serialize a date_time in 2024?")
    assert words == ["default", "json", "provider", "serialize", "date", "time"]
    many = " ".join(f"{a}{b}q" for a in "abcdefghij" for b in "abcdefghij")
    assert query_words(many, limit=10) == [f"a{b}q" for b in "abcdefghij"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # "function" names astropy's FunctionUnit here; "class" is the framing noun.
        ("the function unit class for logarithms", ["function", "unit", "logarithms"]),
        ("class attribute, file output", ["class", "attribute", "file", "output"]),
        # Framing: followed by a stop word, punctuation or nothing.
        ("the test function that parses", ["test", "parses"]),
        ("which method, unit or class?", ["unit"]),
        ("the function's unit", ["unit"]),
        # Only written alone: a name's word is no modifier.
        ("load_class unit", ["load", "unit"]),
    ],
)
def test_a_stop_word_that_modifies_the_next_word_is_kept(text: str, words: list[str]) -> None:
    assert query_words(text) == words


def test_is_code_shaped() -> None:
    assert is_code_shaped("add_node") and is_code_shaped("StateGraph")
    assert not is_code_shaped("path") and not is_code_shaped("Pregel")


@given(st.text(alphabet="abcxyz ,;:!?'\"-0123456789\t\nABé_.()[]{}/", max_size=60))
@settings(max_examples=500, deadline=None)
def test_a_segment_ruled_out_as_lower_case_prose_holds_no_code_shaped_token(segment):
    """The string-method shortcut skips the regex only where it could match nothing."""
    from citeloop.grounding.mentions import _SHAPED_TOKEN, _plain_lower_case

    if _plain_lower_case(segment):
        assert _SHAPED_TOKEN.findall(segment) == []


@pytest.mark.parametrize(
    "name",
    [
        *("CPython", "GitHub", "PostgreSQL", "macOS", "JavaScript", "CMake", "MSBuild"),
        *("OAuth", "OAuth2", "IPv6", "iPhone", "x86_64", "gRPC"),
        # a played answer on sphinx was failed for "So reST problems ... are silenced"
        *("reST", "reStructuredText", "BibTeX", "MathJax", "MyST"),
    ],
)
def test_a_product_s_name_written_bare_is_prose_and_in_backticks_code(name: str) -> None:
    # A played answer had been rejected for writing "CPython" in its prose.
    assert [m.name for m in code_mentions(f"Why is StateGraph slow on {name}?")] == ["StateGraph"]
    assert [m.name for m in answer_mentions(f"On {name}, StateGraph is slow.")] == ["StateGraph"]
    assert [m.name for m in code_mentions(f"Why is `{name}` used here?")] == [name]
    assert [m.name for m in answer_mentions(f"It calls `{name}` here.")] == [name]
    # A CamelCase name that is no product is still code.
    assert [m.name for m in answer_mentions(f"{name}Client runs.")] == [f"{name}Client"]


@pytest.mark.parametrize(
    "prose",
    [
        "See https://docs.python.org/3/library/sqlite3.html for details.",
        "See <https://github.com/org/my_repo/blob/main/README.md>.",
        "Read [the docs](https://example.org/user_guide/index.html) first.",
        "Ask ops_team@example.com, or open www.my_site.com/a_b.",
        "The guide at docs.python.org and the one at my_lib.readthedocs.io agree.",
        "Mirror: ftp://files.example.net/pub/some_file.tar.gz, or git://host/my_repo.git",
    ],
)
def test_web_and_e_mail_addresses_name_no_code(prose: str) -> None:
    # A correct answer had failed for naming `docs.python.org` and `ops_team` in a link.
    assert [m.name for m in answer_mentions(f"`Cart.total` sums. {prose}")] == ["Cart.total"]
    assert [m.name for m in code_mentions(f"How does `Cart.total` sum? {prose}")] == ["Cart.total"]


def test_a_dotted_name_ending_like_a_host_of_code_is_still_code() -> None:
    # `io`, `net` are attributes and modules of code; only generic top-level domains
    # and documentation hosts are hosts.
    text = "It reads self.net and astropy.io.fits, and calls obj.com_port()."
    expected = ["self.net", "astropy.io.fits", "obj.com_port"]
    assert [m.name for m in answer_mentions(text)] == expected


def test_a_bare_name_of_a_class_of_the_context_stays_bare() -> None:
    """`JavascriptKeyboardEvent` beside `EventNamespace.JavascriptKeyboardEvent` (an
    attribute that holds the class) is the class when the context holds one of that name
    that no class owns; a method's name (`pop`) still means the dotted one."""
    names = ["JavascriptKeyboardEvent", "EventNamespace.JavascriptKeyboardEvent", "pop", "Ctx.pop"]
    assert qualified(names) == ("EventNamespace.JavascriptKeyboardEvent", "Ctx.pop")
    kept = qualified(names, standalone={"JavascriptKeyboardEvent"})
    assert kept == ("JavascriptKeyboardEvent", "EventNamespace.JavascriptKeyboardEvent", "Ctx.pop")


def test_standalone_names_are_the_context_s_classes_and_functions_no_class_owns() -> None:
    from citeloop.grounding.entities import standalone_names

    entities = [
        {"id": "e.Keys", "kind": "class", "name": "Keys"},
        {"id": "e.Ns", "kind": "class", "name": "Ns"},
        {"id": "e.Ns.Keys", "kind": "attribute", "name": "Keys"},
        {"id": "e.Ctx.pop", "kind": "method", "name": "pop"},
        {"id": "e.helper", "kind": "function", "name": "helper"},
        {"id": "e.LIMIT", "kind": "attribute", "name": "LIMIT"},
    ]
    assert standalone_names(entities) == {"Keys", "Ns", "helper"}
