"""Checks on the substance of an answer: grounded code names, citation locations, and an
answer that says its context is not enough."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.grounding import (
    GraphContextValidator,
    GraphValidationResult,
    lacking_passages,
    sayings,
)
from citeloop.grounding.context_text import Place
from citeloop.grounding.lacking import (
    LACKING_WORDS,
    lacking_callers,
    lacking_files,
    lacking_lines,
    lacking_members,
    lacking_names,
    lacking_words,
    listed_lacking_names,
)
from citeloop.grounding.lacking_passages import insufficient_passages
from citeloop.grounding.mentions import (
    MAX_MENTIONS,
    answer_code,
    answer_mentions,
    defined_in_code,
)
from citeloop.grounding.sayings import says_context_insufficient
from citeloop.grounding.substance import (
    CALLED,
    location_valid,
    named_stdlib,
    prompt_names,
    prompt_words,
    same_file,
    ungrounded_names,
)
from citeloop.text import MAX_LISTED_NAME_CHARS
from tests.linear import scans_linearly

CONTEXT = """\
# graph/state.py
class StateGraph(Graph)  # L112-400 — A graph whose nodes share a state.
StateGraph.add_node(node: str, action=None) -> Self  # L150-190 — Add a node.
StateGraph.compile(checkpointer: Checkpointer = None) -> CompiledStateGraph  # L300-380
# pregel/main.py
class Pregel  # L20-900 — Runs the graph.
Pregel.invoke(input, config: RunnableConfig | None = None)  # L500-560
StateGraph.compile() calls Pregel
"""
ENTITIES = [
    {"name": "StateGraph", "tier": "core", "path": "graph/state.py", "line": 112, "end_line": 400},
    {"name": "add_node", "tier": "supporting", "path": "graph/state.py", "line": 150,
     "end_line": 190},
    {"name": "compile", "tier": "core", "path": "graph/state.py", "line": 300, "end_line": 380},
    {"name": "Pregel", "tier": "supporting", "path": "pregel/main.py", "line": 20, "end_line": 900},
    {"name": "invoke", "tier": "supporting", "path": "pregel/main.py", "line": 500,
     "end_line": 560},
]  # fmt: skip
GRAPH = {"StateGraph", "add_node", "compile", "Pregel", "invoke", "BaseChannel", "Send"}
TASK = "How does StateGraph.compile build the graph?"
SECTION = "\n\n## Entities used\n- StateGraph\n- compile\n"


def validate(answer: str, **settings: object) -> GraphValidationResult:
    return GraphContextValidator(**settings).validate(  # type: ignore[arg-type]
        answer, ENTITIES, prompt=[TASK, CONTEXT], graph_names=GRAPH
    )


# --- mentions of an answer ----------------------------------------------------------


def test_answer_mentions_skip_fences_prose_capitals_and_commands() -> None:
    text = (
        'The Graph runs `pip install x`, `"agent"`, `--verbose` and `read`.\n'
        "```python\nmy_local = helper_fn()\n```\nThen `graph.invoke({1: 2})` and StateGraph."
    )
    assert [m.name for m in answer_mentions(text)] == ["read", "graph.invoke", "StateGraph"]


def test_defined_in_code_reads_defs_classes_and_targets_not_imports() -> None:
    text = (
        "```python\nfrom x import Invented\nclass State(TypedDict):\n    jokes: list\n"
        "async def write_joke(p):\n    total = 1\n```"
    )
    # `p`: a plain parameter name of the example's own.
    assert defined_in_code(text) == {"State", "jokes", "write_joke", "total", "p"}


def test_the_parameters_an_answer_declares_are_its_own_a_keyword_it_passes_is_not() -> None:
    """A refactoring the answer proposes (a played answer on pylint was rejected for the
    `strict` it proposed as `*, strict: bool = False`); passing `strict=True` to code of
    the code base still claims that code takes it."""
    body = (
        "Add `*, strict: bool = False` to `StateGraph.compile`; callers that pass nothing "
        "keep today's behaviour, and `strict` turns the checks on."
    )
    assert "strict" in defined_in_code(body)
    assert validate(body + SECTION).invented_names == ()
    fenced = (
        "```python\ndef compile_checked(graph,\n        limit: int = 3, *, strict=False):\n"
        "    ...\n```\nWith `strict` and `limit` set, StateGraph.compile is stricter."
    )
    assert {"graph", "limit", "strict"} <= defined_in_code(fenced)
    claimed = "StateGraph.compile takes `strict`: call `StateGraph.compile(strict=True)`."
    assert "strict" not in defined_in_code(claimed)
    assert "strict" in validate(claimed + SECTION).invented_names
    # A type the annotation names is no parameter, nor is a slice's index.
    typed = "`def handle(req: Union[Request, FakeSession], n: Tuple[str, Loader] = x)`"
    assert {"req", "n"} <= defined_in_code(typed)
    assert not {"FakeSession", "Loader"} & defined_in_code(typed)
    assert "offset" not in defined_in_code("`arr[i, offset:] = values`")


def test_answer_code_is_every_mention_and_the_names_the_code_defines() -> None:
    # One reading of the code spans for both; a zero-width space inside a name is
    # dropped in both, as a reader sees the name.
    mentions = " ".join(f"`name_{index}`" for index in range(250))
    text = f'{mentions}\n```python\nState\u200bGraph = build(h1)\n```\nThen `run_agent("agent")`.'
    found, own = answer_code(text)
    assert [m.name for m in found] == [m.name for m in answer_mentions(text, most=None)]
    assert len(found) == 251  # past the 200 of answer_mentions' default
    assert own == defined_in_code(text) == {"StateGraph", "h1", "agent"}


# --- grounded names -------------------------------------------------------------------


def test_invented_names_fail_and_graph_names_do_not() -> None:
    body = (
        "StateGraph.compile wraps it in a GraphExecutor and calls "
        "`CompiledStateGraph.run_async`; channels are `BaseChannel` objects."
    )
    result = validate(body + SECTION)
    assert result.invented_names == ("GraphExecutor", "CompiledStateGraph.run_async")
    assert result.ungrounded_in_graph == ("BaseChannel",)
    assert result.failed_rules == ("invented_names",)
    assert "GraphExecutor" in result.reasons[0]


STILL_MISSING = (
    "StateGraph.compile builds the graph.\n\n## Still missing\n"
    "- The input component's `on_change` trigger and `EventSpec`.\n"
)
"""An answer whose list of what it lacks names code the graph does not have."""


def test_a_name_written_only_where_the_answer_says_what_it_lacks_is_asked_not_invented() -> None:
    """A played answer listed the `on_change` trigger it needed, of a dependency the
    graph does not hold, under "## Still missing": its retry had been told to remove it,
    and its last attempt failed although every claim it made was right."""
    body = STILL_MISSING
    result = validate(body + SECTION)
    assert result.invented_names == ()
    assert result.lacking_not_in_graph == ("on_change", "EventSpec")
    assert "invented_names" not in result.failed_rules
    prompt = GraphContextValidator.build_retry_prompt(TASK, result)
    assert "not in the code base's knowledge graph either" in prompt
    assert "on_change, EventSpec" in prompt
    # The same name claimed in the answer's prose is still invented.
    claimed = validate("StateGraph.compile calls `on_change`.\n\n" + body[36:] + SECTION)
    assert claimed.invented_names == ("on_change",)
    assert claimed.lacking_not_in_graph == ("EventSpec",)
    # A claim beside a saying, or in prose under the heading, is still a claim.
    beside = validate(
        "StateGraph.compile builds it. The context does not show `add_node`'s body, but "
        "`GraphExecutor.run_async` clearly runs every node." + SECTION
    )
    assert beside.invented_names == ("GraphExecutor.run_async",)
    under = validate(body + "\nSo `GraphExecutor` runs them.\n" + SECTION)
    assert under.invented_names == ("GraphExecutor",)
    # Without a graph to search, a name the context lacks is what the answer asks for.
    context_only = GraphContextValidator().validate(
        body + SECTION, ENTITIES, prompt=[TASK, CONTEXT]
    )
    assert (context_only.invented_names, context_only.lacking_not_in_graph) == ((), ())


def test_a_lacking_name_imported_from_outside_the_graph_is_said_to_be_so() -> None:
    body = STILL_MISSING
    result = validate(body + SECTION)
    assert result.lacking_not_in_graph == ("on_change", "EventSpec")
    origins = {"EventSpec": "reflex_base.event.EventSpec"}
    for widened in (False, True):
        prompt = GraphContextValidator.build_retry_prompt(
            TASK, result, widened=widened, origins=origins
        )
        lines = prompt.splitlines()
        imported = [line for line in lines if "imports from outside" in line]
        assert imported == [
            line for line in lines if line.endswith(": EventSpec is reflex_base.event.EventSpec")
        ]
        assert len(imported) == 1
        # The rest is still said to be no code of the graph's, without the import.
        (outside,) = [line for line in lines if "graph either" in line]
        assert outside.endswith(": on_change")
    # Every name imported: no line says any is not in the graph.
    every = {"on_change": "reflex_base.components.on_change", **origins}
    prompt = GraphContextValidator.build_retry_prompt(TASK, result, origins=every)
    assert "graph either" not in prompt and "on_change is reflex_base" in prompt


def test_a_long_imported_pair_is_cut_name_by_name_not_mid_name() -> None:
    """Each side of ``name is target`` is cut on its own: a pair cut as one had ended
    the line mid-name (``...templates.memo_compo…``)."""
    result = validate(STILL_MISSING + SECTION)
    target = "reflex_base.compiler." + "templates." * 8 + "memo_components_template"
    prompt = GraphContextValidator.build_retry_prompt(TASK, result, origins={"EventSpec": target})
    (line,) = [line for line in prompt.splitlines() if "imports from outside" in line]
    assert line.endswith(f": EventSpec is {target[: MAX_LISTED_NAME_CHARS - 1]}…")
    short = {"templates.page_template": "reflex_base.compiler.templates.page_template"}
    prompt = GraphContextValidator.build_retry_prompt(TASK, result, origins=short)
    assert "templates.page_template is reflex_base.compiler.templates.page_template" in prompt


def test_a_long_invalid_location_keeps_its_lines_whole() -> None:
    """A location longer than a listed name is shown as its name and path with its lines
    whole: cut as one item, a location written after a description had been cut before
    its lines, which the model is asked to correct."""
    item = (
        "`StateGraph.compile` \u2014 builds the compiled graph from its nodes, edges and "
        "channels (graph/state.py:1234-1300)"
    )
    answer = "`StateGraph.compile` builds the graph.\n\n## Entities used\n- StateGraph\n"
    result = validate(f"{answer}- {item}\n")
    assert result.failed_rules == ("locations",) and result.invalid_locations == (item,)
    prompt = GraphContextValidator.build_retry_prompt(TASK, result)
    (line,) = [line for line in prompt.splitlines() if "not inside the cited entity" in line]
    assert line.endswith(": `StateGraph.compile` (graph/state.py:1234-1300)")
    short = "`StateGraph.compile` (graph/state.py:12)"
    result = validate(f"{answer}- {short}\n")
    assert GraphContextValidator.build_retry_prompt(TASK, result).count(f": {short}\n") == 1


def test_a_product_s_name_in_prose_is_no_invented_name() -> None:
    # A played answer was rejected for "CPython" (and its retry spent) in a sentence on
    # why repeated parsing costs time.
    body = "On CPython, and on PyPy alike, StateGraph.compile parses the URL each time."
    assert validate(body + SECTION).invented_names == ()
    assert validate("StateGraph.compile calls `CPython`." + SECTION).invented_names == ("CPython",)


def test_a_standard_library_name_written_alone_beside_its_module_is_no_invented_name() -> None:
    """A played answer was failed for "`base64.b64encode` never inserts newlines, unlike
    the legacy `encodebytes`": a public name of a standard-library module the answer
    writes dotted, or that its prompt imports, is Python's; alone it is still a claim."""
    body = "`base64.b64encode` never wraps lines, unlike the legacy `encodebytes`."
    assert ungrounded_names(body, set(), set()).invented == ()
    alone = "`b64encode` never wraps lines, unlike the legacy `encodebytes`."
    assert ungrounded_names(alone, set(), set()).invented == ("b64encode", "encodebytes")
    imported = ["from base64 import b64encode\n"]
    assert ungrounded_names(alone, set(), set(), prompt=imported).invented == ()
    # a name no module of those has is still invented; a module whose import acts is
    # never read for its names
    assert ungrounded_names(body + " It calls `wrap_lines`.", set(), set()).invented == (
        "wrap_lines",
    )
    for unit in (" ", "\t1 | ", "from base64 ", "import"):  # scanned in linear time
        assert scans_linearly(lambda text: named_stdlib((), [text]), unit, 50_000), unit
    mentions = answer_code("`ast.py`, `antigravity.fly`, `base64.b64decode`")[0]
    assert named_stdlib(mentions, ["import antigravity\n  3 | from ast import parse"]) == {
        "base64",
        "ast",
        "antigravity",
    }
    # ... which a module whose import acts is read from its source for, never imported
    acting = "`antigravity.geohash` hashes it; `geohash` takes a date."
    assert ungrounded_names(acting, set(), set()).invented == ()
    assert "antigravity" not in sys.modules
    # none of these names the module: a file `calc/ast.py`, prose, another object's
    # method (an attacker's cases)
    for claim in (
        "`calc/ast.py` defines `Constant`.",
        "It is built from numbers: `Real` checks it.",
        "From time to time it calls `monotonic`.",
        "It calls `base64.b64encode`, then `self.encodebytes()`.",
    ):
        assert ungrounded_names(claim, set(), set()).invented, claim


def test_a_name_of_a_standard_library_submodule_the_answer_writes_dotted_is_pythons() -> None:
    """A played answer about cookie parsing was failed for `DefaultCookiePolicy`,
    `request_host` and `ParseResult`, names of ``http.cookiejar`` and ``urllib.parse``:
    written beside their module dotted, or after the prompt's import of it, they are
    Python's; alone they are still claims."""
    body = (
        "`urllib.parse.urlparse` builds a `ParseResult`, and "
        "`http.cookiejar.DefaultCookiePolicy` calls `request_host` per cookie."
    )
    assert ungrounded_names(body, set(), set()).invented == ()
    alone = "It builds a `ParseResult`, and `DefaultCookiePolicy` calls `request_host`."
    assert ungrounded_names(alone, set(), set()).invented == (
        "ParseResult",
        "DefaultCookiePolicy",
        "request_host",
    )
    imported = ["  7 | from urllib.parse import urlparse\n", "import http.cookiejar\n"]
    assert ungrounded_names(alone, set(), set(), prompt=imported).invented == ()
    # Any standard-library module, not only those in common use, read from its source.
    robots = "`urllib.robotparser.RobotFileParser` reads it; `RequestRate` holds the rate."
    assert ungrounded_names(robots, set(), set()).invented == ()
    assert ungrounded_names("`RequestRate` holds the rate.", set(), set()).invented == (
        "RequestRate",
    )
    for unit in ("from a.b", ".c", "import x"):  # dotted modules scanned in linear time
        assert scans_linearly(lambda text: named_stdlib((), [text]), unit, 50_000), unit


def test_a_file_that_shadows_a_standard_library_module_is_never_imported(tmp_path) -> None:
    """An answer that names `statistics.fmean` makes the validator read the module's
    names: a `statistics.py` of the working folder (first on ``sys.path`` under
    ``python -c``) is not what it reads, and never runs."""
    (tmp_path / "statistics.py").write_text("open('ran', 'w').close()\n", encoding="utf-8")
    code = (
        "from citeloop.grounding.substance import ungrounded_names\n"
        "print(ungrounded_names('`statistics.mean` or `fmean`', set(), set()).invented)"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "ran").exists()
    assert out.stdout.strip() == "('fmean',)"  # the shadowing file gives no names


def test_a_version_segment_is_no_invented_name() -> None:
    # A played answer was rejected for "`1.0.post0` and `dev0` spellings (`post0`)".
    body = "StateGraph.compile parses versions such as `post0`, `dev0` and `rc1`."
    assert validate(body + SECTION).invented_names == ()
    # A name that only starts like one is still a claim about the code base.
    assert validate("StateGraph.compile calls `post_process`." + SECTION).invented_names == (
        "post_process",
    )


def test_a_formula_symbol_is_no_invented_name() -> None:
    # A played answer was rejected for "`S(x) = Σ_j c_j B_j(x)`, where `B_j` are the
    # basis functions ... output `j` has `c = e_j`": B_j and j were named as invented.
    body = (
        "StateGraph.compile builds `S(x) = Σ_j c_j B_j(x)`, where `B_j` are the basis "
        "functions: output `j` has `c = e_j`, and `x_0` is the first knot, `w_ij` a weight; "
        "the features are `cos_j` and `sin_j`."
    )
    assert validate(body + SECTION).invented_names == ()
    # Longer names with a subscript-like tail are still claims about the code base.
    body = "StateGraph.compile calls `fit_x` and `Basis_j`."
    assert validate(body + SECTION).invented_names == ("fit_x", "Basis_j")


@pytest.mark.parametrize(
    ("example", "claims", "claimed"),
    [
        # A played answer failed for "`Header.strip` ... removes `NAXISn` etc." (the code
        # removes "NAXIS" + str(idx + 1)): the FITS standard's notation for NAXIS1, ...;
        # an upper-case name ending otherwise is still a claim.
        (
            "removes `NAXISn`, `TFORMn` and `CRPIXj` keywords.",
            "reads `MAX_SIZE` and `NAXISes`.",
            ("MAX_SIZE", "NAXISes"),
        ),
        # An escaped byte: "`/` → `_2F`, `_` → `_5F`" (Django's admin `quote` maps each
        # byte to "_%02X"); more after the two digits is still a claim.
        (
            "maps `/` to `_2F`, `_` to `_5F`, `:` to `_3A`, `&` to `_26`.",
            "calls `_2FA` and `_a1b`.",
            ("_2FA", "_a1b"),
        ),
        # The operands of an example expression: "the operator that runs for `style_a |
        # style_b`"; a name called, or written alone, is still a claim.
        (
            "runs for `style_a | style_b` and `left == right`.",
            "calls `merge_styles(a) | b` and `merge_all`.",
            ("merge_styles", "merge_all"),
        ),
        # A nested parameter key: "`set_params(lr__C=10)` sets `lr__C`" (Django's
        # lookups, `name__startswith`, alike); a mangled private name, and a made-up
        # class, are still claims.
        (
            "accepts `lr__C` and `name__startswith` keys.",
            "reads `_Graph__nodes` and calls `SomeOtherEstimator`.",
            ("_Graph__nodes", "SomeOtherEstimator"),
        ),
    ],
    ids=["indexed-keyword", "escaped-byte", "operands", "nested-key"],
)
def test_a_shape_that_names_no_code_is_no_invented_name(example, claims, claimed) -> None:
    """Played answers were rejected for names of these shapes; each kept its look-alikes
    that do claim code."""
    assert validate(f"StateGraph.compile {example}" + SECTION).invented_names == ()
    assert validate(f"StateGraph.compile {claims}" + SECTION).invented_names == claimed


def test_a_name_pattern_claims_only_what_it_is_dotted_onto() -> None:
    # `Owner.prefix_*` names the family of an owner's members, as a reader means it: the
    # owner is a claim, the pattern is no invented name.
    body = "The `StateGraph.add_*` methods record it; `add_*` and `get_*_schema` too."
    assert [m.name for m in answer_mentions(body)] == ["StateGraph"]
    result = validate(body + SECTION)
    assert result.invented_names == () and result.passed
    invented = validate("The `GraphBuilder.add_*` methods record it." + SECTION)
    assert invented.invented_names == ("GraphBuilder",)


@pytest.mark.parametrize("mark", ["\u2026", "..."])
def test_a_name_an_ellipsis_follows_is_a_pattern_too(mark) -> None:
    # An answer wrote "The `parse_tag_…` naming implies a dispatch": a prefix, not a
    # name; the failed rule made it drop a correct observation.
    body = f"The `StateGraph.add_{mark}` methods and the add_{mark} family record it."
    assert [m.name for m in answer_mentions(body)] == ["StateGraph"]
    assert validate(body + SECTION).passed
    called = f"It calls `GraphBuilder.add()`{mark} then GraphBuilder.run(){mark}"
    assert [m.name for m in answer_mentions(called)] == ["GraphBuilder.add", "GraphBuilder.run"]
    # After a whole name, an ellipsis ends a sentence: the name is a claim.
    trailing = f"It then calls parse_everything_fast{mark} and `Loader.decode_all{mark}`"
    assert validate(trailing + SECTION).invented_names == (
        "parse_everything_fast",
        "Loader.decode_all",
    )


@pytest.mark.parametrize("placeholder", ["<type>", "{type}"])
def test_a_prefix_a_placeholder_follows_is_a_pattern(placeholder) -> None:
    # A played last answer wrote "`reprlib.Repr.repr1` dispatches to `repr_<type>`
    # methods" and was failed for inventing `repr_`; the run fell back to its weaker
    # earlier answer. A whole name before `<` is still a claim.
    body = f"It dispatches to the `StateGraph.add_{placeholder}` and `repr_{placeholder}` ones."
    assert [m.name for m in answer_mentions(body)] == ["StateGraph"]
    assert validate(body + SECTION).passed
    assert "max_size" in {m.name for m in answer_mentions("It checks `max_size<limit` first.")}


def test_a_prefix_the_word_prefix_follows_is_a_pattern() -> None:
    """A played answer wrote "its name has no `test_` prefix" in a list of what it
    lacks, and was told `test_` is not in the graph. A name that ends in `_` and that
    "prefix" follows names a family; `coef_` alone is still a name."""
    body = "Its name has no `test_` prefix, and test_ prefixes mark them; it sets `coef_`."
    assert [m.name for m in answer_mentions(body)] == ["coef_"]


def test_emphasis_is_no_pattern_and_a_patterns_tail_is_no_name() -> None:
    body = "It calls **parse_fast**, *YamlFastParser* and the get_*_schema helpers."
    assert [m.name for m in answer_mentions(body)] == ["parse_fast", "YamlFastParser"]
    assert validate(body + SECTION).invented_names == ("parse_fast", "YamlFastParser")


def test_an_acronyms_plural_in_prose_is_no_invented_name() -> None:
    result = validate("StateGraph.compile keeps equal ASTs equal, as URLs and IDs." + SECTION)
    assert result.invented_names == () and result.passed


def test_graph_names_alone_do_not_fail() -> None:
    result = validate("StateGraph.compile returns `Send` packets later." + SECTION)
    assert result.passed and result.ungrounded_in_graph == ("Send",)


def test_names_an_answer_writes_as_strings_in_its_code_are_its_own_values() -> None:
    # Node names of an example call: `c` waits for `a` and `b`; they are values.
    body = 'StateGraph.compile keeps `add_node("c", after=["a", "b"])`: `c` waits for `b`.'
    assert validate(body + SECTION).invented_names == ()
    # A name written only in backticks is still code the answer claims.
    assert validate(body + " `c_helper` runs." + SECTION).invented_names == ("c_helper",)


def test_prompt_python_and_own_example_names_are_grounded() -> None:
    body = (
        "StateGraph.compile takes a `Checkpointer` and returns `CompiledStateGraph`; it "
        "uses `json.dumps`, `os.path.join`, `ValueError`, `TypedDict`, `__init__` and "
        "`self._nodes.items()`. Define `my_node`:\n```python\ndef my_node(state):\n"
        "    return state\n```"
    )
    result = validate(body + SECTION)
    assert result.invented_names == () and result.passed


def test_a_dotted_name_is_judged_by_its_class_and_last_part() -> None:
    names = ungrounded_names("Use `FakeGraph.compile` and `StateGraph.explode`.", {"StateGraph"})
    assert names.invented == ("FakeGraph.compile", "StateGraph.explode")


def test_without_a_graph_every_ungrounded_name_is_invented() -> None:
    result = GraphContextValidator().validate("StateGraph uses `BaseChannel`." + SECTION, ENTITIES)
    assert result.invented_names == ("BaseChannel",) and not result.passed


def test_fail_on_invented_off_reports_without_failing() -> None:
    result = validate("StateGraph.compile uses a GraphExecutor." + SECTION, fail_on_invented=False)
    assert result.passed and result.invented_names == ("GraphExecutor",)


def test_a_graph_predicate_is_accepted() -> None:
    names = ungrounded_names("It uses `BaseChannel`.", set(), graph=lambda n: n == "BaseChannel")
    assert names.in_graph == ("BaseChannel",)


def test_a_one_letter_name_the_graph_has_is_not_held_against_the_answer() -> None:
    # A played answer wrote the mangling letter `d` (and `i`) of a C++ id; the graph had
    # a variable `d`, and the retry said the answer could not support what it said of
    # it. `X` is scikit-learn's data, whatever example defines a global `X`.
    graph = {"d", "X", "Xt", "BaseChannel"}.__contains__
    text = "The id of `float` is `d`, of `int` `i`; `X` and `Xt` go to `BaseChannel`."
    names = ungrounded_names(text, set(), graph=graph)
    assert names.in_graph == ("Xt", "BaseChannel") and names.invented == ()


def test_a_dotted_name_of_one_letter_parts_is_an_example_not_a_claim() -> None:
    # A played answer wrote "Plain attribute syntax (`g.x`) is strict" of flask's `g`;
    # it was rejected for inventing `g.x`. A class it writes is still claimed.
    text = "Plain attribute syntax (`g.x`) is strict, as `self.a` is; `Foo.x` is not."
    names = ungrounded_names(text, set(), graph={"g"}.__contains__)
    assert names.invented == ("Foo.x",)


def test_prompt_names_split_dotted_and_paths() -> None:
    names = prompt_names(["# graph/dialect_mysql.py", "StateGraph.compile()"])
    assert names == {"graph", "dialect_mysql", "py", "StateGraph", "compile"}
    assert prompt_words(names) == {
        "graph", "dialect_mysql", "dialect", "mysql", "py", "stategraph", "state", "compile"
    }  # fmt: skip


def test_a_compound_name_the_prompt_writes_in_another_case_or_in_a_path_is_not_invented() -> None:
    """ "MySQL", "BigQuery" are the dialects of files the context shows (``dialect_mysql.py``):
    the answer names what the prompt shows, it does not invent code. A one-word name must
    be written as the prompt writes it: ``add_node`` grounds no ``Node`` class."""
    context = CONTEXT + "# dialects/dialect_mysql.py\n# dialects/dialect_bigquery.py\n"
    body = (
        "StateGraph.compile serves the MySQL and BigQuery dialects, not a `MySqlEngine`; "
        "it wraps each node in a `Node`, and `mysql_cursor` and `Pregel.dialect` are no "
        "words of the prompt."
    )
    result = GraphContextValidator().validate(
        body + SECTION, ENTITIES, prompt=[TASK, context], graph_names=GRAPH
    )
    assert result.invented_names == ("MySqlEngine", "Node", "mysql_cursor", "Pregel.dialect")


def test_a_compound_name_that_is_a_word_of_a_name_the_prompt_writes_is_not_invented() -> None:
    """A played answer on sphinx's docstring styles wrote "**NumPy resolution**, in
    `NumpyDocstring._consume_field`" and was rejected for inventing `NumPy`: it is a
    word of `NumpyDocstring`, written in another case. A compound no name of the
    prompt has as a word is still invented."""
    context = CONTEXT + "class NumpyDocstring(GoogleDocstring)  # L1100-1400\n"
    body = "The NumPy style differs from the PyData one in StateGraph.compile."
    result = GraphContextValidator().validate(
        body + SECTION, ENTITIES, prompt=[TASK, context], graph_names=GRAPH
    )
    assert result.invented_names == ("PyData",)


def test_a_name_in_quotes_is_the_answer_s_own_not_a_claim() -> None:
    """The system prompt asks an answer to write a name of its own making in quotes; a
    played answer that proposed 'a helper (a name such as "_resolve_field_type")' was
    told it invented that name. A quoted name is no claim, in straight or curly quotes;
    the same name bare, or a quotation that holds more than the name, still is."""
    body = (
        'StateGraph.compile could call a helper (a name such as "_resolve_types"), '
        "\u201cBarCache\u201d or '_ids_of', not \"_make_ids at once\" nor FooCache."
    )
    result = GraphContextValidator().validate(
        body + SECTION, ENTITIES, prompt=[TASK, CONTEXT], graph_names=GRAPH
    )
    assert result.invented_names == ("_make_ids", "FooCache")


def test_the_first_or_last_words_of_a_name_the_prompt_writes_are_not_invented() -> None:
    """A played answer called `NamedBarrierValueAfterFinish` 'the "AfterFinish" variant'
    and was rejected for inventing `AfterFinish`. Words from the middle of a name are
    still invented."""
    context = CONTEXT + "class NamedBarrierValueAfterFinish  # L84-167\n"
    body = (
        "StateGraph.compile uses the `AfterFinish` variant of a `NamedBarrier` channel, "
        "not a `ValueAfter` or `BarrierValue` one."
    )
    result = GraphContextValidator().validate(
        body + SECTION, ENTITIES, prompt=[TASK, context], graph_names=GRAPH
    )
    assert result.invented_names == ("ValueAfter", "BarrierValue")


def test_a_library_the_code_imports_written_as_prose_writes_it_is_not_invented() -> None:
    """The graph has ``numpy`` (what the code imports from it): "NumPy" names that
    library. A compound name whose lower case the graph lacks is still invented, and so
    is one written in one word's case (``Numpy``), as the graph does not say which."""
    graph = {"numpy", "scipy", "fit"}
    names = ungrounded_names(
        "It clips in NumPy and SciPy, unlike `FooBar`, `Numpy` or `FitResult`.", {"fit"}, graph
    )
    assert names.invented == ("FooBar", "Numpy", "FitResult")
    assert ungrounded_names("It clips in NumPy.", set(), None).invented == ("NumPy",)


def test_prose_plurals_and_missing_values_are_not_invented() -> None:
    """A CamelCase or snake_case word of prose ending in ``s`` (or ``es``) is judged as its
    singular: "checks for NaNs" (a played answer was failed for it) names the
    not-a-number value, "two DataFrames" the class the graph has, and the plural of a
    name nothing has is still invented, as is a plural in backticks."""
    names = ungrounded_names(
        "It checks for NaNs and NaT, joins two DataFrames and two FooBars, not `NaNs`.",
        set(),
        {"DataFrame"},
    )
    assert names.invented == ("FooBars",) and names.in_graph == ("DataFrame",)
    grounded = ungrounded_names("It joins two DataFrames.", {"DataFrame"}, set())
    assert grounded.invented == () and grounded.in_graph == ()
    # An "es" plural (a played answer was failed for "including MultiIndexes" beside
    # `PandasMultiIndex`); one of a name nothing has is still invented.
    body = "It keeps MultiIndexes, finds two FooMatches and builds BarBoxes."
    names = ungrounded_names(body, set(), {"FooMatch"}, prompt=["PandasMultiIndex"])
    assert names.invented == ("BarBoxes",) and names.in_graph == ("FooMatch",)
    # A snake_case plural of prose (a played answer was failed for "Which cpp_infos
    # count" beside `for cpp_info in transitive_cpp_infos`); in backticks, or of a name
    # nothing has, it is still invented.
    prompt = ["for cpp_info in transitive_cpp_infos:"]
    body = "Which cpp_infos count, and which foo_bars?"
    names = ungrounded_names(body, set(), set(), prompt=prompt)
    assert names.invented == ("foo_bars",)
    assert ungrounded_names("It reads `cpp_infos`.", set(), set(), prompt=prompt).invented == (
        "cpp_infos",
    )


def test_another_library_s_api_the_code_calls_is_not_invented() -> None:
    """The code calls ``parser.add_argument(...)`` (argparse's): an answer naming
    `add_argument` describes that use. A name the code never calls is still invented,
    and a called name is grounded, not a graph entity to widen to."""
    graph = {"handle_options", CALLED + "add_argument", CALLED + "ArgumentParser"}
    body = (
        "`handle_options` builds an `ArgumentParser` and calls `parser.add_argument` "
        "and `add_flag`."
    )
    names = ungrounded_names(body, {"handle_options"}, graph)
    assert names.invented == ("add_flag",) and names.in_graph == ()
    assert ungrounded_names(body, {"handle_options"}, {"handle_options"}).invented == (
        "ArgumentParser",
        "parser.add_argument",
        "add_flag",
    )


def test_graph_names_hold_the_names_the_code_calls_of_other_libraries(tmp_path) -> None:
    from citeloop.knowledge import SqliteGraphStore, index_tree
    from citeloop.knowledge.store import batched
    from citeloop.nodes.graph_files import graph_names

    (tmp_path / "cli.py").write_text(
        "import argparse\n\ndef handle_options():\n"
        "    parser = argparse.ArgumentParser()\n    parser.add_argument('-x')\n"
    )
    with SqliteGraphStore(tmp_path / "g.db") as store:
        index_tree(tmp_path, store)
        names = graph_names(batched(store))
    assert {"handle_options", CALLED + "add_argument"} <= names
    assert "add_argument" not in names


def test_the_names_of_identifier_styles_are_no_invented_names() -> None:
    """An answer reads a JSON key as "the camelCase name of `drag_mask`": the name of a
    style, not of code; a camelCase name of code it made up still is one."""
    body = (
        "It reads the camelCase key (not the snake_case field `drag_mask`), in "
        "`PascalCase` classes and SCREAMING_SNAKE_CASE constants, unlike `dragMaskKey`."
    )
    assert ungrounded_names(body, {"drag_mask"}, set()).invented == ("dragMaskKey",)


def test_sql_key_words_and_http_methods_are_no_invented_names_but_constants_are() -> None:
    """`LIMIT`, `GET`: SQL and HTTP; `TIMEOUT`, `MAX_SIZE`, `self.LIMIT` are constants."""
    body = (
        "StateGraph.compile stops before `LIMIT` on `GET`, unlike `TIMEOUT`, `MAX_SIZE` "
        "and `self.LIMIT`."
    )
    assert validate(body + SECTION).invented_names == ("TIMEOUT", "MAX_SIZE", "self.LIMIT")
    names = ungrounded_names("It reads `RETRIES`.", set(), graph={"RETRIES"})
    assert names.in_graph == ("RETRIES",)


@pytest.mark.parametrize(
    "name",
    [
        "pyproject.toml",
        "CMakeLists.txt",
        "MANIFEST.in",
        "conan_toolchain.cmake",
        "tox.ini",
        "settings.yml",
        "README.md",
        "Makefile",
        "Dockerfile",
        "LICENSE",
    ],
)
def test_a_file_the_answer_names_is_no_invented_name(name) -> None:
    # A played answer said the context lacks `CMakeLists.txt`: an honest answer failed as
    # invented, and the retry asked it to drop what it rightly said it could not see.
    result = validate(f"StateGraph.compile builds it; the project reads `{name}` first." + SECTION)
    assert result.invented_names == () and result.passed


def test_a_known_class_or_method_dotted_onto_a_file_suffix_is_still_code() -> None:
    # `StateGraph.yaml` claims a member of a class; `Pregel.json` with `json` a graph
    # name is a claim the graph checks; `GraphExecutor` is no file name.
    body = "StateGraph.compile calls `StateGraph.yaml` and `GraphExecutor`."
    assert validate(body + SECTION).invented_names == ("StateGraph.yaml", "GraphExecutor")
    names = ungrounded_names("It calls `Pregel.json`.", {"Pregel"}, graph={"json"})
    assert names.in_graph == ("Pregel.json",) and names.invented == ()
    # A call, a receiver's attribute or a longer chain is code, whatever its suffix.
    calls = "It calls `parser.json()`, `Makefile()`, Cache.lock() and `self.LICENSE`, `a.b.env`."
    assert validate(calls + SECTION).invented_names == (
        "parser.json",
        "Makefile",
        "Cache.lock",
        "self.LICENSE",
        "a.b.env",
    )


def test_a_kind_of_file_and_an_examples_own_arguments_are_no_invented_names() -> None:
    # Played answers failed on `.ps1` (the kind of script a method writes) and on `h1`,
    # `h2`: the hooks of the answer's own example call.
    body = (
        "StateGraph.compile writes `.bat`/`.ps1` scripts. Suppose "
        '`StateGraph.add_node("a", [h1, h2], key=fn)` ran: `h1` and `h2` stay, `fn` too.'
    )
    assert validate(body + SECTION).invented_names == ()
    # A name the answer claims alone, or calls, is still checked.
    claimed = 'It calls `StateGraph.add_node("a", [h1])`, then `hx` and `.ps1_script`.'
    assert validate(claimed + SECTION).invented_names == ("hx", "ps1_script")


def test_a_long_chain_of_receivers_is_read_in_linear_time() -> None:
    def seconds(count: int) -> float:
        chain = "self." * count + "x_y"
        started = time.perf_counter()
        assert ungrounded_names(f"It reads `{chain}`.", set()).invented == (chain,)
        return time.perf_counter() - started

    # Quadratic before: 0.46 s for 80,000 receivers, 5.6 s for 320,000.
    assert seconds(320_000) < 10 * seconds(80_000) + 0.5


# --- locations ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "valid"),
    [
        ("compile (graph/state.py:310)", True),
        ("compile (graph/state.py:300-380)", True),
        ("compile (src/langgraph/graph/state.py:320)", True),  # a longer path, same file
        ("compile (graph/state.py:299)", False),  # before the span
        ("compile (graph/state.py:370-390)", False),  # past its end
        ("compile (pregel/main.py:310)", False),  # another file
        ("compile (state.py:310)", True),  # a suffix at a `/`
        ("compile (tate.py:310)", False),  # not at a `/`
    ],
)
def test_a_location_must_lie_inside_the_entity(item: str, valid: bool) -> None:
    result = validate(
        f"StateGraph.compile builds it.\n\n## Entities used\n- StateGraph\n- {item}\n"
    )
    assert result.passed is valid
    assert (result.cited_locations, result.invalid_locations) == (
        ((item,), ()) if valid else ((), (item,))
    )
    if not valid:
        assert result.failed_rules == ("locations",)


def test_a_bare_location_must_lie_inside_some_context_entity() -> None:
    good = validate("StateGraph.compile builds it." + SECTION + "- pregel/main.py:510-520\n")
    bad = validate("StateGraph.compile builds it." + SECTION + "- pregel/main.py:5\n")
    assert good.passed and not bad.passed


@pytest.mark.parametrize(
    "place", ["graph/state.py:0", "graph/state.py:-1", "graph/state.py:12345678901", ":300"]
)
def test_a_place_no_file_has_is_an_invalid_location_not_a_dropped_one(place: str) -> None:
    """Line 0, a negative line, ten digits or no path: what the answer wrote is judged
    (and fails), with or without required locations, never passed over."""
    answer = f"StateGraph.compile builds it.{SECTION}- compile ({place})\n"
    for require in (False, True):
        result = validate(answer, require_locations=require)
        assert result.invalid_locations == (f"compile ({place})",) and not result.passed
        assert "compile" not in result.missing_locations  # it has one, if invalid


def test_a_prompt_or_graph_names_of_the_wrong_kind_are_named() -> None:
    """``prompt=None`` is no prompt; a number for either is refused by its name."""
    answer = "StateGraph.compile builds it." + SECTION
    assert GraphContextValidator().validate(answer, ENTITIES, prompt=None).passed
    with pytest.raises(TypeError, match="prompt must be a str or a list of str"):
        GraphContextValidator().validate(answer, ENTITIES, prompt=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="graph_names must be a collection"):
        GraphContextValidator().validate(answer, ENTITIES, graph_names=123)  # type: ignore[arg-type]


def test_require_locations_names_citations_without_one() -> None:
    answer = "StateGraph.compile builds it.\n\n## Entities used\n- StateGraph\n- compile\n"
    result = validate(answer.replace("- compile", "- compile (graph/state.py:300)"),
                      require_locations=True)  # fmt: skip
    assert result.missing_locations == ("StateGraph",) and not result.passed


def test_locations_are_checked_from_context_text_too() -> None:
    answer = "StateGraph.compile builds it.\n\n## Entities used\n- StateGraph\n"
    answer += "- compile (graph/state.py:390)\n"
    result = GraphContextValidator().validate(answer, CONTEXT)
    assert result.invalid_locations == ("compile (graph/state.py:390)",)


def test_a_member_cited_under_a_class_the_context_does_not_show_it_under_is_not_in_it() -> None:
    """``Pregel.compile`` is not ``StateGraph.compile``: the context shows no such entity,
    so the citation is not in the context (its location is not judged as misplaced)."""
    answer = "StateGraph.compile builds it.\n\n## Entities used\n- StateGraph\n"
    answer += "- compile (graph/state.py:300)\n- Pregel.compile (pregel/main.py:700)\n"
    for context in (CONTEXT, _with_ids(ENTITIES)):
        result = GraphContextValidator().validate(answer, context)
        assert result.invalid_citations == ("Pregel.compile",)
        assert result.invalid_locations == ()
        assert "invalid_citations" in result.failed_rules
        assert "locations" not in result.failed_rules
    relaxed = GraphContextValidator(require_citations=False).validate(answer, CONTEXT)
    assert relaxed.invalid_locations == ("Pregel.compile (pregel/main.py:700)",)


def test_a_member_cited_under_its_own_class_at_a_wrong_line_is_misplaced() -> None:
    answer = "StateGraph.compile builds it.\n\n## Entities used\n- StateGraph\n"
    answer += "- StateGraph.compile (graph/state.py:390)\n"
    result = GraphContextValidator().validate(answer, CONTEXT)
    assert result.invalid_locations == ("StateGraph.compile (graph/state.py:390)",)
    assert result.invalid_citations == ()


MEMBERS_CONTEXT = """\
# graph/state.py
class StateGraph(Graph)  # L112-400 — A graph whose nodes share a state.
StateGraph.channels: dict = ...  # L120
# tests/test_state.py
class TestState  # L1-40
TestState.test_compile()  # L10-20
"""
MEMBERS = [
    {"name": "StateGraph", "kind": "class", "tier": "core", "id": "graph.state.StateGraph",
     "path": "graph/state.py", "line": 112, "end_line": 400},
    {"name": "channels", "kind": "attribute", "tier": "supporting",
     "id": "graph.state.StateGraph.channels", "path": "graph/state.py", "line": 120,
     "end_line": 120},
    {"name": "TestState", "kind": "class", "tier": "supporting", "id": "tests.test_state.TestState",
     "path": "tests/test_state.py", "line": 1, "end_line": 40},
    {"name": "test_compile", "kind": "test", "tier": "supporting",
     "id": "tests.test_state.TestState.test_compile", "path": "tests/test_state.py",
     "line": 10, "end_line": 20},
]  # fmt: skip


@pytest.mark.parametrize(
    ("cited", "kind"),
    [
        ("Pregel.channels (graph/state.py:300)", "citation"),  # an attribute (or property)
        ("TestGraph.test_compile (tests/test_state.py:30)", "citation"),  # a test method
        ("StateGraph.channels (graph/state.py:300)", "location"),
        ("self.channels (graph/state.py:300)", "location"),  # a receiver names no class
    ],
)
def test_a_member_cited_under_another_class_is_judged_alike_from_text_and_entities(
    cited: str, kind: str
) -> None:
    """The graph validates against its entities (dicts with ids and kinds), a user may
    against the context's text: both show `channels` and `test_compile` under their
    classes, so both give one verdict."""
    answer = f"StateGraph keeps channels.\n\n## Entities used\n- StateGraph\n- {cited}\n"
    for context in (MEMBERS_CONTEXT, MEMBERS):
        result = GraphContextValidator().validate(answer, context)
        name = cited.partition(" ")[0]
        if kind == "citation":
            assert (result.invalid_citations, result.invalid_locations) == ((name,), ())
        else:
            assert (result.invalid_citations, result.invalid_locations) == ((), (cited,))


def _with_ids(entities: list[dict]) -> list[dict]:
    """The entities as the graph's state holds them: with ids and kinds."""
    ids = {"compile": "graph.state.StateGraph.compile", "invoke": "pregel.main.Pregel.invoke"}
    return [
        {
            **e,
            "id": ids.get(e["name"], e["name"]),
            "kind": "method" if e["name"] in ids else "class",
        }
        for e in entities
    ]


def test_location_helpers() -> None:
    places = [Place("a/b.py", 10, 20)]
    assert location_valid("b.py", 10, 20, places)
    assert not location_valid("a/b.py", 15, 14, places)  # a range written backwards
    assert not location_valid("a/b.py", 0, 0, places)
    assert same_file("./a/b.py", "a/b.py") and not same_file("", "a/b.py")


def test_a_backslash_separates_a_path_on_either_side() -> None:
    """A context whose paths a store of one's own wrote on Windows (`pkg\\a.py`): an
    answer citing `pkg/a.py:12`, or `pkg\\a.py:12`, had been refused."""
    windows = [Place("src\\pkg\\a.py", 10, 20)]
    assert location_valid("pkg/a.py", 12, 12, windows)
    assert location_valid("pkg\\a.py", 12, 12, windows)
    assert location_valid("src/pkg/a.py", 12, 12, [Place("pkg\\a.py", 10, 20)])
    assert not location_valid("pkg/b.py", 12, 12, windows)


# --- the context is not enough --------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "The provided context does not show how nodes are stored.",
        "The context doesn't include the body of compile.",
        "There is not enough information in the context to say.",
        "I cannot determine this from the given context.",
        "The context is incomplete here.",
        "That part is not shown in the context.",
        "The retry logic isn't shown here.",
        "The provided snippets don't include the scheduler.",
        "It is unclear from the provided code whether it retries.",
        "I don't have the implementation of compile.",
        "The body of `StateGraph.compile` is not shown.",
        "Its body is not in the context.",
        "The widened context still does not show where nodes are stored.",
        "## Missing from the context\n\n- where nodes are stored",
        "It is not among the context entities.",
        "Their implementation isn't visible.",
        "The source of `compile` is not shown, so the order is a guess.",
        "I cannot determine what `compile` does from the context.",
        "THE CONTEXT DOES NOT SHOW IT.",
        "\n\n## What is still missing\n\n- where nodes are stored",
        "\n\n### Still not shown\n- the loop",
        "\n\n### Callers (not shown in the context)\n- whoever calls `compile`",
        # "still": a played demo answer's heading had passed as no saying at all.
        "\n\n### What the context still lacks\n- the lines that attach the nodes",
        "The widened context still lacks the body of `compile`.",
        # The answer's own knowledge beside a saying, not bracketed with it (an attack's
        # answers, read as saying nothing of the context when the rule was looser).
        "From general Python knowledge I would guess it logs, but the context does not show where.",
        "Python's behaviour here depends on the equality, which the context does not show.",
        "General Python code is not shown in the context, and neither is the cache.",
        "\n\n## Python semantics and what is still missing\n- the eviction",
        # A line all bold is a heading as models write one.
        "\n\n**Still missing**\n\n- **L269-273:** whether the signs are applied again",
        "\n\n  **What is not shown:**\n- the loop",
        "The widened context still shows no body for `compile`.",
        "The context contains nothing about retries.",
        "`add_node` is at L150, but the body is still not shown.",
        "The body of `compile` still isn't shown.",
        # Typographic apostrophes, as models write them.
        "The context doesn\u2019t include the body of compile.",
        "Its body isn\u2019t shown here.",
        # The answer's own doubt, and what it would need.
        "I cannot say how `compile` orders the nodes.",
        "The excerpt stops early, so I can\u2019t tell what it returns.",
        "It is not possible to tell from the provided code how retries work.",
        "To be sure, I would need to see the body of `compile`.",
        "To say which, I would need the source of `compile` (L152).",  # a played answer
        "I need the body of `compile` to confirm this.",
        "How retries work is outside what the context shows.",
        "Its code is not shown.",
        "I'm unable to determine how it retries.",
        "I\u2019m not sure how it retries.",
        "I don't know what `compile` returns.",
        "I can't see the implementation of `compile`.",
        "I would need more context to answer this.",
        "Without seeing the body of `compile`, this is a guess.",
        "There's no way to tell from the provided context.",
        "`compile`'s body isn't shown.",
        "I cannot be sure of the order.",
        "I would need these omitted lines: L10-12.",
        "\n\n## What's missing\n\n- the loop",
        # Said not needed of something else: the code it lacks is still lacking.
        "The body of `compile` is not shown. `add_node` is not needed.",
        "`add_node` is not needed. The context does not show `compile`.",
        "\n\n**Missing:** the body of `compile`; none of the rest.",
        # A "no" that denies nothing.
        "The context has no body for `f`, which is missing from the context.",
        "No test is shown; the fixture is missing from the context.",
        "Nothing else matters. The body of `f` is missing from the context.",
        # A "no ... is missing" said of the code's data, not of the context.
        "When no values are missing, the mask is skipped. The context does not show how "
        "NaN is detected.",
        "It checks that no keys are missing; the context does not show how they are built.",
        "No rows were missing in the test data, but the context does not show the fixture.",
        "No doubt the fixture is missing from the context.",
        # A "nothing" of another clause of the saying's sentence.
        "There is nothing wrong with `f`, but its body is missing from the context.",
        "It returns nothing, and the definition of `g` is absent from the context.",
        # A denial followed by an exception: what it excepts is missing.
        "Nothing is missing from the context but the body of `f`.",
        "No code is missing from the context, except the body of `f`.",
        "Nothing is missing from the context except the body of `f`.",
        "The body of `f` is missing from the context besides its docstring.",
        # The other exceptions a denial may open, without a comma too.
        "Nothing is missing from the context apart from the body of `f`.",
        "No code is missing from the context other than the body of `f`.",
        "Nothing is missing from the context aside from `f`.",
        "Nothing is missing from the context save for the body of `f`.",
        # New names in another clause, or a sentence before: the saying still says so.
        "This is new: the context does not show `g`.",
        "The helper is new. The body of `f` is not in the context.",
        # A label followed by a "nothing" that is no denial of need.
        "\n\n**Missing.** Nothing of `f` is shown, so I cannot say what it returns.",
        # A list a label introduces, then prose that needs it.
        "Not shown in the context:\n- the body of `f`.\n\nThese decide what it returns.",
    ],
)
def test_an_answer_that_says_the_context_is_not_enough_fails(sentence: str) -> None:
    assert says_context_insufficient(sentence)
    result = validate(f"StateGraph.compile builds it. {sentence}" + SECTION)
    assert result.insufficient_context and result.failed_rules == ("insufficient_context",)


@pytest.mark.parametrize(
    "sentence",
    [
        "The context shows that compile returns a CompiledStateGraph.",
        "Per the context, StateGraph stores nodes.",
        "It does not show a warning.",
        "The value is not shown in the output.",
        "I have the full picture: compile validates, then attaches nodes.",
        "It is clear from the context that compile validates first.",
        "Messages that do not fit in the context window are trimmed.",
        "The **still missing** flag is set when a node is not shown to the user.",
        "The call is not allowed in the context of a running event loop.",
        "The file is not closed in the context manager's exit.",
        "The source of the error is not shown to the user.",
        "The variable is not set in the current context.",
        "The key is not in the context dict, so it raises.",
        "It is missing from the context payload.",
        "Use contextvars: the value is not in contextvars.",
        "Its implementation is not provided (an abstract method).",
        "The definition is not visible outside the module.",
        "\n\n## Handling missing values\n\nThey are dropped.",
        "It prints ## still missing as a literal.",
        "The parser cannot tell whether the token is a keyword.",
        "You can't know the type until runtime, so it checks at call time.",
        "I would say the retry happens in `compile`.",
        "The code is not shown to the user.",
        # What the answer quotes: an error message, a docstring.
        'The parser raises `ValueError("I cannot determine the encoding")` on a bad BOM.',
        'The docstring reads: "If I cannot tell the type, I return None."',
        "`compile` says: \u201cI can\u2019t determine the entry point\u201d and raises.",
        # "need" as a requirement, "the code" as what a program shows, "context" as an object.
        "For this to be safe, we would need the implementation to hold a lock.",
        "To add a reducer, we would need the following code:",
        "By default the code is not shown; pass `verbose=True` to print it.",
        "It is not possible to call `invoke()` in the context of a running event loop.",
        "Keys outside what the context includes are dropped by `Runtime`.",
        "RunnableContext doesn't include a store, so you need to pass one.",
        "I can't say it better than the docstring: it compiles.",
        "I can't know in advance which node runs first; `compile` orders them by edges.",
        # What is not shown, said not to bear on the answer (a played answer that was
        # complete was asked again for such a list).
        "**Still not shown (not needed for the answer above):** where `log` comes from.",
        "The body of `log` is not shown. It is not needed for the behaviour above.",
        # ... in a contraction (a played answer took a third attempt for its `__repr__`).
        "The source of `G.__repr__` is not shown. It isn't needed for the question.",
        "The source of `G.__repr__` is not shown. It isn\u2019t needed for the question.",
        "The context does not show L280-285. This does not affect the behaviour asked about.",
        # ... of two things not shown (a played answer that was complete took a retry).
        "The context does not show the callers of `search`, nor its `__init__`. Neither is "
        "needed to locate the decision, which L189-193 show.",
        "The callers of `search` are not shown. None of them are needed here.",
        # ... after the list a label introduces (a played answer took a third attempt).
        "Not shown in the context:\n- how `cli_group` reaches `app.cli`;\n- the body of "
        "`load_app` (L333-372).\n\nNeither is needed to answer where `get_command` decides.",
        "Their bodies are not shown, so I cannot say which calls they make. That is not "
        "needed to answer how the method itself decides.",
        # A sentence that says nothing needed is missing, before or after the aside.
        "Nothing needed for the question is missing. The test `test_radian` is listed but "
        "its body is not shown, so I cannot say what it checks.",
        "The body of `log` is not shown. Nothing the question needs is missing, though.",
        # A sentence that denies the saying it holds.
        "Nothing is missing from the context.",
        "No code is missing from the context.",
        "No needed entity is absent from the context.",
        "The context is not missing anything.",
        "The context is never missing anything.",
        "Nothing needed is absent from the context.",
        # A label that says nothing is lacking, or that what follows is not needed.
        "**Missing:** nothing the question needs.",
        "\n\n**Not shown, though not needed.** The context doesn't show where `_variant` is set.",
        # Names said to be new, which no context could hold (a played refactoring
        # answer's heading).
        "## Suggested refactoring (names marked *proposed* are new and do not exist in the "
        "context)",
        "The helper `_emit` is new and does not exist in the context.",
        # What the answer says from its own knowledge (a played answer's heading: its
        # section had been read as the list of what the answer lacks).
        "### Why `str` + `enum.Enum` (general Python, not shown in the context)",
        "Members are singletons (Python's semantics, not shown in the context).",
        # ... or whose clause opens so before the brackets (a played answer's list of
        # pandas facts under it was told back as names it lacked).
        "From general Python, cftime and pandas knowledge (not shown in the context):",
        # A paragraph whose label is followed by "Nothing the question needs" says its
        # gaps are asides (a played answer that said so was asked again).
        "Intro.\n\n**What the context still lacks.** Nothing the question needs: the guard "
        "is shown. For background only, `f` leaves out L5-8, so I cannot say what `arg` "
        "holds.",
        "Intro.\n\n## Missing\nNothing needed. I cannot say what `f` returns.",
    ],
)
def test_ordinary_sentences_about_the_context_pass(sentence: str) -> None:
    assert not says_context_insufficient(sentence)


def test_fail_on_insufficient_off() -> None:
    text = "StateGraph.compile builds it; the context does not show more." + SECTION
    assert validate(text, fail_on_insufficient=False).passed


# --- reports --------------------------------------------------------------------------


def test_a_report_kept_before_the_new_fields_still_loads() -> None:
    data = validate("StateGraph.compile builds it." + SECTION).to_dict()
    for key in ("failed_rules", "invented_names", "ungrounded_in_graph", "cited_locations",
                "invalid_locations", "missing_locations", "insufficient_context"):  # fmt: skip
        del data[key]
    result = GraphValidationResult.from_dict(data)
    assert result.passed and result.invented_names == ()


# --- linear time ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "unit",
    [
        "the context does not " * 1,
        "the context ",
        "shown provided ",
        "## still missing\n",
        "İ the context ",
        "`a` ",
        "cannot ",
        "x_y.z_w() ",
        "```\n",
        "a: b = c\n",
        # Quotations never closed: each scanned once, not again from every mark.
        "\u201c",
        "\u201ca ",
        '"i cannot say ',
        "self.",
        "i would need to see the ",
        "i need the source ",
    ],
)
def test_scanning_is_linear(unit: str) -> None:
    def seconds(size: int) -> float:
        text = unit * (size // len(unit))
        start = time.perf_counter()
        validate(text + SECTION)
        return time.perf_counter() - start

    small, large = seconds(20_000), seconds(200_000)
    assert large < max(small, 0.01) * 30


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # Only the sentence that says it: not the rest of its paragraph.
        (
            "It is kept in a dict. The test that checks term references is not in the "
            "context. So the order is unknown.",
            ("test", "checks", "term", "references"),
        ),
        # The code, the file paths and the line numbers it writes are not its words.
        (
            "The part of `Linter` (src/lint.py:59) that parses queries, L30-40, is not in the "
            "context.",
            ("parses", "queries"),
        ),
        # Under a heading that says it, every item of the section.
        (
            "## What is still missing\n\n- where options are validated\n- `Cart.total`\n",
            ("options", "validated"),
        ),
        ("The body of `add_edge` is not shown in the context.", ()),
        ("The context shows how the rules run.", ()),
        # A saying wrapped over lines, and an abbreviation, do not end the sentence.
        (
            "It is kept. The context\ndoes not show where options are checked.",
            ("options", "checked"),
        ),
        ("The context does not show e.g. the options validator.", ("options", "validator")),
        # The words of the sayings themselves are not what is missing.
        ("The graph context omits where options are checked.", ("options", "checked")),
        ("I do not have access to the validator implementation.", ("validator",)),
        # A heading over a paragraph that says it: the sentence, not the section.
        (
            "## Notes\nThe context does not show the retry scheduler. Nodes, edges and "
            "channels are clear.",
            ("retry", "scheduler"),
        ),
        # Prose with a colon or a slash is prose.
        (
            "Scheduler retries: the read/write path is not in the context.",
            ("scheduler", "retries", "read", "write", "path"),
        ),
    ],
)
def test_the_words_in_which_an_answer_says_what_the_context_lacks(answer, expected) -> None:
    assert lacking_words(answer) == expected


def test_the_words_of_a_long_section_are_capped_after_the_saying_words_are_left_out() -> None:
    items = "".join(f"- the {word} handler\n" for word in ("alpha", "beta") * 40)
    assert lacking_words("## Still missing\n" + items) == ("alpha", "handler", "beta")
    many = " ".join(f"zq{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(100))
    found = lacking_words(f"## Still missing\n- {many}\n")
    assert len(found) == LACKING_WORDS and found[-1] == "zqcl"  # the 64 first, in order


def test_a_comment_in_fenced_code_says_nothing_of_the_context() -> None:
    """``# ... (other methods not shown)`` is a comment of the answer's code: not a
    heading saying the context lacks code, and its code's words are not searched."""
    answer = (
        "```python\nclass StateGraph:\n    def compile(self): ...\n"
        "# ... (other methods not shown)\ndef helper():\n    return merge(config)\n```\n\n"
        "Every node becomes a PregelNode.\n"
    )
    assert not says_context_insufficient(answer)
    assert insufficient_passages(answer) == [] and lacking_words(answer) == ()
    said = answer + "\nThe context does not show where channels are created.\n"
    assert lacking_words(said) == ("channels", "created")


@pytest.mark.parametrize(
    "unit",
    [
        "the context lacks x ",  # one long sentence of sayings
        "the context lacks x. ",
        "a",  # one long token (no path in it)
        "a/",
        "L1",
        "## still missing\n- `a` b\n",
        "Not shown in the context:\n- `a`\n",  # each saying's list read on
        "- the context does not show `a`:\n",  # a list of sayings that each introduce one
    ],
)
def test_the_words_of_what_is_lacking_are_found_in_linear_time(unit: str) -> None:
    def seconds(size: int) -> float:  # the least of three reads (a busy machine is slow)
        text = "The context lacks it. " + unit * (size // len(unit))
        times = []
        for _ in range(3):
            lacking_passages._read.cache_clear()  # each read from the start, not from the cache
            start = time.perf_counter()
            lacking_words(text)
            times.append(time.perf_counter() - start)
        return min(times)

    small, large = seconds(20_000), seconds(200_000)
    assert large < max(small, 0.01) * 30


def test_the_passages_that_say_what_the_context_lacks() -> None:
    answer = (
        "`compile` attaches the nodes.\n\n"
        "It calls `attach_edge`. The body of `add_edge` is not shown, so the\n"
        "choice between `edges` and `waiting_edges` is a guess.\n\n"
        "- `add_node` stores the spec.\n"
        "- The context does not show where `validate` runs.\n"
        "- `attach_node` wraps it.\n\n"
        "## What the context still does not show\n\n"
        "- the loop over `attach_branch`\n"
        "- `CompiledStateGraph.__init__`\n\n"
        "## Entities used\n- compile\n"
    )
    assert insufficient_passages(answer) == [
        "It calls `attach_edge`. The body of `add_edge` is not shown, so the\n"
        "choice between `edges` and `waiting_edges` is a guess.",
        "- The context does not show where `validate` runs.",
        "## What the context still does not show\n\n"
        "- the loop over `attach_branch`\n"
        "- `CompiledStateGraph.__init__`",
    ]
    assert insufficient_passages("The context shows all of `compile`.") == []


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # A saying in the paragraph under a heading is that paragraph, not the section.
        (
            "## Answer\nThe context does not include `compile`.\n\n`add_node` stores it.\n",
            ["## Answer\nThe context does not include `compile`."],
        ),
        # Offsets stay those of the answer when lower-casing would change its length.
        ("İİ `a`.\n\nThe body of `b` is not shown.\n", ["The body of `b` is not shown."]),
        (
            "x\r\n\r\nThe body of `b` is not shown.\r\n\r\n`c` too.\r\n",
            ["The body of `b` is not shown."],
        ),
        # A code fence after the saying is not part of it.
        (
            "The context does not show `a`:\n```python\ndef f():\n    return b\n```\n",
            ["The context does not show `a`:"],
        ),
    ],
)
def test_a_passage_is_the_block_of_its_saying(answer: str, expected: list[str]) -> None:
    assert insufficient_passages(answer) == expected


def test_python_names_are_read_from_modules_only_for_a_name_nothing_else_grounds() -> None:
    """The modules whose public names count as Python's (``asyncio``...) are imported
    only when an answer writes a name none of the rest grounds: an answer whose names
    are all grounded costs no import, and `gather` is still Python's, not invented."""
    script = (
        "import sys\n"
        "from citeloop.grounding import GraphContextValidator\n"
        "v = GraphContextValidator()\n"
        "ok = v.validate('Uses `A` and `None`.\\n\\n## Entities used\\n- A\\n', ['A'])\n"
        "print(ok.passed, 'asyncio' in sys.modules)\n"
        "r = v.validate('`A` awaits `gather()`.\\n\\n## Entities used\\n- A\\n', ['A'])\n"
        "print(r.invented_names, 'asyncio' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["True False", "() True"]


def test_the_files_an_answer_says_code_it_lacks_is_in() -> None:
    answer = (
        "The context does not show `predict` in `sklearn/ensemble/_bagging.py`, nor "
        "tree.py:323-356 (e.g. its loop).\n\nIt shows `io/base.py` whole."
    )
    assert lacking_files(answer) == ("sklearn/ensemble/_bagging.py", "tree.py")
    assert lacking_files("It is in `a/b.py`; everything is shown.") == ()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The context does not show L366-371 of `f`.", ((None, 366, 371),)),
        ("The context does not show L366-L371 or line 12.", ((None, 366, 371), (None, 12, 12))),
        ("Lines 40 to 44 are not shown in the context.", ((None, 40, 44),)),
        ("The context does not show src/a.py:12-14.", (("src/a.py", 12, 14),)),
        (
            "The context does not show `a.py#L9` or `pkg/b.py:L3-4`.",
            (("a.py", 9, 9), ("pkg/b.py", 3, 4)),
        ),
        ("Lines 9-5 are not shown in the context.", ((None, 5, 9),)),
        (
            "The context does not show `check_ucd` in `a/tree.py` (L3-9) or `f` (L4-5).",
            (("a/tree.py", 3, 9), (None, 4, 5)),
        ),
        ("The context does not show note:12 or retries:3.", ()),  # no file before the colon
        ("It is set on L12. The code is shown.", ()),  # not said lacking
    ],
)
def test_the_lines_an_answer_says_it_lacks(answer: str, expected: tuple) -> None:
    assert lacking_lines(answer) == expected


def test_a_bold_line_heads_a_section_that_says_what_is_lacking() -> None:
    answer = (
        "It works.\n\n**What the context lacks**\n\n- **L366-371**, the body after `stat()`.\n"
        "- The bodies of `try_cleanup` (L379-382) and `cleanup` are hidden.\n\n"
        "**Why**\n\nBecause `other` (L1-2) decides.\n"
    )
    assert lacking_lines(answer) == ((None, 366, 371), (None, 379, 382))
    assert lacking_names(answer) == ("stat", "try_cleanup", "cleanup")
    # "Still missing" in a bold line says it as in an ATX heading ("## Still missing").
    still = "It clips at L268.\n\n**Still missing**\n\n- **L269-273:** the signs.\n- L260-265\n"
    assert lacking_lines(still) == ((None, 269, 273), (None, 260, 265))
    # "Missing from the context" in a bold line, no colon: the bold's end ends the clause.
    missing = (
        "It reads `data`.\n\n**Missing from the context**\n- The body of `DragData.from_json`."
        "\n- The class `DragDataItem`: its fields and its `from_json` are not shown.\n"
    )
    assert lacking_names(missing) == ("DragData.from_json", "DragDataItem", "from_json")
    # A parenthesis after it ends the clause too; line ranges after a name are asked.
    aside = (
        "It warns.\n\n**Missing from the context (needed to answer precisely)**\n\n"
        "- `SpectralEmbedding._get_affinity_matrix` L690-697: what follows the warning.\n"
        "- L701-714: the rbf branch.\n"
    )
    assert lacking_lines(aside) == ((None, 690, 697), (None, 701, 714))
    assert not lacking_names("It is **not in the context dict** but in `cache`.\n")


def test_a_bold_label_that_a_colon_ends_says_what_its_list_lacks_not_the_prose_after() -> None:
    """A played answer's "**What the context still lacks:**" list was followed by a
    paragraph on helpers it had set apart (`lint_string`): the widening told that
    source as asked for. A bold heading without the colon still heads its section."""
    answer = (
        "It is `invoke_assert_code`.\n\n**What the context still lacks:**\n"
        "- The test function that calls `invoke_assert_code`.\n\n"
        "The rule helpers lint through `Linter.lint_string` instead.\n\n## Entities used\n"
    )
    assert lacking_names(answer) == ("invoke_assert_code",)
    section = answer.replace("still lacks:**", "still lacks**")
    assert lacking_names(section) == ("invoke_assert_code", "Linter.lint_string")


@pytest.mark.parametrize(
    "heading",
    [
        "**Missing, needed to answer**",
        "## Missing",
        "**Missing:**",
        "**Missing code**",
        "## Gaps",
    ],
)
def test_a_heading_that_starts_with_missing_heads_a_section_of_what_is_lacking(heading) -> None:
    # A played answer listed what it needed under "**Missing, needed to answer**"; the
    # widening read only its prose, and the docstring lines it asked for never came.
    answer = f"It picks one.\n\n{heading}\n\n1. The body of `Foo`.\n2. `Bar` L12-14.\n"
    assert lacking_names(answer) == ("Foo", "Bar")
    assert lacking_lines(answer) == ((None, 12, 14),)


def test_a_line_where_code_asked_for_is_used_is_not_asked_for() -> None:
    """A played answer asked for `argmin`, "so I cannot confirm that it accepts `dim` as
    used at L999", a line of the excerpt it read: the widening showed another file's
    lines 999 and 1012 and told them back as asked for."""
    answer = (
        "It delegates.\n\n## What the context still lacks\n\n"
        "- The source of `argmin`: I cannot confirm it accepts `dim` as used at L999.\n"
        "- `DataArray._replace` (used at L1012, called on lines 1013-1014).\n"
        "- Lines L963-967 of `_calc`, and L970 where `dim` is read.\n"
    )
    assert lacking_lines(answer) == ((None, 963, 967), (None, 970, 970))
    assert {"argmin", "DataArray._replace"} <= set(lacking_names(answer))


@pytest.mark.parametrize(
    "heading",
    [
        "**Consistency between `deviations_` and `centroids_`: what is missing**",
        "**Still missing for `_fit`:**",
        "**Still missing.**",
    ],
)
def test_a_bold_heading_with_code_spans_heads_its_section(heading) -> None:
    # A played answer's list of line ranges under the first heading asked for nothing:
    # the underscores of its code spans had kept the line from reading as a heading.
    answer = f"It shrinks.\n\n{heading}\n\n- **L258-265.** Where `m` is used.\n- `Bar` L12-14.\n"
    assert lacking_names(answer)[-1] == "Bar"
    assert lacking_lines(answer) == ((None, 258, 265), (None, 12, 14))


def test_a_plain_line_ending_with_a_colon_heads_the_list_of_what_is_lacking() -> None:
    """A played answer wrote "Still missing from the context:" without bold, then a
    numbered list: the widening read the one line, and searched the words of what the
    answer described as shown instead of the list."""
    answer = (
        "It wraps arrays.\n\nStill missing from the context:\n"
        "1. The masked class and its `__array_function__` dispatch.\n"
        "2. The `meshgrid` override, L279-284.\n\n"
        "Then prose about `shown_thing`.\n"
    )
    assert lacking_names(answer) == ("__array_function__", "meshgrid")
    assert lacking_lines(answer) == ((None, 279, 284),)
    assert "masked" in lacking_words(answer) and "prose" not in lacking_words(answer)
    # A line that ends otherwise: its sentence only.
    assert lacking_names("It x.\n\nThe context does not show it.\n1. `A` is fine.\n") == ()


def test_a_type_annotation_quoted_in_a_list_of_what_is_lacking_asks_for_no_typing_name():
    """A played answer's list item quoted a return type, `dict[str, Literal["a", "b"]]`:
    the retry told it `Literal` is `typing.Literal`, as if it had asked for it. A typing
    name subscripted, like a builtin type, is no code an answer asks for; written alone
    it may be the code base's own class (pymongo's `Collection`)."""
    answer = (
        "It resolves them.\n\n## What the context lacks\n"
        "- The body of `_resolve_args_directness`: its return type, "
        '`dict[str, Literal["indirect"]]`, and `Optional[Node]` say little. The '
        "constructor of `Collection` is not shown either.\n"
    )
    names = listed_lacking_names(answer)
    assert {"_resolve_args_directness", "Node", "Collection", "Collection.__init__"} <= set(names)
    assert not {"Literal", "Optional", "dict", "str"} & set(names)


def test_the_relation_words_of_a_context_ask_for_no_code() -> None:
    """A played answer said its context had no `inherits` line linking two classes: the
    retry told it the graph has no `inherits`, as if it had asked for code so named."""
    answer = (
        "It sets the header.\n\n## Still missing\n- Any `inherits`/base-class line that "
        "links `JWTAuth` to a base; the `calls` lines show only `auth()`.\n"
    )
    names = listed_lacking_names(answer)
    assert "JWTAuth" in names and not {"inherits", "calls"} & set(names)


def test_a_colon_after_the_sentence_of_a_saying_introduces_shown_code() -> None:
    """A played answer's list item said some lines are left out, then "The shown part,
    L1756-1768, loops over `inferred_slots`:" and listed what those shown lines do: the
    names of that list (`util.UninferableBase`) were read as asked for, and the retry
    told it they come from outside the code base as if it had listed them as lacking."""
    answer = (
        "It checks slots.\n\n"
        "2. `_has_valid_slots` decides it. L1749-1755 are left out, so I can't confirm "
        "that. The shown part, L1756-1768, loops over `inferred_slots`:\n"
        "   - it returns `False` if a value is `util.UninferableBase` (L1758-1759);\n"
        "   - L1760 tests `is_iterable(slots)`.\n\n"
        "## What the context lacks\n- The body of `_check_in_slots`.\n"
    )
    assert listed_lacking_names(answer) == ("_check_in_slots",)
    # The sentence of the saying itself ending the line with a colon still heads a list.
    said = "It checks slots.\n\n- The shown part loops. Still missing from the context:\n"
    assert listed_lacking_names(said + "  1. `Foo` L3-4.\n") == ("Foo",)


@pytest.mark.parametrize(
    "line",
    [
        "The context does not include these functions. Please provide:",
        "The body of `run` is not shown. To confirm this I would need:",
        "The context does not show several helpers, e.g. `Foo` and others:",
    ],
)
def test_a_line_of_its_own_that_says_what_is_lacking_heads_the_list_its_colon_opens(line):
    """Outside a list item, a line that says the context lacks code and ends with a
    colon heads the list after it, whatever sentence ends the line (the request is
    often a second one: "Please provide:")."""
    answer = f"It runs.\n\n{line}\n- `bar_helper`\n- `baz_helper`\n"
    assert {"bar_helper", "baz_helper"} <= set(listed_lacking_names(answer))


def test_a_list_a_second_sentence_introduces_is_that_sentences_not_what_is_lacking() -> None:
    """A played answer said "The context gives no stated rationale in comments or docs.
    These are the general reasons for the `@file` convention:" and listed reasons: the
    names of one (a quoted node id's `Test` and `test_method`) were read as asked for,
    and the retry told the answer the widening "now shows" unrelated test methods."""
    answer = (
        "It parses the file.\n\n"
        "The context gives no stated rationale in comments or docs. These are the "
        "general reasons for the `@file` convention:\n"
        "- Command-line length limits.\n"
        "- Node IDs need quoting, which the test's `some.py::Test::test_method` exercises.\n"
    )
    assert listed_lacking_names(answer) == ()
    assert not {"Test", "test_method"} & set(lacking_names(answer))
    # The same second sentence, asking, heads the list.
    asking = answer.replace("These are the general reasons for", "I would need")
    assert {"Test", "test_method"} <= set(listed_lacking_names(asking))
    # A short one that says where code is lists what the context shows (a played
    # retry was told the origin of the `abstractmethod` of such a list's item).
    shows = (
        "It groups.\n\nThe context shows no `factorize` on `ResolvedGrouper`. "
        "`factorize` appears on:\n- `Grouper.factorize` (`@abstractmethod`);\n"
    )
    assert listed_lacking_names(shows) == ()


@pytest.mark.parametrize(
    "label",
    [
        "Missing, and needed to answer:",
        "Missing (needed):",
        "Still missing code I need:",
        "Missing (required for the answer):",
        "Missing, to answer the question:",
    ],
)
def test_a_plain_line_that_starts_with_missing_heads_the_list_of_what_is_lacking(label) -> None:
    # A played answer wrote "Missing, and needed to answer:" without bold, then a
    # numbered list: no saying was read, and its widening brought no name of the list.
    answer = f"It retries.\n\n{label}\n1. The body of `Foo`.\n2. `Bar` L12-14.\n"
    assert lacking_names(answer) == ("Foo", "Bar")
    assert lacking_lines(answer) == ((None, 12, 14),)


@pytest.mark.parametrize(
    "answer",
    [
        "It imputes.\n\nMissing values are handled so:\n- `SimpleImputer` fills them.\n",
        "It imputes.\n\nMissing, as it happens, is `x`: fine.\n",
        "It is complete.\n\nMissing, and needed to answer:\n- none\n",
        "It is complete.\n\n**Missing:**\n- nothing\n",
    ],
)
def test_a_line_about_missing_values_or_a_list_of_nothing_says_nothing_lacking(answer) -> None:
    assert not says_context_insufficient(answer)
    assert lacking_names(answer) == ()


@pytest.mark.parametrize(
    "answer",
    [
        "It checks.\n\nMissing, with a default:\n- returns the default\n",
        "It reads.\n\nMissing (no default):\n- raises `KeyError`\n",
        "Missing lines in the report are computed by `analysis()`:\n- it reads the data\n",
        "Missing code paths are reported like this:\nthe report lists them.\n",
    ],
)
def test_a_plain_missing_line_that_says_not_what_for_is_prose(answer) -> None:
    # A review found these read as the answer's list of what its context lacks.
    assert not says_context_insufficient(answer)


def test_a_list_of_nothing_is_only_an_item_that_says_nothing_else() -> None:
    assert not says_context_insufficient("It is complete.\n\n**Missing:**\n1. none\n")
    said = "It x.\n\n## Still missing\n\n- None of the bodies of `attach_edge` are shown.\n"
    assert says_context_insufficient(said) and lacking_names(said) == ("attach_edge",)
    crlf = "It x.\r\n\r\nMissing, and needed:\r\n- the body of `f`\r\n"
    assert lacking_names(crlf) == ("f",)
    assert lacking_names("It x.\n\nMissing:\n- the body of `f`\n- `g`\n") == ("f", "g")


def test_a_line_labelled_not_shown_says_what_is_lacking() -> None:
    # A played answer's last caveat, under "**Caveats**", was never read.
    answer = (
        "It parses.\n\n**Caveats**\n- One thing.\n- Not shown: `A.check` body (L2376-2383)"
        ", `A.parse` body (L2385-2399).\n"
    )
    assert lacking_names(answer) == ("A.check", "A.parse")
    assert lacking_lines(answer) == ((None, 2376, 2383), (None, 2385, 2399))
    assert lacking_names("It x.\n\n1. **Still missing:** `C` L5-9\n") == ("C",)
    assert lacking_names("It x.\n\nNothing is hidden: `E` is shown.\n") == ()


@pytest.mark.parametrize(
    "heading", ["## Missing values", "## Handling missing values", "**Missing values** go."]
)
def test_a_heading_about_missing_values_says_nothing_of_the_context(heading) -> None:
    assert lacking_names(f"It imputes.\n\n{heading}\n\n- `SimpleImputer` fills them.\n") == ()


def test_a_section_listing_what_is_missing_is_asked_first() -> None:
    """A played answer said code was left out in its prose too, where it cited the
    lines it saw ("`validate_params` (L150-233) calls it at L208-209"): the widening
    spent its lines on those and never showed `_CVObjects.__str__` (L746-750), asked in
    the answer's "## Still missing" list three times."""
    answer = (
        "`validate_params` (L150-233) calls it at L208-209; the lines before it "
        "(L151-206) are left out, and `make_constraint`'s body is not shown.\n\n"
        "## Still missing\n\n- `validate_params` L210-218;\n"
        "- the body of `_CVObjects.__str__` (L746-750).\n"
    )
    assert lacking_lines(answer) == ((None, 210, 218), (None, 746, 750))
    assert lacking_names(answer) == (
        "validate_params",
        "_CVObjects.__str__",
        "make_constraint",
    )
    # A code name before a range is no file: `TfidfTransformer.fit L1658-1673` had been
    # read as lines of a file "TfidfTransformer.fit", which no entity is in.
    dotted = (
        "## Still missing\n\n- `TfidfTransformer.fit` L1658-1673 and "
        "`TfidfTransformer.transform`:1704-1707; text.py L12.\n"
    )
    assert lacking_lines(dotted) == ((None, 1658, 1673), (None, 1704, 1707), ("text.py", 12, 12))
    # Without such a section, every passage's lines, in order.
    prose = answer.split("\n\n## ")[0]
    assert lacking_lines(prose) == ((None, 150, 233), (None, 208, 209), (None, 151, 206))


def test_a_bold_label_that_says_what_is_missing_lists_its_paragraph() -> None:
    """ "**Still missing:** the definition of `templates.render`; ..." is the answer's
    own list, as a heading's section is (a played answer wrote it so): its names are
    listed and its lines are the ones asked for. A label that says something else
    ("**Note:**") is prose, whatever its sentence says."""
    answer = (
        "`compile` (L10-40) calls `templates.render` at L30.\n\n"
        "**Still missing:** the definition of `templates.render`; L41-60 of `write`.\n"
    )
    assert listed_lacking_names(answer) == ("templates.render", "write")
    assert lacking_lines(answer) == ((None, 41, 60),)
    note = "**Note:** the body of `write` is not shown.\n"
    assert listed_lacking_names(note) == () and lacking_names(note) == ("write",)


def test_a_section_under_its_own_heading_is_asked_before_a_listed_item_of_prose() -> None:
    """A played answer's numbered item said its code was not shown and listed sub-items
    (read as a list of what is lacking, 30 names of its prose); its "## Still missing"
    list came after them, and `Session.merge_environment_settings`, asked there, was
    past the excerpts a widening shows."""
    answer = (
        "3. **How the failure becomes `SSLError`.** `get` returns `request(url)`. The "
        "context does not show which `request` that is. `HTTPAdapter.send` does this:\n"
        "   - It obtains `conn` from `get_connection`.\n"
        "   - It converts `MaxRetryError` into `SSLError`.\n\n"
        "## Still missing\n\n- `Session.merge_environment_settings`.\n"
        "- `DEFAULT_CA_BUNDLE_PATH`.\n"
    )
    names = lacking_names(answer)
    assert names[:2] == ("Session.merge_environment_settings", "DEFAULT_CA_BUNDLE_PATH")
    assert "HTTPAdapter.send" in names  # still asked, after the section


def test_what_an_answer_would_need_and_a_constructor_it_asks_for() -> None:
    # A played answer asked, under "**Lines I would need**", for "the `EnvVars` class
    # definition and constructor": its `__init__` set what the question was about.
    answer = (
        "It joins the values (L190).\n\n**Lines I would need**\n"
        "- the `EnvVars` class definition and constructor;\n"
        "- the body of `EnvVars.save_script` (environment.py:590-633), which writes "
        "`.bat`/`.ps1` scripts.\n"
    )
    assert lacking_names(answer) == ("EnvVars", "EnvVars.__init__", "EnvVars.save_script")
    assert lacking_lines(answer) == (("environment.py", 590, 633),)
    # The demo's answer: "## What's missing", then the lines it would need; the word
    # after a heading starts a sentence ("To"), it names no class.
    demo = (
        "It returns `compiled.validate()`.\n\n## What\u2019s missing\n\nTo describe it, I would "
        "need these omitted lines:\n- the bodies of `attach_node` and `attach_edge`;\n"
        "- L1348-1390 of `compile`.\n"
    )
    assert lacking_names(demo) == ("attach_node", "attach_edge", "compile")
    assert lacking_lines(demo) == ((None, 1348, 1390),)
    # A class named where no constructor is asked for brings no `__init__`.
    assert lacking_names("The context does not show `EnvVars` or `Scope`.") == ("EnvVars", "Scope")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "**Still missing from the context**\n- The test methods of `Mixin` (L28-226).",
            ("Mixin",),
        ),
        ("The context does not show the body of the base class `Field`.", ("Field",)),
        ("`Field`\u2019s members are not shown, nor the bodies of `a` and `b`.", ("Field", "a")),
        ("The context does not show `Field` or its methods.", ("Field",)),
        (  # a played answer's: a class, and the method of it that it describes
            "Missing, and needed to answer:\n1. The browser class (the `ChromiumWebbrowser`"
            " named as a call of `CDPClient.run`) - its base class, and the method that"
            " fetches the WebSocket debugger URL.\n2. The source of `CDPClient.run`.",
            ("ChromiumWebbrowser",),
        ),
        ("The context does not show the method `run_once` or `Loop.step`.", ()),
        ("The context does not show the attribute of `Config` that holds it.", ("Config",)),
        ("It calls the methods of `Field`.", ()),  # no saying: nothing is asked
    ],
)
def test_the_names_whose_members_an_answer_says_it_lacks(answer: str, expected: tuple) -> None:
    assert lacking_members(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "**Still missing**\n- The method that calls `SessionInterface.save_session` "
            "during a normal request.",
            ("SessionInterface.save_session",),
        ),
        (
            "The context does not show where the normal request flow calls `save()`.",
            ("save",),
        ),
        (
            "The context does not show the callers of `push` or `pop`'s call sites.",
            ("push", "pop"),
        ),
        ("The context does not show where `compile()` is called.", ("compile",)),
        ("The context shows no caller of `_lazy_sha1`.", ("_lazy_sha1",)),
        # What the context shows being called is no ask; nor is a call without a saying.
        ("`push()` calls `open_session()`; the body of `push` is not shown.", ()),
        ("The method that calls `save` runs at the end of the request.", ()),
        ("The context does not show the methods that call `save_session`.", ("save_session",)),
        ("The context does not show the code that calls `save(...)`.", ("save",)),
        # What the sentence says of a name it does not ask the callers of.
        ("The context lacks the body of `run`, where `save` is never called.", ()),
        ("The context lacks `setup`, but `save` is called from `main`.", ()),
        ("The context does not show the module; `Foo` is called `Bar`.", ()),
        ("The context lacks `setup`; invoking `pytest` directly fails.", ()),
        ("The context does not show what calls `app.py:12`.", ()),  # a place, not code
    ],
)
def test_the_names_whose_callers_an_answer_says_it_lacks(answer: str, expected: tuple) -> None:
    assert lacking_callers(answer) == expected


def test_a_constructor_is_asked_of_names_written_as_classes_only() -> None:
    # A played answer's section asked for "the `__init__` body" and how "`W`, `W_sr`,
    # `L`" are computed: matrices and constants, and `None`, have no constructor.
    answer = (
        "## What the context does not show\n\n- how `W`, `W_sr`, `L` and `MAX_ITER` are "
        "computed;\n- the `__init__` body of `GaussianProcessClassifier` (L152-169), "
        "when `None` is given, and the constructor of `HTTPServer`.\n"
    )
    inits = [name for name in lacking_names(answer) if name.endswith(".__init__")]
    assert inits == ["GaussianProcessClassifier.__init__", "HTTPServer.__init__"]


def test_bold_labels_inside_a_lacking_section_do_not_end_it() -> None:
    spaced = (
        "## What the context lacks\n\n**In `audit`:**\n\n- L40-45\n\n"
        "**In `Ledger.record`:**\n\n- L50-55\n"
    )
    tight = (
        "## What the context lacks\n**Ledger.record**\n- L40-45\n**audit**\n- L50-55 and `step_7`\n"
    )
    for answer in (spaced, tight):
        assert lacking_lines(answer) == ((None, 40, 45), (None, 50, 55))
    assert lacking_names(spaced) == ("audit", "Ledger.record")


def test_a_bold_sentence_is_no_heading() -> None:
    answer = (
        "**Note: the context does not show the body of `foo`.**\n\n"
        "The answer: `bar` calls `baz` at L10-20, which sets `qux`.\n"
    )
    assert lacking_names(answer) == ("foo",) and lacking_lines(answer) == ()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('The context does not show "pkg/a.py:40-45".', (("pkg/a.py", 40, 45),)),
        ("The context does not show **pkg/a.py:40-45**.", (("pkg/a.py", 40, 45),)),
        (
            "Lines 40 — 45 and lines 50 through 52 are not shown in the context.",
            ((None, 40, 45), (None, 50, 52)),
        ),
    ],
)
def test_wrapped_paths_and_spelled_ranges(answer: str, expected: tuple) -> None:
    assert lacking_lines(answer) == expected


_ANCHOR_TEXT = st.lists(
    st.sampled_from([*sayings._ANCHOR_WORDS, "x", "_", "1", "é", " ", "\n", "`", '"', ".", "s"]),
    max_size=40,
).map("".join)


@given(_ANCHOR_TEXT)
@settings(max_examples=300, deadline=None)
def test_anchor_words_are_found_as_the_pattern_finds_them(text: str) -> None:
    # One str.find pass a word finds the whole words the anchor pattern finds.
    expected = [(m.start(), m.end()) for m in sayings._ANCHORS.finditer(text)]
    assert sayings._anchor_words(text) == expected


@given(_ANCHOR_TEXT)
@settings(max_examples=300, deadline=None)
def test_quotes_are_blanked_near_anchors_as_if_blanked_everywhere(text: str) -> None:
    # Blanking the quotations only on the lines within reach of an anchor leaves the
    # same anchors and the same text around them as blanking every quotation.
    everywhere = sayings._QUOTED.sub(sayings._blanked, text)
    near = sayings._quotes_blanked_near(text, sayings._anchor_words(text))
    assert sayings._anchor_words(near) == sayings._anchor_words(everywhere)
    for at, stop in sayings._anchor_words(everywhere):
        start, end = max(0, at - sayings._BEFORE), stop + sayings._AFTER
        assert near[start:end] == everywhere[start:end]


def test_first_saying_gives_the_sentence_that_says_the_context_is_not_enough() -> None:
    from citeloop.grounding.sayings import SENTENCE_SHOWN, first_saying

    body = "It builds the graph.\n\nThe body of\n`compile` is not shown. The rest is clear."
    assert first_saying(body) == "The body of `compile` is not shown."
    assert first_saying("It builds the graph.") is None
    # A long sentence is cut to the words before its saying, and to its length.
    said = first_saying("x " * 400 + "the context does not show `f`." + " y" * 400)
    assert said is not None and len(said) <= SENTENCE_SHOWN
    assert said.startswith("…x x") and "the context does not show `f`." in said
    said = first_saying("The context does not show `f`" + " y" * 400)
    assert said is not None and len(said) == SENTENCE_SHOWN and said.endswith("y…")


def test_first_saying_starts_at_its_own_sentence_and_skips_fenced_code() -> None:
    from citeloop.grounding.sayings import first_saying

    # A stop and a space (or a line break) right before the saying end the sentence before.
    assert first_saying("It calls f. The context does not show g.") == (
        "The context does not show g."
    )
    assert first_saying("It calls f.\r\nThe context does not show g.") == (
        "The context does not show g."
    )
    # A code comment in a fence says nothing of the context (the rule reads no fence).
    body = (
        "It calls f:\n\n```\n# the context does not show this\n```\n\n"
        "I would need `g`; it is not shown in the context.\n"
    )
    assert first_saying(body) == "I would need `g`; it is not shown in the context."
    # A heading on the next line ends the sentence; it is not part of it.
    body = "Nothing is missing from the context except `f`\n# Details\nIt is plain."
    assert first_saying(body) == "Nothing is missing from the context except `f`"


def test_a_lacking_section_reads_its_closing_paragraphs_too() -> None:
    """What follows a "## Still missing" list in its section asks for code too: "If
    possible, please also include `X`", or the lines a closing sentence names (a first
    version that ended the section at its last list lost both)."""
    answer = (
        "It stores `on_delete`.\n\n## Still missing\n"
        "- The body of `Collector.collect` (deletion.py L214-340).\n"
        "- The definition of `CASCADE`.\n\n"
        "If possible, please also include `RelatedField.contribute_to_class`; the "
        "context also does not show `Collector.delete` (deletion.py L379-420).\n"
    )
    expected = ("Collector.collect", "CASCADE", "RelatedField.contribute_to_class")
    assert listed_lacking_names(answer) == (*expected, "Collector.delete")
    assert lacking_lines(answer) == (("deletion.py", 214, 340), ("deletion.py", 379, 420))


def test_a_constructor_is_asked_of_the_classes_of_its_own_list_item() -> None:
    """One item's "The constructors." asks for no other item's class's `__init__` (a
    played answer's list brought `Model.__init__` and `SillyModel.__init__`); a line
    before the list that asks for constructors asks them of every item."""
    answer = "## Missing\n- `Alpha` and its constructor\n- `Beta`\n"
    assert lacking_names(answer) == ("Alpha", "Alpha.__init__", "Beta")
    lead = "The context does not show the constructors of these:\n- `Alpha`\n- `Beta`\n"
    assert lacking_names(lead) == ("Alpha", "Alpha.__init__", "Beta", "Beta.__init__")
    # An item asks with its sub-items: a parent's "Constructors", a sub-item's "its
    # constructor", an item's saying and its sub-list.
    parent = "## Missing\n1. **Constructors**\n   - `Alpha`\n   - `Beta`\n2. `Gamma`\n"
    assert lacking_names(parent) == ("Alpha", "Alpha.__init__", "Beta", "Beta.__init__", "Gamma")
    child = "## Missing\n- `Alpha`:\n  - its constructor\n- `Gamma`\n"
    assert lacking_names(child) == ("Alpha", "Alpha.__init__", "Gamma")
    said = "## Missing\n- The constructors of these are not shown:\n  - `Alpha`\n- `Gamma`\n"
    assert lacking_names(said) == ("Alpha", "Alpha.__init__", "Gamma")


def test_a_special_method_said_lacking_is_asked_of_the_classes_of_its_list_item() -> None:
    """ "`UnifiedReadWrite` ... plus any `__call__`" asks for that class's `__call__`,
    not any class's (a played widening brought a `__call__` nested in an unrelated
    metaclass's method, and told the model it now showed "the source of __call__"); a
    special method an item names with no class stays bare."""
    answer = (
        "## Still missing\n- `UnifiedReadWrite` L23-35, plus any `__call__`/`__get__`\n"
        "- `__repr__` of the module\n- the constructor and `__eq__` of `Alpha`\n"
    )
    assert lacking_names(answer) == (
        "UnifiedReadWrite",
        "UnifiedReadWrite.__call__",
        "UnifiedReadWrite.__get__",
        "__repr__",
        "Alpha.__eq__",
        "Alpha",
        "Alpha.__init__",
    )
    assert lacking_names("The context does not show the `__call__` of `Box` or `Crate`.") == (
        "Box.__call__",
        "Crate.__call__",
        "Box",
        "Crate",
    )


def test_a_lacking_list_reads_at_most_max_mentions_names() -> None:
    """The bound on the names one text gives holds over a list's items as over one text."""
    answer = "## Still missing\n" + "".join(f"- `helper_{n}`\n" for n in range(MAX_MENTIONS * 3))
    assert len(lacking_names(answer)) == MAX_MENTIONS


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The constructors of `Alpha` and `Beta` are not shown.", 4),
        ("The definitions of `Alpha` and `Beta` are not shown.", 2),
        ("`Alpha` calls two helpers. Their implementations are not shown.", 1),
        ("The sources of `Alpha` and `Beta` are not shown here.", 2),
    ],
)
def test_a_plural_of_what_is_not_shown_says_it_is_lacking(answer: str, expected: int) -> None:
    """ "The constructors of `A` and `B` are not shown" said nothing lacking (only the
    singular was read)."""
    assert says_context_insufficient(answer)
    assert len(lacking_names(answer)) == expected
