"""ContextInjector: mentions and tiers, lexical hits, ranking, the token budget, widening,
and the documented text format."""

from __future__ import annotations

import dataclasses
import itertools
import re
import shutil
from pathlib import Path

import pytest

from citeloop.errors import ConfigurationError
from citeloop.grounding import parse_context_entities
from citeloop.knowledge import (
    DECISIONS_HEADING,
    ContextExpansion,
    ContextInjector,
    Entity,
    EntityKind,
    Fact,
    MemoryGraphStore,
    RelationKind,
    SqliteGraphStore,
    Tier,
    budget,
    index_tree,
)
from citeloop.knowledge.candidate_order import MEMBERS_ASKED
from citeloop.knowledge.finding import (
    MAX_COMPOUNDS,
    MAX_JOINED,
    MAX_LACKING_NAMESAKES,
    EntityFinder,
    compound_words,
    joined_words,
    task_words,
)
from citeloop.knowledge.imports import imported_from_outside, outside_imports
from citeloop.knowledge.model import LISTED_BY_OTHERS, is_example_path, is_test_path
from citeloop.knowledge.render import REQUIREMENTS_HEADING, relation_line, signature_parameters
from citeloop.knowledge.seeds import near_context
from citeloop.knowledge.store import batched
from citeloop.text import estimated_tokens

SAMPLE_REPO = Path(__file__).parent.parent / "fixtures" / "sample_repo"

_WHERE = r"(  # L\d+( — .+)?|  # .+)?"
_REF = r"(\w+\.)?\w+"
LINE_SHAPES = [
    re.compile(r"# [\w/]+\.py"),
    re.compile(rf"class \w+(\([^)]*\))?{_WHERE}"),
    re.compile(rf"def \w+\(.*\)( -> .+)?{_WHERE}"),
    re.compile(rf"\w+\.\w+(\(.*\)( -> .+)?|: .+| = .+){_WHERE}"),
    re.compile(rf"[A-Z_]+ = .+{_WHERE}"),
    re.compile(rf"{_REF} inherits from {_REF}"),
    re.compile(rf"{_REF}(\(\))? calls {_REF}\(\)(, {_REF}\(\))*"),
    re.compile(r"REQ-\w+(-\w+)*( .+)?"),
    re.compile(re.escape(DECISIONS_HEADING)),
    re.compile(re.escape(REQUIREMENTS_HEADING)),
    re.compile(r"  [\w-]+: .+"),
    re.compile(r"    +\d* \|( .*)?"),  # a source excerpt's line (a blank one ends at |)
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("injector") / "repo"
    shutil.copytree(SAMPLE_REPO, root)
    with SqliteGraphStore(root.parent / "graph.db") as graph:
        index_tree(root, graph)
        yield graph


def names(context, tier: Tier | None = None) -> set[str]:
    return {e.name for e in context.entities if tier is None or e.tier is tier}


def ids(entities) -> list[str]:
    return [e.id for e in entities]


# -- mentions: what is core -----------------------------------------------------------


def test_mentions_are_core_and_the_rest_supporting(store: SqliteGraphStore) -> None:
    context = ContextInjector(store).inject("Why does Circle.area differ from `Shape`?")
    assert set(ids(context.core)) == {
        "shapes.circle.Circle",
        "shapes.circle.Circle.area",
        "shapes.base.Shape",
    }
    assert {"label", "square", "Kreis", "REQ-001-002"} <= names(context, Tier.SUPPORTING)
    assert context.snapshot == store.snapshot()


# The English-word cases of the issue: each word equals an entity name, and none is core.
PLAIN_WORD_STORE = MemoryGraphStore(
    [
        Entity("click.core.command", EntityKind.FUNCTION, "command"),
        Entity("click.core.Command", EntityKind.CLASS, "Command"),
        Entity("click.testing.EchoingStdin", EntityKind.CLASS, "EchoingStdin"),
        Entity("click.testing.EchoingStdin.read", EntityKind.METHOD, "read"),
        *(Entity(f"codecs{i}.Codec.decode", EntityKind.METHOD, "decode") for i in range(11)),
        Entity("xarray.core.where", EntityKind.FUNCTION, "where"),
        Entity("sklearn.Model.fit", EntityKind.METHOD, "fit"),
        Entity("build.build", EntityKind.FUNCTION, "build"),
        Entity("pandas.when", EntityKind.FUNCTION, "when"),
        Entity("m.Checkout", EntityKind.CLASS, "Checkout"),
        Entity("doc.example.multipython.Python", EntityKind.CLASS, "Python"),
        Entity("sphinx.application.Sphinx", EntityKind.CLASS, "Sphinx"),
    ],
    [],
)


@pytest.mark.parametrize(
    "task",
    [
        "How do I run a command with options?",
        "Why does reading environment variables read stale values?",
        "How do I decode the response body?",
        "Select the values where the mask is true",
        "Can I fit the model twice?",
        "How do I build the docs, and when is the cache cleared?",
        "Command line options are parsed how?",  # capitalized: starts the sentence
        # A capitalized word inside a sentence is English too: proper nouns.
        "Why does the cache lean on Python's dictionary protocol?",
        "When I run Sphinx twice, why is the second build faster?",
    ],
)
def test_plain_english_words_are_never_core(task: str) -> None:
    context = ContextInjector(PLAIN_WORD_STORE).inject(task)
    assert context.core == ()


def test_words_written_as_code_are_core() -> None:
    injector = ContextInjector(PLAIN_WORD_STORE)
    assert ids(injector.seeds("Does `read` block?")) == ["click.testing.EchoingStdin.read"]
    assert ids(injector.seeds("How does command() register?")) == ["click.core.command"]
    assert ids(injector.seeds("How is EchoingStdin.read used?")) == [
        "click.testing.EchoingStdin.read",
        "click.testing.EchoingStdin",
    ]
    assert injector.seeds("How does the Checkout flow start?") == []


def test_a_capitalized_word_seeds_its_class_as_a_hint_never_core() -> None:
    """``the Checkout flow`` may mean the class: it is ranked like the best lexical hit,
    and stays supporting (``Python's`` may mean the language)."""
    injector = ContextInjector(PLAIN_WORD_STORE)
    context = injector.inject("How does the Checkout flow start?")
    checkout = next(e for e in context.entities if e.id == "m.Checkout")
    assert (checkout.tier, checkout.reason) == (Tier.SUPPORTING, "lexical")


def test_a_bare_dunder_is_not_core_but_a_qualified_one_is(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store)
    assert injector.seeds("call init and __init__") == []
    assert ids(injector.seeds("Circle.__init__")) == [
        "shapes.circle.Circle.__init__",
        "shapes.circle.Circle",
    ]


def test_an_ambiguous_code_name_names_its_public_definitions(store: SqliteGraphStore) -> None:
    seeds = ContextInjector(store).seeds("what is `area`?")
    assert ids(seeds) == ["shapes.base.Shape.area", "shapes.circle.Circle.area"]


def test_unicode_names(store: SqliteGraphStore) -> None:
    context = ContextInjector(store).inject("Explain `größe` and größe_von")
    assert names(context, Tier.CORE) == {"größe", "größe_von"}
    assert "Kreis.größe()  # L22-23" in context.text.splitlines()


def test_payload_shapes(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store)
    expected = injector.inject("Circle.area and square_area").text
    mapping = {"task": "Circle.area", "payload": "square_area", "n": 3}
    assert injector.inject(mapping).text == expected
    assert injector.inject(["Circle.area", "square_area"]).text == expected
    with pytest.raises(TypeError, match="payload must be"):
        injector.inject(42)  # type: ignore[arg-type]


def test_ambiguous_name_prefers_the_candidate_beside_an_unambiguous_mention():
    entities = [
        Entity("pkg.state.Graph", EntityKind.CLASS, "Graph"),
        Entity("pkg.state.Graph.add_edge", EntityKind.METHOD, "add_edge"),
        Entity("pkg.draw.add_edge", EntityKind.FUNCTION, "add_edge"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    assert ids(injector.seeds("How does `Graph` use add_edge?")) == [
        "pkg.state.Graph",
        "pkg.state.Graph.add_edge",
    ]
    # With no anchor, the usual rank applies: a function before a method.
    assert ids(injector.seeds("What does add_edge do?")) == ["pkg.draw.add_edge"]


def test_an_ambiguous_dotted_name_means_the_one_inside_the_class_the_task_names():
    """`Meta.fields` beside `IncompleteForm` is the ``fields`` of that form's ``Meta``,
    not those of three other forms of the same test file (a played task's core had
    been three other forms' ``Meta.fields``, and the retry asked the model to cite
    `fields` without saying which)."""
    path = "t/tests.py"
    entities = [Entity("t.tests.IncompleteForm", EntityKind.CLASS, "IncompleteForm", path)]
    for form in ("ArticleForm", "BaseForm", "IncompleteForm", "StatusForm"):
        entities += [
            Entity(f"t.tests.{form}.Meta", EntityKind.CLASS, "Meta", path),
            Entity(f"t.tests.{form}.Meta.fields", EntityKind.ATTRIBUTE, "fields", path),
        ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    seeds = ids(injector.seeds("How does IncompleteForm use its Meta.fields?"))
    assert "t.tests.IncompleteForm.Meta.fields" in seeds
    assert not any(f"{form}.Meta" in s for s in seeds for form in ("ArticleForm", "StatusForm"))
    assert "t.tests.BaseForm.Meta.fields" not in seeds


def test_an_ambiguous_name_means_the_one_the_tasks_other_words_point_at():
    """Of many ``fit`` methods, the one whose class holds what the task's other words
    find; with no such word, the library's, not a gallery script's."""
    entities = [
        Entity("lib.spread.LabelSpreading", EntityKind.CLASS, "LabelSpreading", "lib/spread.py"),
        Entity("lib.spread.LabelSpreading.fit", EntityKind.METHOD, "fit", "lib/spread.py"),
        Entity(
            "lib.spread.LabelSpreading.label_distributions_",
            EntityKind.ATTRIBUTE,
            "label_distributions_",
            "lib/spread.py",
        ),
        Entity("lib.scale.Scaler", EntityKind.CLASS, "Scaler", "lib/scale.py"),
        Entity("lib.scale.Scaler.fit", EntityKind.METHOD, "fit", "lib/scale.py"),
        Entity("lib.tree.Tree", EntityKind.CLASS, "Tree", "lib/tree.py"),
        Entity("lib.tree.Tree.fit", EntityKind.METHOD, "fit", "lib/tree.py"),
        Entity("examples.demo.Naive.fit", EntityKind.METHOD, "fit", "examples/demo.py"),
        Entity("examples.demo.Naive", EntityKind.CLASS, "Naive", "examples/demo.py"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    task = "How does the `fit` method detect that the label distributions stopped changing?"
    assert ids(injector.seeds(task)) == ["lib.spread.LabelSpreading.fit"]
    assert [entity.id for entity in injector.inject(task).core] == ["lib.spread.LabelSpreading.fit"]
    # No other word tells them apart: the library's, never the gallery script's.
    assert ids(injector.seeds("What does `fit` return?")) == [
        "lib.scale.Scaler.fit",
        "lib.spread.LabelSpreading.fit",
        "lib.tree.Tree.fit",
    ]


def test_a_dotted_mention_names_by_its_bare_first_part_only_what_code_writes_bare():
    """``estimators.classes_[1]`` names no class's ``estimators`` attribute (a class's
    member is not written bare); ``pytester.getitem()`` names the fixture ``pytester``."""
    entities = [
        Entity("lib.ensemble.Voting", EntityKind.CLASS, "Voting", "lib/ensemble.py"),
        Entity("lib.ensemble.Voting.estimators", EntityKind.ATTRIBUTE, "estimators", "lib/x.py"),
        Entity("lib.ensemble.Voting.predict", EntityKind.METHOD, "predict", "lib/ensemble.py"),
        Entity("lib.fixtures.pytester", EntityKind.FUNCTION, "pytester", "lib/fixtures.py"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    assert injector.seeds("Is `estimators.classes_[1]` the positive class?") == []
    assert ids(injector.seeds("Why call pytester.getitem() twice?")) == ["lib.fixtures.pytester"]


def test_a_dotted_mention_names_what_its_package_re_exports():
    """``click.echo`` (``pkg.Thing``) is the public path of ``click.utils.echo``: the
    name under its leading parts, in order, is core, and no namesake elsewhere."""
    entities = [
        Entity("click.utils.echo", EntityKind.FUNCTION, "echo", "click/utils.py"),
        Entity("other.tools.echo", EntityKind.FUNCTION, "echo", "other/tools.py"),
        Entity("pkg.impl.Thing", EntityKind.CLASS, "Thing", "pkg/impl.py"),
        Entity("vendor.Thing", EntityKind.CLASS, "Thing", "vendor.py"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    assert ids(injector.seeds("How does `click.echo` print?")) == ["click.utils.echo"]
    assert ids(injector.seeds("What is `pkg.Thing`?")) == ["pkg.impl.Thing"]
    # Leading parts out of order, or not among the entity's: no re-export.
    assert injector.seeds("How does `utils.click.echo` print?") == []
    assert injector.seeds("How does `os.path.echo` print?") == []


def test_a_suffix_after_a_standard_library_module_is_not_the_project_s():
    """``pathlib.Path.resolve`` names the standard library's method, not a project class
    that shadows the name; the project's own module path still names it."""
    entities = [
        Entity("app.models.Path", EntityKind.CLASS, "Path", "app/models.py"),
        Entity("app.models.Path.resolve", EntityKind.METHOD, "resolve", "app/models.py"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    assert injector.seeds("How does `pathlib.Path.resolve` work?") == []
    assert ids(injector.seeds("How does `models.Path.resolve` work?")) == [
        "app.models.Path.resolve",
        "app.models.Path",
    ]
    assert ids(injector.seeds("How does `Path.resolve` work?")) == [
        "app.models.Path.resolve",
        "app.models.Path",
    ]


def test_an_ambiguous_name_prefers_the_definition_outside_test_code():
    """A class a test defines for itself is not the one a task names; it is core only
    when the name has no other definition."""
    entities = [
        Entity("app.forms.ModelForm", EntityKind.CLASS, "ModelForm", "app/forms.py"),
        Entity("tests.forms.ModelForm", EntityKind.CLASS, "ModelForm", "tests/forms.py"),
        Entity("app.t.test_x.ModelForm", EntityKind.CLASS, "ModelForm", "app/test_x.py"),
        Entity("tests.forms.Helper", EntityKind.CLASS, "Helper", "tests/forms.py"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    assert ids(injector.seeds("How does `ModelForm` build its fields?")) == ["app.forms.ModelForm"]
    assert ids(injector.seeds("What is `Helper`?")) == ["tests.forms.Helper"]
    # A task about tests names the test's own class too.
    about = injector.seeds("Which fixture uses `ModelForm`?")
    assert ids(about) == ["app.forms.ModelForm", "app.t.test_x.ModelForm", "tests.forms.ModelForm"]
    assert ids(injector.seeds("`ModelForm`", tests=True)) == ids(about)


@pytest.mark.parametrize(
    ("path", "tests"),
    [
        ("pkg/tests/test_a.py", True),
        ("pkg/test/client.py", True),
        ("test_a.py", True),
        ("pkg/a_test.py", True),
        ("polls/tests.py", True),
        ("conftest.py", True),
        ("src/pkg/conftest.py", True),
        ("integration_tests/flow.py", True),
        ("pkg/testing/utils.py", False),  # a package's testing helpers are library code
        ("pkg/contest.py", False),
        ("pkg/latest/tests_helper.py", False),
        (None, False),
    ],
)
def test_test_paths(path, tests) -> None:
    assert is_test_path(path) is tests


def test_a_name_after_thousands_of_other_words_still_seeds():
    store = MemoryGraphStore([Entity("pkg.GraphStore", EntityKind.CLASS, "GraphStore")], [])
    text = " ".join(f"word{i}" for i in range(50_000)) + " GraphStore"
    assert ids(ContextInjector(store).seeds(text)) == ["pkg.GraphStore"]


def test_long_dotted_mentions_stay_linear():
    # 400 KB of one dotted token: quadratic suffix matching would take many minutes.
    store = MemoryGraphStore([Entity("ab.bc.Cd", EntityKind.CLASS, "Cd")], [])
    assert ids(ContextInjector(store).seeds("xy." * 200_000 + "bc.Cd")) == ["ab.bc.Cd"]


def test_a_decomposed_accent_in_the_task_names_the_composed_entity():
    store = MemoryGraphStore([Entity("m.CaféStore", EntityKind.CLASS, "CaféStore")], [])
    assert ids(ContextInjector(store).seeds("Use Cafe\u0301Store")) == ["m.CaféStore"]


# -- lexical hits ---------------------------------------------------------------------


def test_a_paraphrase_finds_entities_by_their_words_and_docstrings() -> None:
    entities = [
        Entity(
            "flask.json.provider.DefaultJSONProvider",
            EntityKind.CLASS,
            "DefaultJSONProvider",
            docstring="Provide JSON operations using Python's built-in json library.",
        ),
        Entity("flask.app.Flask", EntityKind.CLASS, "Flask", docstring="The flask object."),
        Entity("flask.cli.run_command", EntityKind.FUNCTION, "run_command"),
    ]
    store = MemoryGraphStore(entities, [])
    context = ContextInjector(store).inject("Which JSON provider does the framework use?")
    assert context.core == ()
    assert context.entities[0].id == "flask.json.provider.DefaultJSONProvider"
    assert context.entities[0].reason == "lexical"
    assert "run_command" not in names(context)


def test_a_hyphenated_compound_finds_the_entity_that_writes_it_as_one_word() -> None:
    """ "class-like" is ``Classlike`` in code: the compound is searched as one word, so
    the class-like class's method leads its namesakes."""
    entities = [
        Entity("d.Classlike", EntityKind.CLASS, "Classlike"),
        *(
            Entity(f"d.{owner}.index_text", EntityKind.METHOD, "index_text")
            for owner in ("Attribute", "Classlike", "Module")
        ),
    ]
    store = MemoryGraphStore(entities, [])
    task = "Which index text do class-like objects get?"
    assert "classlike" in task_words(task)
    context = ContextInjector(store).inject(task)
    assert context.entities[0].id == "d.Classlike.index_text"
    unhyphenated = ContextInjector(store).inject(task.replace("-", " "))
    assert unhyphenated.entities[0].id == "d.Attribute.index_text"  # a tie, by id


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("class-like objects", ["classlike"]),
        ("a “read-only” (pkg-config) file, built-in.", ["readonly", "pkgconfig", "builtin"]),
        ("x-y-z and X-Y-Z", ["xyz"]),
        ("3-way --verbose a--b -x y- class_-like", []),
        ("plain words only", []),
        ("the BigQuery dialect's rules", ["bigquery"]),
        ("PostgreSQL\u2019s and NumPy; an ANSI name, I, A or Why", ["postgresql", "numpy"]),
        ("`DefaultJSONProvider` (read-only)", ["defaultjsonprovider", "readonly"]),
        ("snake_case CamelCase2 x", []),
    ],
)
def test_compound_words_are_hyphenated_or_in_mixed_case(text, words) -> None:
    assert compound_words(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "the state persistence manager",
            ["statepersistence", "statemanager", "persistencemanager"],
        ),
        ("an event handler.", ["eventhandler"]),
        ("event handler, decorator", ["eventhandler"]),  # a clause ends at punctuation
        ("event (handler decorator)", ["handlerdecorator"]),
        ("state of manager", ["statemanager"]),  # one word between, a stop word too
        ("the framework's state", ["frameworkstate"]),
        ("read-only state 3 managers", []),  # letters only
        ("a b c", []),
    ],
)
def test_joined_words_are_neighbouring_words_run_together(text, words) -> None:
    assert joined_words(text) == words


def test_a_task_joins_a_bounded_number_of_words() -> None:
    text = " ".join(f"alpha{chr(97 + i)}" for i in range(26)) * 3
    assert len(joined_words(text)) == MAX_JOINED


def test_prose_that_spells_a_name_finds_it_ahead_of_entities_sharing_more_words():
    """ "the client state persistence manager" is ``StateManager``: the name its
    neighbouring words spell, searched whole, outranks the many entities that share
    more of the task's single words."""
    entities = [
        Entity("app.manager.StateManager", EntityKind.CLASS, "StateManager"),
        *(
            Entity(f"app.client.state.persistence.Keeper{i}", EntityKind.CLASS, f"Keeper{i}")
            for i in range(4)
        ),
        *(Entity(f"app.managers.Manager{i}", EntityKind.CLASS, f"Manager{i}") for i in range(8)),
    ]
    task = "What does the client state persistence manager keep?"
    context = ContextInjector(MemoryGraphStore(entities, [])).inject(task)
    assert context.entities[0].id == "app.manager.StateManager"


def test_a_mixed_case_name_in_prose_finds_the_module_named_for_it() -> None:
    entities = [
        Entity("lint.dialects.dialect_bigquery.ArraySegment", EntityKind.CLASS, "ArraySegment"),
        Entity("lint.dialects.dialect_ansi.ArraySegment", EntityKind.CLASS, "ArraySegment"),
    ]
    context = ContextInjector(MemoryGraphStore(entities, [])).inject(
        "How does the BigQuery dialect parse an array?"
    )
    assert context.entities[0].id == "lint.dialects.dialect_bigquery.ArraySegment"


def test_a_task_searches_a_bounded_number_of_compounds() -> None:
    text = " ".join(f"{a}{b}-{b}{a}" for a in "abcdefgh" for b in "ijklmnop")
    assert len(compound_words(text)) == MAX_COMPOUNDS
    assert len(task_words(text)) <= 64 + MAX_COMPOUNDS


def test_a_lexical_hit_alone_in_its_file_weighs_less_than_its_score_says() -> None:
    """A task is about one part of a code base: a hit that has its file to itself (a
    played question about `TimeBase.cache` was shown `clear_download_cache`) ranks below
    hits of a file the task's words find twice, and below one beside the code the task
    names, though its words match best."""
    stray = Entity("util.clear_cache", EntityKind.FUNCTION, "clear_cache", "util.py", 1)
    pair = [
        Entity("core.Time.cache", EntityKind.FUNCTION, "cache", "core.py", 10),
        Entity("core.Time.clear", EntityKind.FUNCTION, "clear", "core.py", 20),
    ]
    store = MemoryGraphStore([stray, *pair], [])
    context = ContextInjector(store, hops=0).inject("How is the cache clear made?")
    order = [e.id for e in context.entities]
    assert store.search(["cache", "clear"], 3)[0][0] == stray.id  # the best score
    assert order.index(stray.id) > max(order.index(e.id) for e in pair)
    # Beside the code the task names, a hit is not alone.
    named = Entity("util.reset", EntityKind.FUNCTION, "reset", "util.py", 30)
    store = MemoryGraphStore([stray, named, pair[0]], [])
    order = [
        e.id
        for e in ContextInjector(store, hops=0).inject("Does `reset` clear the cache?").entities
    ]
    assert order.index(stray.id) < order.index(pair[0].id)


def test_tests_found_by_words_do_not_take_the_lexical_seeds_places() -> None:
    """Tests match a paraphrase best (their names repeat its words), but a context
    without tests skips them: the seeds are the best entities it may hold."""
    tests = [
        Entity(f"t.test_parse_config_{i}", EntityKind.TEST, f"test_parse_config_{i}")
        for i in range(8)  # more than one read of hits holds: the search reads on
    ]
    wanted = Entity(
        "m.load_settings", EntityKind.FUNCTION, "load_settings", docstring="Parse config."
    )
    other = Entity("m.render", EntityKind.FUNCTION, "render", docstring="Draw the page.")
    store = MemoryGraphStore([*tests, wanted, other], [])
    context = ContextInjector(store, lexical_hits=1).inject("How does it parse the config?")
    assert [e.id for e in context.entities] == ["m.load_settings"]
    assert context.entities[0].reason == "lexical"


def test_an_attribute_seeds_at_a_lower_weight_than_a_function_it_outscores() -> None:
    attribute = Entity("m.Client.retry_timeout", EntityKind.ATTRIBUTE, "retry_timeout")
    function = Entity("m.retry", EntityKind.FUNCTION, "retry")
    others = [Entity(f"m.timeout_{c}", EntityKind.FUNCTION, f"timeout_{c}") for c in "abc"]
    store = MemoryGraphStore([attribute, function, *others], [])
    hits = dict(store.search(["retry", "timeout"], 5))
    assert hits[attribute.id] > hits[function.id]  # the attribute matches both words
    context = ContextInjector(store).inject("When does the retry hit its timeout?")
    assert [e.id for e in context.entities][:2] == [function.id, attribute.id]


def test_what_an_answer_said_it_lacks_in_words_is_searched_with_the_task() -> None:
    """An answer that names no code for what it lacks ("the part that parses the file
    with the dialect's grammar") widens the context by those words with the task's: the
    function they describe comes in as a lexical hit; without them, or beside code it
    named as lacking, it does not."""
    entities = [
        Entity("lint.Linter", EntityKind.CLASS, "Linter", docstring="Lint SQL files."),
        Entity(
            "parser.parse_string",
            EntityKind.FUNCTION,
            "parse_string",
            docstring="Parse a string with the dialect's grammar.",
        ),
        *(
            Entity(f"rules.R{i}", EntityKind.CLASS, f"R{i}", docstring="A lint rule.")
            for i in range(30)
        ),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []), max_context_tokens=60)
    task = "How does `Linter` apply the lint rules?"
    plain = ContextExpansion.for_attempt(0, ("Linter",))
    said = ContextExpansion.for_attempt(0, ("Linter",), (), ("parses", "dialect", "grammar"))
    assert "parser.parse_string" not in ids(injector.inject(task, expansion=plain).entities)
    wider = injector.inject(task, expansion=said)
    hit = next(e for e in wider.entities if e.id == "parser.parse_string")
    assert hit.reason == "lexical"
    # Beside code it named as lacking, its words search nothing: in played answers they
    # only found look-alikes ("name", "map" found BitFlagNameMap).
    named = ContextExpansion.for_attempt(
        0, ("Linter", "R3"), ("R3",), ("parses", "dialect", "grammar")
    )
    assert "parser.parse_string" not in ids(injector.inject(task, expansion=named).entities)


def test_the_graph_file_answers_a_paraphrase(store: SqliteGraphStore) -> None:
    context = ContextInjector(store).inject("Which geometric figure has a radius?")
    assert context.core == ()
    assert {"Shape", "Circle"} <= names(context)
    assert {e.reason for e in context.entities} >= {"lexical"}


# -- ranking --------------------------------------------------------------------------


def _hub_store(members: int) -> MemoryGraphStore:
    """``Hub`` with many methods, a base class, a caller and a callee."""
    entities = [
        Entity("m.Hub", EntityKind.CLASS, "Hub"),
        Entity("m.Base", EntityKind.CLASS, "Base"),
        Entity("m.make_hub", EntityKind.FUNCTION, "make_hub"),
        Entity("m.validate", EntityKind.FUNCTION, "validate"),
        *(Entity(f"m.Hub.step{i}", EntityKind.METHOD, f"step{i}") for i in range(members)),
    ]
    facts = [
        Fact("m.Hub", RelationKind.INHERITS, "m.Base"),
        Fact("m.make_hub", RelationKind.CALLS, "m.Hub"),
        Fact("m.Hub", RelationKind.CALLS, "m.validate"),
        *(Fact("m.Hub", RelationKind.DEFINES, f"m.Hub.step{i}") for i in range(members)),
    ]
    return MemoryGraphStore(entities, facts)


def test_calls_and_inheritance_rank_ahead_of_member_lists() -> None:
    context = ContextInjector(_hub_store(30)).inject("How is `Hub` built?")
    order = [e.name for e in context.entities]
    assert order[0] == "Hub"
    first_member = min(order.index(f"step{i}") for i in range(30) if f"step{i}" in order)
    assert max(order.index(name) for name in ("Base", "make_hub", "validate")) < first_member


def test_a_tight_budget_keeps_the_relations_and_ranks_the_members() -> None:
    context = ContextInjector(_hub_store(30), max_context_tokens=60).inject("`Hub`")
    assert {"Base", "make_hub", "validate"} <= names(context)
    assert 0 < sum(name.startswith("step") for name in names(context)) < 30
    assert context.tokens <= 60


def test_private_names_rank_below_their_public_twins() -> None:
    entities = [
        Entity("m.Api", EntityKind.CLASS, "Api"),
        Entity("m.helper", EntityKind.FUNCTION, "helper"),
        Entity("m._helper", EntityKind.FUNCTION, "_helper"),
    ]
    facts = [
        Fact("m.Api", RelationKind.CALLS, "m.helper"),
        Fact("m.Api", RelationKind.CALLS, "m._helper"),
    ]
    context = ContextInjector(MemoryGraphStore(entities, facts)).inject("`Api`")
    scores = {e.name: e.score for e in context.entities}
    assert scores["helper"] > scores["_helper"] > 0


def _api_and_its_tests() -> MemoryGraphStore:
    """``Api`` calls ``helper`` (library code) and ``fixture_helper`` (test code), and
    ``ApiTests`` (a test class whose name matches the task's words) calls ``Api``."""
    entities = [
        Entity("app.Api", EntityKind.CLASS, "Api", "app/api.py"),
        Entity("app.helper", EntityKind.FUNCTION, "helper", "app/api.py"),
        Entity("tests.fixture_helper", EntityKind.FUNCTION, "fixture_helper", "tests/h.py"),
        Entity("tests.test_api.ApiRetryTests", EntityKind.CLASS, "ApiRetryTests", "tests/a.py"),
    ]
    facts = [
        Fact("app.Api", RelationKind.CALLS, "app.helper"),
        Fact("app.Api", RelationKind.CALLS, "tests.fixture_helper"),
        Fact("tests.test_api.ApiRetryTests", RelationKind.CALLS, "app.Api"),
    ]
    return MemoryGraphStore(entities, facts)


def test_test_code_ranks_below_library_code_unless_the_task_is_about_tests() -> None:
    injector = ContextInjector(_api_and_its_tests())
    scores = {e.name: e.score for e in injector.inject("How does `Api` retry?").entities}
    assert scores["helper"] > scores["fixture_helper"] * 1.5 > 0
    assert scores["Api"] > scores["ApiRetryTests"] > 0
    # The same graph, a task about tests: test code is not damped.
    about = {e.name: e.score for e in injector.inject("How is `Api` retry tested?").entities}
    for task in ("Which pytest fixture does `Api` use?", "Where is `Api` mocked in conftest?"):
        scores_of = {e.name: e.score for e in injector.inject(task).entities}
        assert scores_of["fixture_helper"] >= scores_of["helper"] * 0.999  # not halved
    assert about["fixture_helper"] == pytest.approx(about["helper"])
    assert about["ApiRetryTests"] > scores["ApiRetryTests"]
    followed = injector.inject("How does `Api` retry?", task_type="test").entities
    assert {e.name: e.score for e in followed} == about


# -- the budget and widening ----------------------------------------------------------


def test_the_budget_bounds_the_text_and_widening_raises_it(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store, max_context_tokens=60)
    context = injector.inject("Why does Circle.area call square?")
    assert context.budget == 60
    assert context.tokens <= 60
    wider = injector.inject(
        "Why does Circle.area call square?", expansion=ContextExpansion.for_attempt(0)
    )
    assert wider.budget == 120
    assert context.tokens < wider.tokens <= 120


@pytest.mark.parametrize("budget", [40, 57, 64, 83, 100])
def test_the_default_estimator_fills_the_budget_to_the_last_line_that_fits(budget: int) -> None:
    context = ContextInjector(_hub_store(60), max_context_tokens=budget).inject("`Hub`")
    left_out = [f"step{i}" for i in range(60) if f"step{i}" not in names(context)]
    assert left_out  # the budget, not the graph, ended the context
    assert context.tokens <= budget
    # Every member left out would have overflowed the budget, its line and a break after
    # it (old accounting: a quarter of the budget unused, each line counted whole).
    assert all(estimated_tokens(f"{context.text}\nHub.{name}()\n") > budget for name in left_out)


def _caller_store(twins: bool) -> MemoryGraphStore:
    """``go`` calls ``C0a.step0`` .. ``C39a.step39``; with ``twins``, ``C0b.step0`` ..
    too, each next to its twin in rank order (and a relation line then writes
    ``C0a.step0()``, not ``step0()``)."""
    suffixes = "ab" if twins else "a"
    entities = [Entity("m.go", EntityKind.FUNCTION, "go")]
    facts = []
    for i in range(40):
        for suffix in suffixes:
            owner = f"m.C{i}{suffix}"
            entities.append(Entity(owner, EntityKind.CLASS, f"C{i}{suffix}"))
            entities.append(Entity(f"{owner}.step{i}", EntityKind.METHOD, f"step{i}"))
            facts.append(Fact("m.go", RelationKind.CALLS, f"{owner}.step{i}"))
    return MemoryGraphStore(entities, facts)


@pytest.mark.parametrize("budget", [30, 45, 61, 80])
def test_a_relation_line_costs_a_name_as_written_not_at_its_longest(budget: int) -> None:
    context = ContextInjector(_caller_store(False), max_context_tokens=budget).inject("`go`")
    left_out = [i for i in range(40) if f"step{i}" not in names(context)]
    assert left_out and "go() calls step" in context.text  # no twin: no owner on the line
    assert context.tokens <= budget
    # Each one left out (its line and one more callee) would have overflowed (the fill
    # counts a break after every line, the text has none after its last); costed at
    # ``C0a.step0`` on the relation line, about a sixth of the budget went unused.
    assert all(
        estimated_tokens(f"{context.text}\nC{i}a.step{i}(), step{i}()\n") > budget for i in left_out
    )


@pytest.mark.parametrize("budget", range(20, 200, 9))
def test_twin_names_on_relation_lines_stay_within_the_budget(budget: int) -> None:
    context = ContextInjector(_caller_store(True), max_context_tokens=budget).inject("`go`")
    assert context.tokens <= budget
    chosen = {entity.id for entity in context.entities}
    if {"m.C0a.step0", "m.C0b.step0"} <= chosen:
        assert "C0a.step0()" in context.text.split(" calls ", 1)[1]


def test_core_entities_enter_even_past_the_budget(store: SqliteGraphStore) -> None:
    context = ContextInjector(store, max_context_tokens=1).inject("Circle.area and `Shape`")
    assert set(ids(context.entities)) >= {"shapes.circle.Circle.area", "shapes.base.Shape"}
    assert names(context, Tier.SUPPORTING) <= {"Circle"}  # the owner a member line names


def test_a_user_tokenizer_counts_the_budget(store: SqliteGraphStore) -> None:
    def count_words(text: str) -> int:
        return len(text.split())

    context = ContextInjector(store, max_context_tokens=30, count_tokens=count_words).inject(
        "Circle.area"
    )
    assert context.tokens == count_words(context.text)
    assert context.tokens <= 30


@pytest.mark.parametrize("attempt", [0, 1, 2])
def test_widening_adds_only_supporting_entities(store: SqliteGraphStore, attempt: int) -> None:
    injector = ContextInjector(store, max_context_tokens=50)
    task = "Fix Circle.label and REQ-004-001"
    default = injector.inject(task)
    wider = injector.inject(task, expansion=ContextExpansion.for_attempt(attempt))
    assert set(ids(wider.core)) == set(ids(default.core))
    assert set(ids(default.entities)) <= set(ids(wider.entities))
    assert len(wider.entities) > len(default.entities)


@pytest.mark.parametrize(
    ("task", "attempt", "owners"),
    [("Fix Circle.label and REQ-004-001", 0, 50), ("How does Shape relate to Circle?", 2, 2000)],
)
def test_widening_with_the_default_given_equals_widening_alone(
    store: SqliteGraphStore, task: str, attempt: int, owners: int
) -> None:
    """Passing the default context skips selecting it again and changes nothing; one of
    another snapshot, or a widened one, is ignored."""
    injector = ContextInjector(store, max_context_tokens=owners)
    expansion = ContextExpansion.for_attempt(attempt, ("area",))
    alone = injector.inject(task, expansion=expansion)
    default = injector.inject(task)
    assert injector.inject(task, expansion=expansion, default=default) == alone
    stale = dataclasses.replace(default, entities=default.entities[:1], snapshot="g-other")
    assert injector.inject(task, expansion=expansion, default=stale) == alone
    widened = dataclasses.replace(default, entities=default.entities[:1], expansion=expansion)
    assert injector.inject(task, expansion=expansion, default=widened) == alone
    trimmed = dataclasses.replace(default, entities=default.entities[:1])
    assert injector.inject(task, expansion=expansion, default=trimmed) != alone  # it is used


def test_widening_brings_in_the_names_an_answer_used(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store, hops=0, max_context_tokens=40)
    default = injector.inject("`Kreis`")
    assert "typed_circle" not in {e.name for e in default.entities if e.reason != "member"}
    expansion = ContextExpansion.for_attempt(0, ("typed_circle", "nope"))
    wider = injector.inject("`Kreis`", expansion=expansion)
    assert "typed_circle" in names(wider, Tier.SUPPORTING)
    assert next(e for e in wider.entities if e.name == "typed_circle").reason == "named"


def test_a_later_widening_keeps_what_the_earlier_one_showed(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store, hops=0, max_context_tokens=40, excerpt_share=0)
    first = injector.inject("`Kreis`", expansion=ContextExpansion.for_attempt(0, ("typed_circle",)))
    ids = [e.id for e in first.entities if e.reason not in LISTED_BY_OTHERS]
    assert "shapes.circle.typed_circle" in ids  # a line of its own
    second = ContextExpansion.for_attempt(1, ("Shape",))
    alone = injector.inject("`Kreis`", expansion=second)
    # without `keep`, at most listed again (the default lists it)
    assert "shapes.circle.typed_circle" not in {
        e.id for e in alone.entities if e.reason not in LISTED_BY_OTHERS
    }
    kept = injector.inject("`Kreis`", expansion=second, keep=[*ids, "gone.Entity"])
    # Its listed members are listed again as the room allows (the lines it keeps may
    # take the room of a file's list).
    assert set(ids) <= {e.id for e in kept.entities}
    assert "Shape" in names(kept)


def test_a_widening_writes_again_the_relation_lines_the_context_it_widens_wrote(
    store: SqliteGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no share of the widened budget left to relation lines, the facts given as
    ``relations`` (or the default's, when given) keep their lines; without, none has one."""
    injector = ContextInjector(store)
    task = "How does `Circle` compute its area with `Shape`?"
    first = injector.inject(task)
    lines = [line for line in first.text.splitlines() if " calls " in line]
    assert first.relations and lines  # "describe() calls Shape.area(), ..."
    monkeypatch.setattr(budget, "RELATION_SHARE", 0.0)
    expansion = ContextExpansion.for_attempt(0, ("area",))
    ids = [e.id for e in first.entities if e.reason not in LISTED_BY_OTHERS]
    assert not injector.inject(task, expansion=expansion, keep=ids).relations
    for wider in (
        injector.inject(task, expansion=expansion, keep=ids, relations=first.relations),
        injector.inject(task, expansion=expansion, default=first),
    ):
        assert set(first.relations) <= set(wider.relations)
        assert set(lines) <= set(wider.text.splitlines())


def test_a_widening_keeps_whole_the_lines_the_context_it_widens_wrote_whole(
    store: SqliteGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the member lists' share of the budget large, a second widening's kept
    entities go brief; given ``whole`` (those the first widening wrote whole), the lists
    give way and their lines stay whole, within the budget."""
    from citeloop.knowledge import selection

    monkeypatch.setattr(selection, "MEMBER_LIST_SHARE", 0.6)
    injector = ContextInjector(store, max_context_tokens=240)
    task = "How does `Circle` compute its area with `Shape`?"
    first = injector.inject(task)

    def kept(context):
        excerpts = dict(context.excerpts)
        return {
            e.id: list(excerpts.get(e.id, ()))
            for e in context.entities
            if e.id and e.reason not in LISTED_BY_OTHERS
        }

    wider = injector.inject(
        task, expansion=ContextExpansion.for_attempt(0, ("area",)), default=first, keep=kept(first)
    )
    # The first widening kept whole what the default wrote whole (its `brief` says which).
    assert not {i for i in kept(first) if i not in first.brief} & set(wider.brief)
    whole = [i for i in kept(wider) if i not in wider.brief]
    second = ContextExpansion.for_attempt(1, ("area", "label"))
    plain = injector.inject(task, expansion=second, keep=kept(wider))
    kept_whole = injector.inject(task, expansion=second, keep=kept(wider), whole=whole)
    assert set(whole) & set(plain.brief)  # without it, lines it wrote whole go brief
    assert not set(whole) & set(kept_whole.brief)
    assert kept_whole.tokens <= kept_whole.budget and plain.tokens <= plain.budget
    # `brief` names the entities whose line the text writes brief, in rank order.
    ranked = [e.id for e in kept_whole.entities]
    assert list(kept_whole.brief) == sorted(kept_whole.brief, key=ranked.index)


def crowded(tmp_path: Path, name: str) -> SqliteGraphStore:
    """The graph of a generated code base of tests/fixtures/crowded (its modules kept as
    ``.txt``, so that no linter reads them), indexed below ``tmp_path``."""
    root = tmp_path / "repo"
    for module in (Path(__file__).parents[1] / "fixtures" / "crowded" / name).rglob("*.txt"):
        target = root / module.parent.name / module.name.removesuffix(".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(module.read_text(encoding="utf-8"), encoding="utf-8")
    graph = SqliteGraphStore(tmp_path / "graph.db")
    index_tree(root, graph)
    return graph


def widen_kept(injector, task, before, attempt, lacking, **options):
    """The widening a graph asks for after ``before``: what it showed kept, its relation
    lines, listed members and whole lines given."""
    excerpts = dict(before.excerpts)
    keep = {
        e.id: list(excerpts.get(e.id, ()))
        for e in before.entities
        if e.reason not in LISTED_BY_OTHERS
    }
    listed = [e.id for e in before.entities if e.reason == "member"]
    whole = [i for i in keep if i not in before.brief]
    expansion = ContextExpansion.for_attempt(attempt, lacking, lacking)
    wider = injector.inject(
        task,
        expansion=expansion,
        keep=keep,
        relations=before.relations,
        listed=listed,
        whole=whole,
        **options,
    )
    return wider, whole


def test_a_widening_fits_its_budget_when_lines_filled_again_would_overflow(tmp_path: Path) -> None:
    """The member lists took less than their share, and the lines filled again with the
    rest took more than the whole budget (what enters anyway came after what the larger
    share let in): the widening keeps the first fill (an attack had found 306 tokens in a
    budget of 300)."""
    with crowded(tmp_path, "budget") as graph:
        injector = ContextInjector(graph, max_context_tokens=150)
        task = "How does `Klass0.method_1` compute the widget total?"
        first = injector.inject(task)
        lacking = ("method_18", "helper_1_3", "Klass0.method_3")
        wider, _ = widen_kept(injector, task, first, 0, lacking, default=first)
        assert first.tokens <= first.budget and wider.tokens <= wider.budget


def test_lines_filled_again_never_take_the_room_of_a_line_kept_whole(tmp_path: Path) -> None:
    """The second widening's lines, filled again with what the member lists left, had let
    more in ahead of the lines kept whole, and one went brief with room to spare (an
    attack's `Klass1.method_6(p0: int = 0, p1: int = 1)`)."""
    with crowded(tmp_path, "whole") as graph:
        injector = ContextInjector(graph, max_context_tokens=600)
        task = "How does `Klass2.method_3` compute the widget total?"
        first = injector.inject(task)
        asked = ("method_12", "method_7", "method_15", "method_6")
        wider, _ = widen_kept(injector, task, first, 0, asked, default=first)
        widest, whole = widen_kept(injector, task, wider, 1, ("method_11", "helper_0_0"))
        assert whole and not set(whole) & set(widest.brief)
        assert widest.tokens <= widest.budget


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("keep", "pkg.A", "got the str 'pkg.A'; wrap it: ['pkg.A']"),
        ("relations", "f-1", "got the str 'f-1'"),
        ("listed", None, "got NoneType"),
        ("relations", [1], "must hold str ids"),
        ("listed", ["m.x", None], "got None"),
        ("whole", "pkg.A", "got the str 'pkg.A'"),
        ("keep", {"pkg.A": 12}, "keep['pkg.A'] must be a collection of line numbers"),
        ("keep", {"pkg.A": "12"}, "must be a collection of line numbers"),
        ("keep", {"pkg.A": ["12"]}, "keep['pkg.A'] must hold int line numbers"),
    ],
)
def test_ids_that_are_no_collection_of_str_are_refused_by_name(
    store: SqliteGraphStore, option: str, value: object, says: str
) -> None:
    expansion = ContextExpansion.for_attempt(0)
    with pytest.raises(TypeError, match=re.escape(says)) as raised:
        ContextInjector(store).inject("`Circle`", expansion=expansion, **{option: value})
    assert str(raised.value).startswith(option)


def test_relations_without_a_widening_change_nothing(
    store: SqliteGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``relations`` applies to a widening only: a default context given them is the
    default, and the contexts kept for reuse stay so."""
    injector = ContextInjector(store)
    task = "How does `Circle` compute its area with `Shape`?"
    first = injector.inject(task)
    monkeypatch.setattr(budget, "RELATION_SHARE", 0.0)
    plain = ContextInjector(store)
    default = plain.inject(task)
    assert not default.relations
    assert plain.inject(task, relations=first.relations) == default
    assert plain.inject(task) == default


def test_a_widening_keeps_only_what_a_context_may_hold() -> None:
    """``keep`` is the caller's: a module or an unresolved name it holds is no entity
    of a context (it would read as a function, or a class), and a name of dots is none."""
    store = MemoryGraphStore(
        [
            Entity("p.m", EntityKind.MODULE, "m", "p/m.py", 1),
            Entity("p.m.A", EntityKind.CLASS, "A", "p/m.py", 1, "(Missing)", end_line=3),
            Entity("?Missing", EntityKind.CLASS, "Missing", resolved=False),
        ],
        [Fact("p.m.A", RelationKind.INHERITS, "?Missing")],
    )
    expansion = ContextExpansion(names=(".", "..", ""))
    context = ContextInjector(store).inject(
        "What is `A`?", expansion=expansion, keep=["p.m", "?Missing"]
    )
    assert [e.id for e in context.entities] == ["p.m.A"]
    with pytest.raises(ValueError, match="limit_multiplier"):
        ContextExpansion(limit_multiplier=10**7)


def test_widening_brings_in_the_method_an_answer_named_with_its_class() -> None:
    """``StateGraph.validate`` in an answer is that class's method, not every
    ``validate`` of the graph (nor none, as a name no entity has)."""
    entities = [
        Entity("g.StateGraph", EntityKind.CLASS, "StateGraph"),
        Entity("g.StateGraph.validate", EntityKind.METHOD, "validate"),
        Entity("p.Pregel", EntityKind.CLASS, "Pregel"),
        Entity("p.Pregel.validate", EntityKind.METHOD, "validate"),
    ]
    store = MemoryGraphStore(entities, [])
    injector = ContextInjector(store, hops=0, lexical_hits=0)
    expansion = ContextExpansion.for_attempt(0, ("StateGraph.validate",))
    wider = injector.inject("`Pregel`", expansion=expansion)
    named = [e.id for e in wider.entities if e.reason == "named"]
    assert named == ["g.StateGraph.validate"]


def _two_add_edges(*, paths: bool = True) -> ContextInjector:
    def entity(entity_id: str, kind: EntityKind) -> Entity:
        path = entity_id.split(".")[0] + ".py" if paths else None
        return Entity(entity_id, kind, entity_id.rpartition(".")[2], path=path)

    entities = [
        entity("g.StateGraph", EntityKind.CLASS),
        entity("g.StateGraph.add_edge", EntityKind.METHOD),
        entity("g.StateGraph.add_node", EntityKind.METHOD),
        entity("d.Drawer", EntityKind.CLASS),
        entity("d.Drawer.add_edge", EntityKind.METHOD),
        entity("d.render", EntityKind.FUNCTION),
        entity("g.StateGraph.compile", EntityKind.METHOD),
        entity("x.Other", EntityKind.CLASS),
        entity("x.branch", EntityKind.FUNCTION),
        entity("x.Other.__init__", EntityKind.METHOD),
        entity("g.StateGraph.__init__", EntityKind.METHOD),
    ]
    return ContextInjector(MemoryGraphStore(entities, []), hops=0, lexical_hits=0)


BOTH = ["d.Drawer.add_edge", "g.StateGraph.add_edge"]


@pytest.mark.parametrize(
    ("task", "paths", "meant"),
    [
        ("`StateGraph`", True, ["g.StateGraph.add_edge"]),  # a member of a class it saw
        ("`render`", True, ["d.Drawer.add_edge"]),  # defined in a file it saw
        ("`add_node`", False, ["g.StateGraph.add_edge"]),  # beside a member it saw
        ("`Other`", True, BOTH),  # beside nothing it saw: every one
    ],
)
def test_a_bare_name_an_answer_used_means_the_entity_beside_its_context(
    task: str, paths: bool, meant: list[str]
) -> None:
    """An answer that saw ``StateGraph`` and writes `add_edge` means that class's
    method; the same name beside nothing it saw brings every entity so named."""
    expansion = ContextExpansion.for_attempt(0, ("add_edge",))
    wider = _two_add_edges(paths=paths).inject(task, expansion=expansion)
    assert sorted(e.id for e in wider.entities if e.reason == "named") == meant


@pytest.mark.parametrize("lacking", [(), ("branch", "compile")])
def test_a_plain_word_an_answer_used_means_only_what_is_beside_its_context(lacking) -> None:
    """`compile` beside ``StateGraph`` is its method; `branch`, a parameter the answer
    saw, does not bring a function of that name from a file it did not see, even when
    the answer says it is not shown, nor from a file it saw unless it says so (a word of
    its prose: `value` had brought `Info.value` and `Param.value` from the file of the
    class it saw); `__init__` is that of a class it saw."""
    expansion = ContextExpansion.for_attempt(0, ("compile", "branch", "__init__"), lacking)
    wider = _two_add_edges().inject("`StateGraph`", expansion=expansion)
    named = sorted(e.id for e in wider.entities if e.reason == "named")
    assert named == ["g.StateGraph.__init__", "g.StateGraph.compile"]
    other = _two_add_edges().inject("`Other`", expansion=expansion)
    named = sorted(e.id for e in other.entities if e.reason == "named")
    assert named == ["x.Other.__init__", *(["x.branch"] if lacking else [])]
    # Beside nothing the answer saw, a plain word or a dunder brings nothing.
    alone = _two_add_edges().inject("`render`", expansion=expansion)
    assert not [e.id for e in alone.entities if e.reason == "named"]


def test_a_name_the_answer_says_the_context_lacks_brings_every_entity_so_named() -> None:
    """The context shows ``Drawer.add_edge``; an answer saying `add_edge` is not shown
    means another one: both come, as for a name beside nothing it saw."""
    injector = _two_add_edges()
    task = "How does `Drawer.add_edge` differ from the graph's?"
    used = injector.inject(task, expansion=ContextExpansion.for_attempt(0, ("add_edge",)))
    assert "g.StateGraph.add_edge" not in ids(used.entities)
    lacking = ContextExpansion.for_attempt(0, ("add_edge",), ("add_edge",))
    assert set(BOTH) <= set(ids(injector.inject(task, expansion=lacking).entities))


def test_a_name_lacking_beside_a_class_said_lacking_means_that_class_s_member() -> None:
    """An answer saying the context lacks `StateGraph` and "its `add_edge`" means that
    class's method, not every `add_edge`; a class it does not name lacking changes
    nothing."""
    injector = _two_add_edges()
    task = "How are edges added?"
    owned = ContextExpansion.for_attempt(0, ("StateGraph", "add_edge"), ("StateGraph", "add_edge"))
    named = [e.id for e in injector.inject(task, expansion=owned).entities if e.reason == "named"]
    assert "g.StateGraph.add_edge" in named and "d.Drawer.add_edge" not in named
    other = ContextExpansion.for_attempt(0, ("Other", "add_edge"), ("Other", "add_edge"))
    wider = injector.inject(task, expansion=other)
    assert set(BOTH) <= {e.id for e in wider.entities if e.reason == "named"}
    # A plain word too ("the `__init__` of the class `Other`"), though it would otherwise
    # mean only what is beside the context (``StateGraph``'s, here).
    plain = ContextExpansion.for_attempt(0, ("Other", "__init__"), ("Other", "__init__"))
    wider = injector.inject("`StateGraph`", expansion=plain)
    named = {e.id for e in wider.entities if e.reason == "named"}
    assert "x.Other.__init__" in named and "g.StateGraph.__init__" not in named


def test_a_name_lacking_beside_a_module_said_lacking_means_every_one_so_named() -> None:
    """An answer that saw both `check_ucd` functions and says it lacks `check_ucd` and a
    parameter `ucd` (the name of a module too) means both: a function of module ``ucd``
    is no member of a class it said lacking (a played widening had brought only that
    one, not the one the answer asked for by its file)."""
    entities = [
        Entity("v.ucd", EntityKind.MODULE, "ucd", path="v/ucd.py"),
        Entity("v.ucd.check_ucd", EntityKind.FUNCTION, "check_ucd", path="v/ucd.py"),
        Entity("v.tree", EntityKind.MODULE, "tree", path="v/tree.py"),
        Entity("v.tree.check_ucd", EntityKind.FUNCTION, "check_ucd", path="v/tree.py"),
    ]
    store = MemoryGraphStore(entities, [])
    finder = EntityFinder(store, batched(store), 0)
    saw = [e for e in entities if e.kind is EntityKind.FUNCTION]
    lacking = ("check_ucd", "ucd")
    found = finder.named(lacking, near_context(saw), lacking, {e.id for e in saw})
    assert sorted(e.id for e in found) == ["v.tree.check_ucd", "v.ucd.check_ucd"]


def test_a_name_lacking_in_a_file_the_answer_names_means_that_file_s() -> None:
    """An answer saying the body of `predict` in `sklearn/ensemble/_bagging.py` is not
    shown means that file's ``predict``, not every one near the context (a played
    widening had brought fifteen ``fit`` and ``predict`` methods of other estimators,
    and not the one asked for)."""
    bagging = "s/ensemble/_bagging.py"
    entities = [
        Entity("s.ensemble._bagging.Bagging", EntityKind.CLASS, "Bagging", path=bagging),
        Entity("s.ensemble._bagging.Bagging.predict", EntityKind.METHOD, "predict", path=bagging),
        Entity("s.dummy.Dummy", EntityKind.CLASS, "Dummy", path="s/dummy.py"),
        Entity("s.dummy.Dummy.predict", EntityKind.METHOD, "predict", path="s/dummy.py"),
        Entity("s.dummy.helper", EntityKind.FUNCTION, "helper", path="s/dummy.py"),
    ]
    store = MemoryGraphStore(entities, [])
    finder = EntityFinder(store, batched(store), 0)
    saw = [entities[4]]  # the context showed s/dummy.py: its `predict` is near it
    lacking = ("predict",)

    def named(*files: str) -> list[str]:
        found = finder.named(lacking, near_context(saw), lacking, {saw[0].id}, None, files)
        return sorted(e.id for e in found)

    assert named() == ["s.dummy.Dummy.predict"]
    for path in ("s/ensemble/_bagging.py", "_bagging.py", "ensemble/_bagging.py"):
        assert named(path) == ["s.ensemble._bagging.Bagging.predict"]
    assert named("other.py") == ["s.dummy.Dummy.predict"]
    # Through a widening of the injector, from the answer's words to its context.
    injector = ContextInjector(store, hops=0, lexical_hits=0)
    asked = ContextExpansion.for_attempt(0, lacking, lacking, files=("s/ensemble/_bagging.py",))
    wider = injector.inject("How does `helper` work?", expansion=asked)
    assert "s.ensemble._bagging.Bagging.predict" in ids(wider.entities)
    assert "s.dummy.Dummy.predict" not in ids(wider.entities)


def test_a_name_lacking_brings_no_example_script_variable_unless_shown_or_its_file_named():
    """`cluster_centers` said lacking was a local of the `fit` the answer read: a played
    widening had brought a gallery script's `cluster_centers = ms.cluster_centers_`."""
    script = "examples/cluster/plot_mean_shift.py"
    entities = [
        Entity("s.cluster.MeanShift", EntityKind.CLASS, "MeanShift", path="s/cluster.py"),
        Entity("ex.cluster_centers", EntityKind.ATTRIBUTE, "cluster_centers", path=script),
    ]
    store = MemoryGraphStore(entities, [])
    finder = EntityFinder(store, batched(store), 0)
    saw = [entities[0]]
    lacking = ("cluster_centers",)

    def named(seen: set[str], *files: str) -> list[str]:
        found = finder.named(lacking, near_context(saw), lacking, seen, None, files)
        return sorted(e.id for e in found)

    assert named({saw[0].id}) == []
    assert named({saw[0].id}, "plot_mean_shift.py") == ["ex.cluster_centers"]


def test_a_method_name_lacking_means_the_one_a_class_shown_inherits() -> None:
    """An answer that read a form class and lacks `is_valid` means the `is_valid` the
    form inherits, not a namesake defined in a file the context showed (a played
    widening had brought an admin inline form's nested ``is_valid``, not the
    ``BaseForm.is_valid`` the test's ``form.is_valid()`` calls). A method of a class
    shown still comes first; of bases that each define one, the nearest."""
    admin, forms = "d/admin/options.py", "d/forms/forms.py"
    entities = [
        Entity("t.CategoryForm", EntityKind.CLASS, "CategoryForm", path="t/tests.py"),
        Entity("d.forms.models.ModelForm", EntityKind.CLASS, "ModelForm", path="d/forms/m.py"),
        Entity("d.forms.forms.BaseForm", EntityKind.CLASS, "BaseForm", path=forms),
        Entity("d.forms.forms.BaseForm.is_valid", EntityKind.METHOD, "is_valid", path=forms),
        Entity("d.admin.options.Inline", EntityKind.CLASS, "Inline", path=admin),
        Entity("d.admin.options.Inline.is_valid", EntityKind.METHOD, "is_valid", path=admin),
        Entity("d.admin.options.check", EntityKind.FUNCTION, "check", path=admin),
        Entity("d.admin.options", EntityKind.MODULE, "options", path=admin),
    ]
    facts = [
        Fact("t.CategoryForm", RelationKind.INHERITS, "d.forms.models.ModelForm"),
        Fact("d.forms.models.ModelForm", RelationKind.INHERITS, "d.forms.forms.BaseForm"),
    ]

    def named(*saw: Entity, more: tuple[Entity, ...] = ()) -> list[str]:
        store = MemoryGraphStore([*entities, *more], facts)
        finder = EntityFinder(store, batched(store), 0)
        found = finder.named(("is_valid",), near_context(saw), ("is_valid",), {e.id for e in saw})
        return [e.id for e in found]

    # the admin file shown: its `is_valid` is near the context, the form's is inherited
    assert named(entities[0], entities[6]) == ["d.forms.forms.BaseForm.is_valid"]
    # without a class shown that inherits one, the one near the context
    assert named(entities[6]) == ["d.admin.options.Inline.is_valid"]
    # a class shown that defines its own: that one
    assert named(entities[0], entities[4]) == ["d.admin.options.Inline.is_valid"]
    # a module shown is no class: a function of it does not stand for a method
    function = Entity("d.admin.options.is_valid", EntityKind.FUNCTION, "is_valid", path=admin)
    assert named(entities[0], entities[7], more=(function,)) == ["d.forms.forms.BaseForm.is_valid"]
    # of bases that each define one, the nearest: what Python's method resolution finds
    nearer = Entity("d.forms.models.ModelForm.is_valid", EntityKind.METHOD, "is_valid")
    assert named(entities[0], entities[6], more=(nearer,)) == [nearer.id]


def test_a_short_name_lacking_brings_no_attribute_but_of_a_class_the_answer_read() -> None:
    """`X` in an answer's list of what it lacks (the parameter of a call it read) does
    not bring the module-level ``X = ...`` of an example script in a file the context
    showed (a played widening had brought three); a member `X` of a class it read
    still comes, and so does a class of a short name (django's `Q`)."""
    script, lib = "examples/plot_lof.py", "s/lof.py"
    entities = [
        Entity("examples.plot_lof.X", EntityKind.ATTRIBUTE, "X", path=script, line=40),
        Entity("examples.plot_lof.plot", EntityKind.FUNCTION, "plot", path=script, line=50),
        Entity("s.lof.LOF", EntityKind.CLASS, "LOF", path=lib, line=1),
        Entity("s.lof.LOF.X", EntityKind.ATTRIBUTE, "X", path=lib, line=3),
        Entity("s.lof.Q", EntityKind.CLASS, "Q", path=lib, line=9),
        Entity("s.lof.Q._combine", EntityKind.METHOD, "_combine", path=lib, line=10),
        Entity("s.lof.Other", EntityKind.CLASS, "Other", path=lib, line=20),
        Entity("s.lof.Other.X", EntityKind.METHOD, "X", path=lib, line=21),
    ]
    store = MemoryGraphStore(entities, [])
    finder = EntityFinder(store, batched(store), 0)

    def named(name: str, *saw: Entity, lacking: bool = True) -> list[str]:
        said = (name,) if lacking else ()
        found = finder.named((name,), near_context(saw), said, {e.id for e in saw})
        return [e.id for e in found]

    assert named("X", entities[1]) == []
    assert named("X", entities[1], entities[2]) == ["s.lof.LOF.X"]
    assert named("Q", entities[5]) == ["s.lof.Q"]
    # nor a method of a class it never read, in a file it read
    assert named("X", entities[5]) == []
    # used without saying the context lacks it: the same
    assert named("X", entities[1], entities[2], lacking=False) == ["s.lof.LOF.X"]


def test_a_special_attribute_python_gives_every_object_brings_no_namesake() -> None:
    """A played answer said `self.object.__name__` decides an alias, in a paragraph that
    said lines are left out: the widening brought a record's `ObjectMember.__name__` and
    a mock's `__name__`. Python's attribute, read alone or through a variable, brings
    none; the attribute of a class named with it still comes."""
    lib = "a/members.py"
    entities = [
        Entity("a.members.ObjectMember", EntityKind.CLASS, "ObjectMember", path=lib, line=1),
        Entity("a.members.ObjectMember.__name__", EntityKind.ATTRIBUTE, "__name__", lib, 3),
        Entity("a.members.Documenter", EntityKind.CLASS, "Documenter", path=lib, line=9),
        Entity("a.members.Documenter.objpath", EntityKind.ATTRIBUTE, "objpath", lib, 10),
    ]
    store = MemoryGraphStore(entities, [])
    finder = EntityFinder(store, batched(store), 0)
    saw = (entities[0], entities[2])

    def named(*names: str) -> list[str]:
        found = finder.named(names, near_context(saw), names, {e.id for e in saw})
        return [e.id for e in found]

    assert named("__name__", "self.object.__name__", "func.__doc__") == []
    assert named("__name__", "objpath") == ["a.members.Documenter.objpath"]
    assert named("ObjectMember.__name__") == ["a.members.ObjectMember.__name__"]


def test_a_name_on_self_means_the_member_of_a_class_the_answer_read() -> None:
    """`self._path`, said lacking beside the class the context showed, is that class's
    attribute (more of its source), not the namesakes of other packages as well (a
    played widening had brought four `_path` attributes of plotting and VOTable
    classes); `cls._path` likewise. A bare `_path` said lacking still means them all."""
    entities = [
        Entity("a.config.paths.Temp", EntityKind.CLASS, "Temp", path="a/config/paths.py"),
        Entity(
            "a.config.paths.Temp._path", EntityKind.ATTRIBUTE, "_path", path="a/config/paths.py"
        ),
        Entity("a.plot.frame.Frame", EntityKind.CLASS, "Frame", path="a/plot/frame.py"),
        Entity("a.plot.frame.Frame._path", EntityKind.ATTRIBUTE, "_path", path="a/plot/frame.py"),
        Entity("a.io.result.Result._path", EntityKind.ATTRIBUTE, "_path", path="a/io/result.py"),
    ]
    store = MemoryGraphStore(entities, [])
    finder = EntityFinder(store, batched(store), 0)
    saw = entities[:2]

    def named(name: str) -> list[str]:
        found = finder.named((name,), near_context(saw), (name,), {e.id for e in saw})
        return sorted(e.id for e in found)

    assert named("self._path") == named("cls._path") == ["a.config.paths.Temp._path"]
    assert len(named("_path")) == 3


def test_a_name_lacking_means_the_one_in_a_file_the_context_showed_when_it_was_not_shown() -> None:
    """The context shows ``render`` of ``d.py``; an answer saying `add_edge` is not shown
    means the one defined in that file, not every `add_edge`; when the context showed
    that one, it means the others (see the test above)."""
    lacking = ContextExpansion.for_attempt(0, ("add_edge",), ("add_edge",))
    wider = _two_add_edges().inject("`render`", expansion=lacking)
    assert [e.id for e in wider.entities if e.reason == "named"] == ["d.Drawer.add_edge"]


def test_a_function_lacking_whose_line_the_context_showed_means_its_body() -> None:
    """`ASTType.get_id` said lacking, of two domains' ``ASTType`` classes: the context
    showed the C++ one's line without its source, so its body is meant (a played
    widening had brought the C domain's instead); once its source was shown, the other."""
    entities = [
        Entity(f"{d}.ASTType{m}", kind, name, path=f"{d}/ast.py", line=line, end_line=line + 9)
        for d in ("c", "cpp")
        for m, kind, name, line in (
            ("", EntityKind.CLASS, "ASTType", 1),
            (".get_id", EntityKind.METHOD, "get_id", 3),
        )
    ]
    store = MemoryGraphStore(entities, [])
    finder = EntityFinder(store, batched(store), 0)
    saw = [entities[0], entities[2], entities[3]]  # both classes, the C++ get_id's line
    name = ("ASTType.get_id",)

    def named(sourced: set[str]) -> list[str]:
        seen = {e.id for e in saw}
        found = finder.named(name, near_context(saw), name, seen, None, (), sourced)
        return [e.id for e in found]

    assert named(set()) == ["cpp.ASTType.get_id"]
    assert named({"cpp.ASTType.get_id"}) == ["c.ASTType.get_id"]


@pytest.mark.parametrize("held", [2, 0])
def test_a_bare_name_lacking_of_many_namesakes_means_those_of_the_classes_held(held) -> None:
    """`get_id` said lacking beside a file of twelve classes that each define one: the
    ``get_id`` of the classes the context holds, not twelve (a played widening had
    brought 90); beside no class that has one, every one of the file (more than
    MAX_LACKING_NAMESAKES)."""
    entities = _entities(
        ("f.helper", EntityKind.FUNCTION),
        *((f"f.K{n}", EntityKind.CLASS) for n in range(12)),
        *((f"f.K{n}.get_id", EntityKind.METHOD) for n in range(12)),
    )
    store = MemoryGraphStore(entities, [])
    finder = EntityFinder(store, batched(store), 0)
    saw = entities[: 1 + held]  # f.helper, and the first `held` classes
    found = finder.named(("get_id",), near_context(saw), ("get_id",), {e.id for e in saw})
    every = [f"f.K{n}.get_id" for n in range(12)]
    assert len(every) > MAX_LACKING_NAMESAKES
    assert sorted(e.id for e in found) == (sorted(every[:held]) if held else sorted(every))


def _entities(*specs: tuple[str, EntityKind]) -> list[Entity]:
    return [
        Entity(i, kind, i.rpartition(".")[2], path=i.split(".")[0] + ".py", line=1, end_line=2)
        for i, kind in specs
    ]


def test_a_plain_or_short_name_means_the_one_the_context_held() -> None:
    """The context held ``A.fit``; `fit` in the answer is that one, not ``B.fit`` of the
    same file, and so is `fit.transform`, which names `fit`. A name of fewer than
    MIN_NAME_CHARS characters (`X`) is read as a plain word: beside nothing the answer
    saw, it brings nothing, even said lacking. (Said lacking, `fit` means every one
    beside the context: another one, or the body of the one it saw.)"""
    entities = _entities(
        ("g.A", EntityKind.CLASS),
        ("g.A.fit", EntityKind.METHOD),
        ("g.B", EntityKind.CLASS),
        ("g.B.fit", EntityKind.METHOD),
        ("e.X", EntityKind.ATTRIBUTE),
    )
    injector = ContextInjector(MemoryGraphStore(entities, []), hops=0, lexical_hits=0)
    for names_used, lacking in [
        (("fit",), ()),
        (("fit.transform",), ()),
        (("fit", "X"), ("X",)),
    ]:
        expansion = ContextExpansion.for_attempt(0, names_used, lacking)
        wider = injector.inject("`A`", expansion=expansion, keep=["g.A.fit"])
        assert [e.id for e in wider.entities if e.reason == "named"] == ["g.A.fit"], names_used


def _in_modules(*specs: tuple[str, EntityKind]) -> list[Entity]:
    """Entities of ids ``pkg.package.module....``, each in its module's file."""
    return [
        Entity(i, kind, i.rpartition(".")[2], path="/".join(i.split(".")[:3]) + ".py")
        for i, kind in specs
    ]


@pytest.mark.parametrize(
    ("core", "meant"),
    [
        ("pkg.cosmo.core.Cosmology", ["pkg.cosmo.io.table.from_table"]),
        ("pkg.other.Thing", ["pkg.cosmo.io.table.from_table", "pkg.votable.tree.T.from_table"]),
    ],
)
def test_a_name_lacking_beside_nothing_seen_means_those_of_the_nearest_package(core, meant) -> None:
    """None of the `from_table`s is near a context in ``pkg.cosmo``: the one defined
    deepest in its package is meant, not the VOTable one; beside a context that shares
    only the top package with them, every one."""
    entities = _in_modules(
        ("pkg.cosmo.core.Cosmology", EntityKind.CLASS),
        ("pkg.cosmo.io.table.from_table", EntityKind.FUNCTION),
        ("pkg.votable.tree.T", EntityKind.CLASS),
        ("pkg.votable.tree.T.from_table", EntityKind.METHOD),
        ("pkg.other.Thing", EntityKind.CLASS),
    )
    injector = ContextInjector(MemoryGraphStore(entities, []), hops=0, lexical_hits=0)
    name = core.rpartition(".")[2]
    expansion = ContextExpansion.for_attempt(0, ("from_table",), ("from_table",))
    wider = injector.inject(f"`{name}`", expansion=expansion)
    assert sorted(e.id for e in wider.entities if e.reason == "named") == meant


@pytest.mark.parametrize("tied", [True, False])
def test_a_name_lacking_beside_nothing_seen_means_the_one_a_fact_ties_to_the_context(
    tied: bool,
) -> None:
    """`UnitsError` said lacking, defined in two packages the context shares with it: the
    one `Quantity.to_float` catches (a ``references`` fact) is meant, not the coordinates
    package's namesake; without that fact, both (a played widening had brought both)."""
    entities = _in_modules(
        ("pkg.units.quantity.Quantity", EntityKind.CLASS),
        ("pkg.units.quantity.Quantity.to_float", EntityKind.METHOD),
        ("pkg.units.errors.UnitsError", EntityKind.CLASS),
        ("pkg.coords.errors.UnitsError", EntityKind.CLASS),
        ("pkg.coords.frame.Frame", EntityKind.CLASS),
    )
    facts = [
        Fact("pkg.units.quantity.Quantity", RelationKind.DEFINES, entities[1].id),
        *([Fact(entities[1].id, RelationKind.REFERENCES, entities[2].id)] if tied else []),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, facts), hops=0, lexical_hits=0)
    expansion = ContextExpansion.for_attempt(0, ("UnitsError",), ("UnitsError",))
    keep = [entities[1].id]
    wider = injector.inject("`Quantity` and `Frame`", expansion=expansion, keep=keep)
    named = sorted(e.id for e in wider.entities if e.reason == "named")
    both = ["pkg.coords.errors.UnitsError", "pkg.units.errors.UnitsError"]
    assert named == (["pkg.units.errors.UnitsError"] if tied else both)


def test_the_members_of_a_class_said_lacking_come_before_what_the_context_kept() -> None:
    """ "The test methods of `Mixin` are not shown": the widening offers the class's best
    members (MEMBERS_ASKED) before the entities the context it widens held and the 40
    other names the answer used, so they enter although those fill the budget; `Mixin`
    said lacking without its members brings none of them here."""
    specs = [("t.Mixin", EntityKind.CLASS)]
    specs += [(f"t.Mixin.test_{i}", EntityKind.METHOD) for i in range(MEMBERS_ASKED + 3)]
    specs += [(f"k.kept_{i}", EntityKind.FUNCTION) for i in range(20)]
    specs += [(f"o.other_{i}", EntityKind.FUNCTION) for i in range(40)]
    doc = "Keeps a record of what the context held, with a summary long enough to count."
    entities = [
        dataclasses.replace(e, signature="(first, second, third)", docstring=doc)
        if e.id.startswith("k.")
        else e
        for e in _entities(*specs)
    ]
    facts = [Fact("t.Mixin", RelationKind.DEFINES, i) for i, _ in specs if i.startswith("t.Mixin.")]
    store = MemoryGraphStore(entities, facts)
    injector = ContextInjector(store, lexical_hits=0, max_context_tokens=200)
    kept = [i for i, _ in specs if i.startswith("k.")]
    names_used = ("Mixin", *(f"other_{i}" for i in range(40)))

    def members(asked: tuple[str, ...]) -> list[str]:
        expansion = ContextExpansion.for_attempt(0, names_used, ("Mixin",), members=asked)
        wider = injector.inject("How is it tested?", expansion=expansion, keep=kept)
        assert set(kept) <= set(ids(wider.entities))  # the kept ones still enter
        assert wider.tokens <= wider.budget
        # those with a line (the rest of the class is listed under its line)
        return [
            e.id for e in wider.entities if e.id.startswith("t.Mixin.") and e.reason != "member"
        ]

    assert len(members(("Mixin",))) == MEMBERS_ASKED
    assert members(()) == []


def test_a_nested_definition_ranks_below_its_module_level_peer_unless_named() -> None:
    """Two callees of what the task names, alike but for where they are defined: the
    closure (``run.helper``) ranks below the module-level function; named, it does not."""
    entities = _entities(
        ("m.run", EntityKind.FUNCTION),
        ("m.run.helper", EntityKind.FUNCTION),
        ("m.tool", EntityKind.FUNCTION),
    )
    facts = [
        Fact("m.run", RelationKind.CALLS, "m.run.helper"),
        Fact("m.run", RelationKind.CALLS, "m.tool"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, facts), lexical_hits=0)
    scores = {e.id: e.score for e in injector.inject("How does `run` work?").entities}
    assert scores["m.run.helper"] < scores["m.tool"]
    scores = {e.id: e.score for e in injector.inject("How do `run` and `helper` work?").entities}
    assert scores["m.run.helper"] >= scores["m.tool"]


def test_a_variable_of_an_example_script_is_never_core() -> None:
    """ "The `sample_weight` parameter" names no ``sample_weight = ...`` of a gallery
    script, nor a class attribute of one; a function of one, named, is core."""
    entities = [
        Entity("sk.pipeline.Pipeline.fit", EntityKind.METHOD, "fit", "sk/pipeline.py", 10),
        Entity("examples.a.plot_w.sample_weight", EntityKind.ATTRIBUTE, "sample_weight",
               "examples/a/plot_w.py", 3),
        Entity("examples.b.Meta.sample_weight", EntityKind.ATTRIBUTE, "sample_weight",
               "examples/b.py", 9),
        Entity("galleries.demo.plot_digits", EntityKind.FUNCTION, "plot_digits",
               "galleries/demo.py", 4),
        Entity("sk.weights.sample_weight", EntityKind.ATTRIBUTE, "sample_weight",
               "sk/weights.py", 2),
    ]  # fmt: skip
    injector = ContextInjector(MemoryGraphStore(entities[:4], []))
    assert injector.seeds("Why is the `sample_weight` parameter rejected by `fit`?") == [
        entities[0]
    ]
    assert [e.id for e in injector.seeds("What does `plot_digits` show?")] == [entities[3].id]
    # The library's own variable of that name is core.
    library = ContextInjector(MemoryGraphStore(entities, []))
    assert [e.id for e in library.seeds("Where is `sample_weight` set?")] == [entities[4].id]


def test_a_variable_of_test_code_is_core_only_when_the_task_is_about_tests() -> None:
    """A played retry asked to cite `sklearn/tests/...: sample_weight = rng.rand(N)` for
    "the sample_weight parameter"; a task about tests may still name one."""
    entities = [
        Entity("sk.pipeline.Pipeline.fit", EntityKind.METHOD, "fit", "sk/pipeline.py", 10),
        Entity("sk.tests.test_meta.sample_weight", EntityKind.ATTRIBUTE, "sample_weight",
               "sk/tests/test_meta.py", 89),
    ]  # fmt: skip
    injector = ContextInjector(MemoryGraphStore(entities, []))
    task = "Why is the `sample_weight` parameter rejected by `fit`?"
    assert injector.seeds(task) == [entities[0]]
    about_tests = "Which tests set the module variable `sample_weight`?"
    assert [e.id for e in injector.seeds(about_tests)] == [entities[1].id]


def test_a_name_written_as_a_parameter_is_no_other_class_attribute() -> None:
    """ "The `response_method` parameter" named the attribute another class stores its own
    parameter in, and a played retry asked to cite it; the attribute of a class the task
    names is still meant ("the `copy` parameter of `Scaler`")."""
    entities = [
        Entity("sk.plot.validate_values", EntityKind.FUNCTION, "validate_values", "sk/plot.py", 3),
        Entity("sk.threshold.BaseThreshold", EntityKind.CLASS, "BaseThreshold",
               "sk/threshold.py", 10),
        Entity("sk.threshold.BaseThreshold.response_method", EntityKind.ATTRIBUTE,
               "response_method", "sk/threshold.py", 20),
    ]  # fmt: skip
    injector = ContextInjector(MemoryGraphStore(entities, []))
    task = "How does the `response_method` parameter's 'auto' fall back in `validate_values`?"
    assert injector.seeds(task) == [entities[0]]
    named = "What does the argument `response_method` of `BaseThreshold` choose?"
    assert [e.id for e in injector.seeds(named)] == [entities[2].id, entities[1].id]
    assert [e.id for e in injector.seeds("Where is `response_method` set?")] == [entities[2].id]
    # Written bare in prose, a name with an underscore is the attribute of a class only
    # when a word of the task, or the other code it names, hints at that class.
    assert injector.seeds("How is response_method validated?") == []
    hinted = "How does the threshold class store response_method for `validate_values`?"
    assert [e.id for e in injector.seeds(hinted)] == [entities[2].id, entities[0].id]
    # In quotes too: "the 'fill_value' argument in the _getitem_with_mask method" had
    # made an aligner's `fill_value` attribute core, and a played retry asked to cite it.
    quoted = "What does the 'response_method' argument mean in `validate_values`?"
    assert injector.seeds(quoted) == [entities[0]]


def _namesakes_beside_a_test_class() -> list[Entity]:
    return [
        Entity("sk.decomposition.PCA", EntityKind.CLASS, "PCA", "sk/decomposition.py", 1),
        Entity("sk.decomposition.PCA.inverse_transform", EntityKind.METHOD,
               "inverse_transform", "sk/decomposition.py", 5),
        Entity("sk.tests.test_pipeline.Transf", EntityKind.CLASS, "Transf",
               "sk/tests/test_pipeline.py", 10),
        Entity("sk.tests.test_pipeline.Transf.inverse_transform", EntityKind.METHOD,
               "inverse_transform", "sk/tests/test_pipeline.py", 12),
        Entity("sk.tests.test_pipeline.NoInvTransf", EntityKind.CLASS, "NoInvTransf",
               "sk/tests/test_pipeline.py", 20),
        Entity("sk.tests.test_target.Dummy", EntityKind.CLASS, "Dummy",
               "sk/tests/test_target.py", 1),
        Entity("sk.tests.test_target.Dummy.inverse_transform", EntityKind.METHOD,
               "inverse_transform", "sk/tests/test_target.py", 3),
    ]  # fmt: skip


def test_a_namesake_in_the_file_of_a_name_the_task_gives_is_the_one_meant() -> None:
    """`inverse_transform` beside `NoInvTransf`, which a test file defines, is that
    file's (a played question about a test class's `transform` and `inverse_transform`
    had made three library classes' methods core)."""
    injector = ContextInjector(MemoryGraphStore(_namesakes_beside_a_test_class(), []))
    task = "How does `inverse_transform` behave when a class inherits from `NoInvTransf`?"
    assert [e.id for e in injector.seeds(task)] == [
        "sk.tests.test_pipeline.Transf.inverse_transform",
        "sk.tests.test_pipeline.NoInvTransf",
    ]
    alone = "How does `inverse_transform` undo `PCA`?"
    assert next(e.id for e in injector.seeds(alone)) == "sk.decomposition.PCA.inverse_transform"


def test_a_namesake_a_named_class_inherits_is_the_one_meant() -> None:
    """A task about `NuSVC` and `predict_proba` means the `predict_proba` that `NuSVC`
    inherits (from ``BaseSVC``, two levels up), not a calibration class's (a played
    retry had asked for citations of two discriminant-analysis methods)."""
    entities = [
        Entity("sk.svm._classes.NuSVC", EntityKind.CLASS, "NuSVC", "sk/svm/_classes.py", 1),
        Entity("sk.svm._base.BaseSVC", EntityKind.CLASS, "BaseSVC", "sk/svm/_base.py", 1),
        Entity("sk.svm._base.BaseLibSVM", EntityKind.CLASS, "BaseLibSVM", "sk/svm/_base.py", 90),
        Entity("sk.svm._base.BaseLibSVM.predict_proba", EntityKind.METHOD, "predict_proba",
               "sk/svm/_base.py", 95),
        Entity("sk.calibration.Calibrated", EntityKind.CLASS, "Calibrated", "sk/calibration.py", 1),
        Entity("sk.calibration.Calibrated.predict_proba", EntityKind.METHOD, "predict_proba",
               "sk/calibration.py", 5),
    ]  # fmt: skip
    facts = [
        Fact("sk.svm._classes.NuSVC", RelationKind.INHERITS, "sk.svm._base.BaseSVC"),
        Fact("sk.svm._base.BaseSVC", RelationKind.INHERITS, "sk.svm._base.BaseLibSVM"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, facts))
    task = "How does `NuSVC` compute `predict_proba`?"
    assert [e.id for e in injector.seeds(task)] == [
        "sk.svm._classes.NuSVC",
        "sk.svm._base.BaseLibSVM.predict_proba",
    ]


def test_a_widening_keeps_the_core_of_the_task() -> None:
    """A widening follows tests; the task's core stays what the first context's was (a
    played retry had asked for citations of two test classes' `inverse_transform` that
    its first context never held)."""
    injector = ContextInjector(MemoryGraphStore(_namesakes_beside_a_test_class(), []))
    task = "How is `inverse_transform` used?"
    first = [e.id for e in injector.inject(task).core]
    wider = injector.inject(task, expansion=ContextExpansion.for_attempt(1))
    assert first == ["sk.decomposition.PCA.inverse_transform"]
    assert [e.id for e in wider.core] == first


def test_example_paths() -> None:
    assert is_example_path("examples/linear_model/plot_sgd.py")
    assert is_example_path("galleries/examples/lines/plot.py") and is_example_path("doc/conf.py")
    assert not is_example_path("sklearn/linear_model/_base.py")
    assert not is_example_path("examples.py") and not is_example_path(None)
    assert is_example_path("asv_bench/benchmarks/rolling.py")
    assert is_example_path("benchmarks/bench_loop.py")
    assert not is_example_path("benchmarks.py")
    # below the top, a folder so named may be the library (HELM's)
    assert not is_example_path("src/helm/benchmark/runner.py")


def test_a_benchmark_suite_s_namesake_is_not_the_class_the_task_names() -> None:
    """A played question about xarray's `Rolling` was shown `Rolling.time_rolling_np`,
    a method of the benchmark suite's own `Rolling` class."""
    entities = [
        Entity(
            "asv_bench.benchmarks.rolling.Rolling",
            EntityKind.CLASS,
            "Rolling",
            "asv_bench/benchmarks/rolling.py",
            20,
        ),
        Entity("xr.rolling.Rolling", EntityKind.CLASS, "Rolling", "xr/rolling.py", 92),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    seeds = [e.id for e in injector.seeds("How does `Rolling` keep its windows?")]
    assert seeds[0] == "xr.rolling.Rolling"


def test_tests_only_with_tested_by(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store)
    default = injector.inject("Circle.label")
    assert not any(e.kind is EntityKind.TEST for e in default.entities)
    wider = injector.inject("Circle.label", expansion=ContextExpansion(include_tested_by=True))
    assert "test_label" in names(wider, Tier.SUPPORTING)
    assert any(line.startswith("TestCircle.test_label()") for line in wider.text.splitlines())
    by_type = injector.inject("Circle.label", task_type="test")
    assert {e.id for e in by_type.entities if e.kind is EntityKind.TEST} == {
        e.id for e in wider.entities if e.kind is EntityKind.TEST
    }


def test_a_test_class_the_task_names_brings_its_tests(store: SqliteGraphStore) -> None:
    """A task that names a test class is about its tests: they enter with what they call,
    as with ``tested_by`` followed; a task naming library code still gets no test."""
    context = ContextInjector(store).inject("What does `TestCircle` check?")
    assert "test_label" in {e.name for e in context.entities if e.kind is EntityKind.TEST}
    assert "test_label() calls Circle(), label()" in context.text.splitlines()


def test_an_override_has_a_line_beside_the_call_it_redirects(store: SqliteGraphStore) -> None:
    """``Shape.describe`` calls ``self.area()``, resolved to ``Shape.area``; on a
    ``Circle`` that call runs ``Circle.area``, and the context says so in a line the
    text's parser reads both sides of."""
    context = ContextInjector(store).inject("How does `Circle` compute its area with `Shape`?")
    lines = context.text.splitlines()
    assert "Circle.area() overrides Shape.area()" in lines
    assert "describe() calls Shape.area(), format_area(), _cache_key()" in lines
    parsed = {entity.name: entity.kind for entity in parse_context_entities(context.text)}
    assert {"Circle": "class", "Shape": "class", "area": "method"}.items() <= parsed.items()
    fact = Fact("m.B.size", RelationKind.OVERRIDES, "m.A.size")
    property_line = relation_line(fact, "B.size", ["A.size"], EntityKind.ATTRIBUTE)
    assert property_line == "B.size overrides A.size"
    assert [e.name for e in parse_context_entities(property_line)] == ["B", "size", "A"]


def test_a_kept_entity_no_walk_reached_says_what_its_calls_line_leaves_out() -> None:
    """A widened context keeps ``caller``, which no walk reached (the walk read its call
    of ``f0`` from ``f0``'s side): its calls line still names what it leaves out (a kept
    ``fetch_openml() calls check_pandas_support()`` had read as all it calls)."""
    entities = [
        Entity("m.Hub", EntityKind.CLASS, "Hub"),
        Entity("m.f0", EntityKind.FUNCTION, "f0"),
        Entity("far.caller", EntityKind.FUNCTION, "caller"),
        *(Entity(f"far.g{i}", EntityKind.FUNCTION, f"g{i}") for i in range(1, 6)),
    ]
    facts = [
        Fact("far.caller", RelationKind.CALLS, "m.f0"),
        *(Fact("far.caller", RelationKind.CALLS, f"far.g{i}") for i in range(1, 6)),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, facts), max_context_tokens=60, hops=0)
    task = "How do `Hub` and `f0` work?"
    widening = ContextExpansion(limit_multiplier=2)
    wider = injector.inject(task, expansion=widening, keep=["far.caller"])
    assert "caller() calls f0(); not shown: g1() and 4 more" in wider.text.splitlines()
    assert wider.tokens <= wider.budget


def test_a_calls_line_counts_callees_the_walk_did_not_add() -> None:
    """The walk reads ``caller``'s calls but adds none of its callees (no hop left, or
    the candidates full): its line still says what it leaves out (a widened
    ``field() calls _cache_field()`` had read as all it calls)."""
    entities = [
        Entity("m.caller", EntityKind.FUNCTION, "caller"),
        Entity("m.f0", EntityKind.FUNCTION, "f0"),
        *(Entity(f"far.g{i}", EntityKind.FUNCTION, f"g{i}") for i in range(1, 4)),
    ]
    facts = [
        Fact("m.caller", RelationKind.CALLS, "m.f0"),
        *(Fact("m.caller", RelationKind.CALLS, f"far.g{i}") for i in range(1, 4)),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, facts), hops=0, lexical_hits=0)
    context = injector.inject("How does `caller` use `f0`?")
    assert "caller() calls f0(); not shown: g1() and 2 more" in context.text.splitlines()


def test_a_calls_line_counts_the_unresolved_calls_the_graph_may_hold() -> None:
    """``caller`` also calls ``loader.load_consumer(...)`` on an untyped ``loader``: the
    call is unresolved, but the graph has a ``load_consumer``, so the line does not read
    as all it calls (a judge found ``_load_root_consumer_conanfile() calls ...`` without
    the ``load_consumer`` the question was about). A builtin's call, or one the graph
    has no code of that name for (only another unresolved call's), is no such call."""
    entities = [
        Entity("m.caller", EntityKind.FUNCTION, "caller"),
        Entity("m.f0", EntityKind.FUNCTION, "f0"),
        Entity("m.Loader", EntityKind.CLASS, "Loader"),
        Entity("m.Loader.load_consumer", EntityKind.METHOD, "load_consumer"),
        *(
            Entity(f"?{name}", EntityKind.FUNCTION, name, resolved=False)
            for name in ("loader.load_consumer", "len", "loader.fetch_more", "fetch_more")
        ),
    ]
    facts = [
        Fact("m.caller", RelationKind.CALLS, "m.f0"),
        Fact("m.Loader", RelationKind.DEFINES, "m.Loader.load_consumer"),
        *(
            Fact("m.caller", RelationKind.CALLS, f"?{name}")
            for name in ("loader.load_consumer", "len", "loader.fetch_more")
        ),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, facts), hops=1, lexical_hits=0)
    lines = injector.inject("How does `caller` use `f0`?").text.splitlines()
    assert "caller() calls f0(); not shown: loader.load_consumer()" in lines


def test_requirement_closure(store: SqliteGraphStore) -> None:
    injector = ContextInjector(store, hops=0)
    default = injector.inject("REQ-003-001")
    assert "shapes.circle.Circle.area" not in ids(default.entities)
    assert "area() L10" in default.text  # Shape's, listed under its line
    closed = injector.inject(
        "REQ-003-001", expansion=ContextExpansion(include_requirement_closure=True)
    )
    # Circle.area traces to REQ-003-001; Circle comes as its owner.
    assert {"shapes.circle.Circle.area", "shapes.circle.Circle"} <= set(ids(closed.entities))
    assert next(e for e in closed.entities if e.id == "shapes.circle.Circle").reason == "owner"


def test_hops() -> None:
    words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"]
    entities = [Entity(f"m.{word}", EntityKind.CLASS, word) for word in words]
    facts = [Fact(f"m.{a}", RelationKind.CALLS, f"m.{b}") for a, b in itertools.pairwise(words)]
    injector = ContextInjector(MemoryGraphStore(entities, facts), hops=1)
    assert names(injector.inject("`Alpha`")) == {"Alpha", "Bravo"}
    widened = injector.inject("`Alpha`", expansion=ContextExpansion(extra_hops=2))
    assert names(widened) == {"Alpha", "Bravo", "Charlie", "Delta"}
    assert "Bravo() calls Charlie()" in widened.text.splitlines()


def test_max_entities_caps_the_default_context() -> None:
    words = [f"Node{letter}" for letter in "ABCDEFGHIJ"]
    entities = [Entity(f"m.{word}", EntityKind.CLASS, word) for word in words]
    facts = [Fact(f"m.{a}", RelationKind.CALLS, f"m.{b}") for a, b in itertools.pairwise(words)]
    injector = ContextInjector(MemoryGraphStore(entities, facts), hops=10, max_entities=4)
    task = " ".join(words[::2])
    context = injector.inject(task)
    assert len(context.entities) == len(context.core) == 4
    wider = injector.inject(task, expansion=ContextExpansion(limit_multiplier=2))
    assert len(wider.entities) == 8
    assert set(ids(wider.core)) == set(ids(context.core))


@pytest.mark.parametrize(
    "settings",
    [
        {"hops": -1},
        {"max_entities": 0},
        {"max_context_tokens": 0},
        {"max_context_tokens": 10**310},  # a float budget would overflow
        {"lexical_hits": -1},
        # Not ints: named, not a TypeError from a comparison.
        {"hops": "2"},
        {"hops": 1.5},
        {"max_entities": "40"},
        {"max_context_tokens": None},
        {"lexical_hits": True},
        {"count_tokens": 5},
    ],
)
def test_bad_settings(settings: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError, match=next(iter(settings))):
        ContextInjector(MemoryGraphStore([], []), **settings)


@pytest.mark.parametrize(
    "settings",
    [
        {"hops": -1},
        {"max_entities": 0},
        {"max_context_tokens": 0},
        {"excerpt_share": 2},
        # A counter that cannot count had raised a TypeError from deep in the budget.
        {"count_tokens": None},
    ],
)
def test_a_setting_changed_out_of_range_is_refused_by_the_next_inject(
    settings: dict[str, object],
) -> None:
    """The settings are attributes a caller may change between calls: a budget set to 0
    had given a context of budget 0, and `max_entities = 0` no cap at all."""
    injector = ContextInjector(MemoryGraphStore([Entity("m.f", EntityKind.FUNCTION, "f")], []))
    for name, value in settings.items():
        setattr(injector, name, value)
    with pytest.raises(ConfigurationError, match=next(iter(settings))):
        injector.inject("What does `f` do?")


def test_lexical_hits_changed_between_calls_bound_the_next_context() -> None:
    """`lexical_hits` set after construction had changed nothing (the finder kept the
    first value), and a reused context had not been told apart by it."""
    found = [
        Entity(f"m.parse_config_{i}", EntityKind.FUNCTION, f"parse_config_{i}") for i in range(4)
    ]
    injector = ContextInjector(MemoryGraphStore(found, []), hops=0)
    task = "How does it parse the config?"
    assert len(injector.inject(task).entities) == 4
    injector.lexical_hits = 1
    assert len(injector.inject(task).entities) == 1
    injector.lexical_hits = 0
    assert injector.inject(task).entities == ()


def test_the_store_cannot_be_replaced_after_construction() -> None:
    """The injector's reads, finder and reused contexts are of the store it was built
    with: a store set since had been read for the source lines alone, the graph still
    read from the first one."""
    first = MemoryGraphStore([Entity("m.f", EntityKind.FUNCTION, "f")], [])
    injector = ContextInjector(first)
    with pytest.raises(AttributeError, match="store"):
        injector.store = MemoryGraphStore([], [])  # type: ignore[misc]
    assert injector.store is first
    assert [e.name for e in injector.inject("What does `f` do?").core] == ["f"]


@pytest.mark.parametrize("store", ["graph.db", Path("graph.db"), None])
def test_a_path_or_nothing_for_a_store_is_refused_with_the_fix(store: object) -> None:
    """``ContextInjector("graph.db")`` is a natural mistake: the error says to open it."""
    with pytest.raises(ConfigurationError, match=r"store must be a graph store.*SqliteGraphStore"):
        ContextInjector(store)  # type: ignore[arg-type]


def test_integer_settings_of_any_integral_type_are_taken() -> None:
    import numpy as np

    injector = ContextInjector(MemoryGraphStore([], []), hops=np.int64(3), max_entities=np.int32(5))
    assert (injector.hops, injector.max_entities) == (3, 5)
    assert type(injector.hops) is int


# -- what the context says ------------------------------------------------------------


def test_decisions_section(store: SqliteGraphStore) -> None:
    context = ContextInjector(store).inject("Revisit ADR-0001")
    lines = context.text.splitlines()
    heading = lines.index(DECISIONS_HEADING)
    assert lines[heading + 1] == "  ADR-0001: Use circles for round shapes"
    assert {"Shape", "Circle", "format_area"} <= names(context, Tier.SUPPORTING)


def test_text_lines_and_entities_match(store: SqliteGraphStore) -> None:
    context = ContextInjector(store, hops=2).inject(
        "Circle, Shape.describe, REQ-001-002 and ADR-0001",
        expansion=ContextExpansion.for_attempt(1),
    )
    lines = context.text.splitlines()
    for line in lines:
        assert any(shape.fullmatch(line) for shape in LINE_SHAPES), line
    assert lines[0] in ("# shapes/base.py", "# shapes/circle.py")
    assert "class Circle(Shape)  # L8-18" in lines
    assert "class Shape  # L4-17 — A geometric shape." in lines
    assert "def format_area(value)  # L20-21" in lines
    assert "Shape._cache_key()  # L16-17" in lines
    assert "Circle.radius = radius  # L10 set in __init__" in lines
    assert "PI = 3.14159  # L4" in lines
    assert "Circle inherits from Shape" in lines
    assert "describe() calls format_area(), Shape.area(), _cache_key()" in lines
    assert "REQ-001-002 area is never negative" in lines
    # Under their own heading, after the files and relation lines (without one, a
    # requirement read as code of the file above it).
    heading = lines.index(REQUIREMENTS_HEADING)
    assert lines[heading + 1] == "REQ-001-002 area is never negative"
    assert lines.index("Circle inherits from Shape") < heading < lines.index(DECISIONS_HEADING)
    # Each entity has one line; unresolved call targets are neither entities nor shown.
    assert sum(line.startswith("class Circle") for line in lines) == 1
    shown = [line for line in lines if not LINE_SHAPES[-1].fullmatch(line)]
    assert not any("undefined_helper" in line for line in shown)  # an excerpt may call it


def test_entities_carry_path_lines_signature_and_summary(store: SqliteGraphStore) -> None:
    context = ContextInjector(store).inject("Shape and format_area")
    shape = next(e for e in context.entities if e.id == "shapes.base.Shape")
    assert (shape.path, shape.line, shape.summary) == ("shapes/base.py", 4, "A geometric shape.")
    assert shape.end_line is not None and shape.end_line > shape.line
    helper = next(e for e in context.entities if e.id == "shapes.base.format_area")
    assert (helper.signature, helper.reason) == ("(value)", "mention")
    assert [e.score for e in context.entities if e.tier is Tier.SUPPORTING] == sorted(
        (e.score for e in context.entities if e.tier is Tier.SUPPORTING and e.reason != "owner"),
        reverse=True,
    ) + [e.score for e in context.entities if e.reason == "owner"]


def test_deterministic(store: SqliteGraphStore, tmp_path: Path) -> None:
    task = "Circle.label, Shape and REQ-001-003"
    expansion = ContextExpansion.for_attempt(0)
    first = ContextInjector(store).inject(task, expansion=expansion)
    shutil.copytree(SAMPLE_REPO, tmp_path / "repo")
    with SqliteGraphStore(tmp_path / "other.db") as other:
        index_tree(tmp_path / "repo", other)
        second = ContextInjector(other).inject(task, expansion=expansion)
    assert (first.text, first.entities, first.facts) == (second.text, second.entities, second.facts)


@pytest.mark.parametrize(
    "task",
    ["Circle.area", "How does Kreis use `größe`?", "REQ-001-003", "Revisit ADR-0001", "square"],
)
@pytest.mark.parametrize("attempt", [None, 0, 1])
def test_text_and_entities_name_the_same_entities(store, task, attempt):
    expansion = None if attempt is None else ContextExpansion.for_attempt(attempt)
    context = ContextInjector(store).inject(task, expansion=expansion)
    assert {e.name for e in parse_context_entities(context.text)} == names(context)


@pytest.mark.parametrize("field", ["names", "lacking", "lacking_words", "callers"])
def test_a_widening_given_one_str_for_names_says_to_wrap_it(field: str) -> None:
    """A str is a sequence of characters: searched as such it would find nothing."""
    with pytest.raises(TypeError, match=rf"{field} must be a sequence of str.*\('retry',\)"):
        ContextExpansion(**{field: "retry"})
    with pytest.raises(TypeError, match=rf"{field} must be a sequence of str.*\('retry',\)"):
        ContextExpansion.for_attempt(0, **{field: "retry"})
    for bad in (None, (1,)):
        with pytest.raises(TypeError, match=rf"{field} must be a sequence of str, got"):
            ContextExpansion(**{field: bad})
    assert getattr(ContextExpansion(**{field: ("retry",)}), field) == ("retry",)
    assert getattr(ContextExpansion.for_attempt(0, **{field: {"retry"}}), field) == ("retry",)


@pytest.mark.parametrize("lines", ["m.f", [("m.f", "1", 2)], [(1, 2, 3)], [("m.f", 1)]])
def test_a_widening_given_malformed_lines_says_what_they_hold(lines: object) -> None:
    with pytest.raises(TypeError, match=r"lines must hold \(entity id, first line, last line\)"):
        ContextExpansion(lines=lines)
    assert ContextExpansion(lines=(("m.f", 1, 2),)).lines == (("m.f", 1, 2),)


def test_a_line_the_context_wrote_brief_is_whole_once_a_retry_names_it() -> None:
    signature = "(self, source: str, *, strict: bool = True) -> Report"
    entities = [
        Entity("m.Hub", EntityKind.CLASS, "Hub", "m.py", 1, docstring="Runs steps."),
        *(
            Entity(f"m.Hub.step{i}", EntityKind.METHOD, f"step{i}", "m.py", 10 * i + 5, signature)
            for i in range(30)
        ),
    ]
    facts = [Fact("m.Hub", RelationKind.DEFINES, f"m.Hub.step{i}") for i in range(30)]
    injector = ContextInjector(MemoryGraphStore(entities, facts), max_context_tokens=300)
    task = "How does `Hub` run its steps?"
    context = injector.inject(task)
    lines = context.text.splitlines()
    brief = [line for line in lines if "(...) -> Report" in line]
    whole = [line for line in lines if "(source: str" in line]
    assert brief and whole  # lines are whole first, brief past half the budget
    assert lines.index(whole[0]) < lines.index(brief[0])
    named = brief[-1].split("(", 1)[0].split(".")[1]
    wider = injector.inject(task, expansion=ContextExpansion.for_attempt(0, (named,)))
    assert f"Hub.{named}(source: str, *, strict: bool = True) -> Report" in wider.text


def test_a_line_a_retry_showed_whole_stays_whole_at_the_next_retry() -> None:
    signature = "(self, source: str, *, strict: bool = True) -> Report"
    entities = [
        Entity("m.Hub", EntityKind.CLASS, "Hub", "m.py", 1),
        *(
            Entity(f"m.Hub.step{i}", EntityKind.METHOD, f"step{i}", "m.py", 10 * i + 5, signature)
            for i in range(80)
        ),
    ]
    facts = [Fact("m.Hub", RelationKind.DEFINES, e.id) for e in entities[1:]]
    injector = ContextInjector(MemoryGraphStore(entities, facts), max_context_tokens=300)
    task = "How does `Hub` run its steps?"
    default = injector.inject(task)
    brief = [line for line in default.text.splitlines() if "(...) -> Report" in line]
    named = brief[-1].split("(", 1)[0].split(".")[1]
    whole = f"Hub.{named}(source: str, *, strict: bool = True) -> Report"
    first = injector.inject(
        task, expansion=ContextExpansion.for_attempt(0, (named,)), default=default
    )
    assert whole in first.text
    keep = {entity.id: () for entity in first.entities if entity.reason not in LISTED_BY_OTHERS}
    second = injector.inject(
        task, expansion=ContextExpansion.for_attempt(1, ()), default=default, keep=keep
    )
    assert whole in second.text and second.tokens <= second.budget


def test_an_example_script_shows_source_only_when_named(tmp_path: Path) -> None:
    """A played context spent its share of source on a gallery script's plotting
    function, leaving none for the method the question was about."""
    body = "".join(f"    step_{n} = compute(data) + {n}\n" for n in range(30))
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def compute(data):\n    return sorted(data)\n",
        "examples/plot_compute.py": (
            f"from pkg.core import compute\n\n\ndef plot_compute(data):\n{body}    return step_0\n"
        ),
    }
    for path, text in files.items():
        (tmp_path / "src" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / path).write_text(text, encoding="utf-8")
    with SqliteGraphStore(tmp_path / "g.db") as graph:
        index_tree(tmp_path / "src", graph)
        injector = ContextInjector(graph, reuse_contexts=0)
        context = injector.inject("How does `compute` order the data it plots?")
        assert "examples.plot_compute.plot_compute" in ids(context.entities)
        assert "pkg.core.compute" in dict(context.excerpts)
        assert "examples.plot_compute.plot_compute" not in dict(context.excerpts)
        named = injector.inject("How does `plot_compute` use `compute`?")
        assert "examples.plot_compute.plot_compute" in dict(named.excerpts)


def write_tree(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` (path below ``root`` -> text)."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_a_call_into_an_imported_library_guesses_no_code_of_the_graph(tmp_path: Path) -> None:
    # An unresolved call is followed to the few entities of its name (`req.helper` on
    # a parameter: `R.helper`), but not one through a name its file imports from a
    # module outside the graph: a played context had shown a vendored array library's
    # `diff` for a transformer's `np.diff`.
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import os\nimport numpy as np\nfrom numpy import diff as dd\n\n\n"
            "def fit_spline(x, req):\n    req.helper()\n    os.path.join(x)\n    dd(x)\n"
            "    return np.diff(x)\n",
            "pkg/b.py": "def diff(x):\n    return x\n\n\ndef join(x):\n    return x\n\n\n"
            "class R:\n    def helper(self):\n        pass\n",
        },
    )
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(tmp_path, graph)
        context = ContextInjector(graph).inject("How does `fit_spline` work?")
    # (a file's other functions may be listed under its heading: no call is guessed)
    ids = {e.id for e in context.entities if e.reason != "member"}
    assert "pkg.b.R.helper" in ids
    assert not ids & {"pkg.b.diff", "pkg.b.join"}
    assert not any(fact.object in {"pkg.b.diff", "pkg.b.join"} for fact in context.facts)


def test_what_a_file_imports_from_outside_the_graph_is_told_by_binding(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import numpy as np\nfrom numpy.linalg import norm as _norm\n"
            "from pkg.b import R\nfrom .b import R as Alias\nfrom ns.sub import S\n\n\n"
            "def f(x):\n    return _norm(np.diff(R(S(x))))\n",
            "pkg/b.py": "class R:\n    pass\n",
            "pkg/c.py": "import json\nfrom numpy.linalg import norm as _norm\n",
            "ns/sub.py": "class S:\n    pass\n",  # a namespace package: no module `ns`
        },
    )
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(tmp_path, graph)
        names = ["np", "_norm", "R", "Alias", "S", "f", "missing"]
        bindings = [("pkg/a.py", name) for name in names] + [(None, "np"), ("pkg/b.py", "np")]
        found = outside_imports(batched(graph), bindings)
        # Code of the graph's own (R, Alias; S of the namespace package's module), a
        # definition and a name bound by no import are left out; so is a binding of no
        # file, or of a file that does not bind it.
        assert found == {("pkg/a.py", "np"): "numpy", ("pkg/a.py", "_norm"): "numpy.linalg.norm"}
        # By name, the first file that imports it says; `import json` tells nothing.
        paths = ["pkg/b.py", "pkg/c.py", "pkg/a.py"]
        told = imported_from_outside(batched(graph), ["json", "_norm", "R", "np"], paths)
        assert told == {"_norm": "numpy.linalg.norm", "np": "numpy"}
        assert list(told) == ["_norm", "np"]
        entities = graph.all_entities()
        facts = graph.facts_of_many([e.id for e in entities])
        memory = MemoryGraphStore(entities, {f for found in facts.values() for f in found})
        assert outside_imports(batched(memory), bindings) == {}  # it tells no imports


def test_a_dotted_name_is_told_through_a_module_that_re_exports_outside_code(
    tmp_path: Path,
) -> None:
    """`templates.document_root_template`, called through a module of the graph that
    is all `from reflex_base.compiler.templates import *`, is that package's: a played
    answer had asked for it three times. What the module defines itself is the
    graph's, and `np.diff` is numpy's."""
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/templates.py": "from base.templates import *\n\n\ndef local():\n    pass\n",
            "pkg/compiler.py": "import numpy as np\nfrom pkg import templates\n"
            "from datetime import datetime\n\n\n"
            "def f():\n    return np.diff(templates.root_template(), templates.local())\n",
        },
    )
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(tmp_path, graph)
        names = ["templates.root_template", "templates.local", "np.diff", "other.x", "np"]
        # `datetime.timedelta` is the module's, not an attribute of the class the file
        # imports under the module's name (a played retry was told the second).
        names += ["datetime.timedelta", "datetime"]
        told = imported_from_outside(batched(graph), names, ["pkg/compiler.py"])
        assert told == {
            "templates.root_template": "base.templates.root_template",
            "np.diff": "numpy.diff",
            "np": "numpy",
            "datetime": "datetime.datetime",
        }


def test_a_class_found_brings_the_override_it_uses_of_a_base_method_found() -> None:
    # A played first context held `FloatComplex` and `Converter.binoutput` (whose
    # docstring the task's words found) but not `FloatingPoint.binoutput`, the override
    # a `FloatComplex` runs, three bases up: the answer could only say it was missing.
    chain = ["Converter", "Numeric", "FloatingPoint", "Complex", "FloatComplex"]
    entities = [Entity(f"v.{name}", EntityKind.CLASS, name, "v.py", 1) for name in chain]
    facts = [
        Fact(f"v.{sub}", RelationKind.INHERITS, f"v.{base}")
        for base, sub in itertools.pairwise(chain)
    ]
    for owner in ("Converter", "FloatingPoint", "Integer"):
        method = Entity(f"v.{owner}.binoutput", EntityKind.METHOD, "binoutput", "v.py", 2)
        entities.append(method)
        facts.append(Fact(f"v.{owner}", RelationKind.DEFINES, method.id))
    entities.append(Entity("v.Integer", EntityKind.CLASS, "Integer", "v.py", 1))
    facts.append(Fact("v.Integer", RelationKind.INHERITS, "v.Numeric"))
    # No walk and no lexical hits: only what the task names, and what it uses.
    injector = ContextInjector(MemoryGraphStore(entities, facts), hops=0, lexical_hits=0)
    context = injector.inject("How does `FloatComplex` serve `Converter.binoutput`?")
    reasons = {entity.id: entity.reason for entity in context.entities}
    assert reasons.get("v.FloatingPoint.binoutput") == "graph"
    # Not another subclass's override: `Integer` is no base of `FloatComplex`.
    assert "v.Integer.binoutput" not in reasons


def test_the_member_of_a_class_the_task_names_that_its_words_describe_is_a_seed() -> None:
    """ "How does `IndexVariable` enforce ... during initialization": its ``__init__`` is
    what the task asks about, though the lexical hits of the whole graph rank another
    class's initializer first (a played first context had shown every other member of
    ``IndexVariable`` but that one)."""
    members = [
        Entity(f"x.IndexVariable.{name}", EntityKind.METHOD, name, docstring=doc)
        for name, doc in [
            ("__init__", ""),
            ("copy", "Return a copy."),
            ("to_index", "Convert to an index."),
            ("concat", "Concatenate variables."),
        ]
    ]
    other = Entity(
        "x.enforce_index_variable_dimensions",
        EntityKind.FUNCTION,
        "enforce_index_variable_dimensions",
        docstring="Enforce the dimensions of an index variable at its initialization.",
    )
    owner = Entity("x.IndexVariable", EntityKind.CLASS, "IndexVariable")
    store = MemoryGraphStore(
        [owner, *members, other], [Fact(owner.id, RelationKind.DEFINES, m.id) for m in members]
    )
    task = "How does `IndexVariable` enforce its dimensions during initialization?"
    reasons = {e.id: e.reason for e in ContextInjector(store, lexical_hits=1).inject(task).entities}
    assert reasons["x.IndexVariable.__init__"] == "lexical"
    assert reasons.get("x.IndexVariable.copy") != "lexical"
    finder = EntityFinder(store, batched(store), 0)  # lexical retrieval off: none
    assert finder.members_matching([owner], ("initialization",), False) == []


def test_a_name_the_shown_code_writes_means_that_code_unless_an_entity_of_it_is_related() -> None:
    """`_args` of `f(*_args)` and `return_value` of `mock.return_value`, in the source the
    context showed and quoted by the answer, are names of that code: a test fixture
    `_args` and a debugger's `CallFrame.return_value` elsewhere do not come in (a played
    widening had brought both). A written name that a fact ties to the context (a call
    it shows) still brings its entity, and so does one the answer says the context
    lacks."""
    entities = [
        Entity("app.main.run", EntityKind.FUNCTION, "run", path="app/main.py"),
        Entity("app.util.run_helper", EntityKind.FUNCTION, "run_helper", path="app/util.py"),
        Entity("tests.conftest._args", EntityKind.FUNCTION, "_args", path="tests/conftest.py"),
        Entity("dbg.frame.CallFrame", EntityKind.CLASS, "CallFrame", path="dbg/frame.py"),
        Entity(
            "dbg.frame.CallFrame.return_value",
            EntityKind.ATTRIBUTE,
            "return_value",
            path="dbg/frame.py",
        ),
    ]
    facts = [Fact("app.main.run", RelationKind.CALLS, "app.util.run_helper")]
    store = MemoryGraphStore(entities, facts)
    finder = EntityFinder(store, batched(store), 0)
    saw = [entities[0]]
    used = ("_args", "return_value", "run_helper")
    linked = lambda: {"app.main.run", "app.util.run_helper"}  # noqa: E731

    def named(lacking: tuple[str, ...] = (), written: tuple[str, ...] = used) -> list[str]:
        found = finder.named(
            used, near_context(saw), lacking, {saw[0].id}, written=written, linked=linked
        )
        return sorted(e.id for e in found)

    assert named() == ["app.util.run_helper"]
    # Not written in the context: the answer brought code of its own; it comes in.
    assert named(written=()) == sorted(
        ["tests.conftest._args", "dbg.frame.CallFrame.return_value", "app.util.run_helper"]
    )
    # Said lacking: the code it asks for comes in, written or not.
    assert "tests.conftest._args" in named(lacking=("_args",))
    # Through a widening of the injector.
    injector = ContextInjector(store, hops=0, lexical_hits=0)
    widening = ContextExpansion.for_attempt(0, used, written=used)
    wider = ids(injector.inject("How does `run` work?", expansion=widening).entities)
    assert "app.util.run_helper" in wider
    assert "tests.conftest._args" not in wider
    assert "dbg.frame.CallFrame.return_value" not in wider


def test_a_parameter_of_the_code_shown_said_lacking_brings_no_namesake_elsewhere() -> None:
    """A played answer asked "where `col_wrap`, `figsize` and `subplot_kws` come from" of
    the `FacetGrid.__init__` shown: the widening had brought a test class's
    `subplot_kws`. An attribute of that name a fact ties to the context still comes."""
    init = Entity(
        "p.FacetGrid.__init__",
        EntityKind.METHOD,
        "__init__",
        path="p/facetgrid.py",
        signature="(self, data, col_wrap=None, subplot_kws=None)",
    )
    entities = [
        Entity("p.FacetGrid", EntityKind.CLASS, "FacetGrid", path="p/facetgrid.py"),
        init,
        Entity("t.TestSurface", EntityKind.CLASS, "TestSurface", path="t/test_plot.py"),
        Entity(
            "t.TestSurface.subplot_kws", EntityKind.ATTRIBUTE, "subplot_kws", path="t/test_plot.py"
        ),
        Entity("p.FacetGrid.col_wrap", EntityKind.ATTRIBUTE, "col_wrap", path="p/facetgrid.py"),
    ]
    facts = [
        Fact("p.FacetGrid", RelationKind.DEFINES, init.id),
        Fact("p.FacetGrid", RelationKind.DEFINES, "p.FacetGrid.col_wrap"),
        Fact("t.TestSurface", RelationKind.DEFINES, "t.TestSurface.subplot_kws"),
    ]
    store = MemoryGraphStore(entities, facts)
    finder = EntityFinder(store, batched(store), 0)
    lacking = ("subplot_kws", "col_wrap")
    linked = lambda: {"p.FacetGrid", init.id, "p.FacetGrid.col_wrap"}  # noqa: E731

    def named(parameters: frozenset[str]) -> list[str]:
        found = finder.named(
            lacking, near_context([init]), lacking, {init.id}, linked=linked, parameters=parameters
        )
        return sorted(e.id for e in found)

    assert named(frozenset()) == ["p.FacetGrid.col_wrap", "t.TestSurface.subplot_kws"]
    assert named(signature_parameters(init)) == ["p.FacetGrid.col_wrap"]


def test_what_the_source_shown_calls_has_its_line_though_many_share_its_name(
    tmp_path: Path,
) -> None:
    """A played excerpt showed `OriginTrialToken.from_json(...)` called, one of 373
    `from_json` methods: counted out past the first few of its name, it had no line, and
    the relation line said "not shown: 1 more". Here the task names four `from_json`
    methods; the one the source shown calls is a fifth."""
    models = "".join(
        f"class Model{n}:\n    @classmethod\n    def from_json(cls, data):\n"
        f"        return cls()\n\n\n"
        for n in range(12)
    )
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/models.py": models,
            "pkg/token.py": "from pkg.models import Model7\n\n\n"
            "class Token:\n"
            "    @classmethod\n"
            "    def from_json(cls, data):\n"
            "        return Model7.from_json(data)\n",
        },
    )
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(tmp_path, graph)
        task = (
            "Why does `Token.from_json` differ from `Model1.from_json`, `Model2.from_json` "
            "and `Model3.from_json`?"
        )
        context = ContextInjector(graph).inject(task)
        assert dict(context.excerpts)["pkg.token.Token.from_json"]
        assert "return Model7.from_json(data)" in context.text
        assert "pkg.models.Model7.from_json" in ids(context.entities)
        assert "Model7.from_json(data)  # L" in context.text  # its own line, qualified


def test_an_attribute_the_source_shown_reads_on_self_has_its_line(tmp_path: Path) -> None:
    """A played excerpt of `Response.__getstate__` showed `for attr in self.__attrs__`,
    and `Response.__attrs__` was in no line of the context."""
    filler = "".join(f"    def helper_{n}(self):\n        return {n}\n\n" for n in range(30))
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/models.py": "class Response:\n"
            "    __attrs__ = ['_content', 'status_code']\n\n"
            "    def __getstate__(self):\n"
            "        return {attr: getattr(self, attr, None) for attr in self.__attrs__}\n\n"
            + filler,
        },
    )
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(tmp_path, graph)
        injector = ContextInjector(graph, max_context_tokens=300, hops=0)
        context = injector.inject("How does `Response.__getstate__` pickle a response?")
        assert "for attr in self.__attrs__" in context.text
        assert "pkg.models.Response.__attrs__" in ids(context.entities)


def test_a_subclass_s_seeds_choose_the_core_of_its_contexts() -> None:
    """``seeds`` is what a context's core is: a subclass that overrides it (to drop a
    name, or to add one its own way) gets contexts with that core, default and widened,
    as before the selection moved out of the injector."""

    class OnlyCheckout(ContextInjector):
        def seeds(self, text, *, tests=None):
            found = super().seeds(text, tests=tests)
            return [entity for entity in found if entity.name != "read"]

    task = "Does `read` block? And `command()`?"
    plain = ContextInjector(PLAIN_WORD_STORE).inject(task)
    assert {e.id for e in plain.core} == {"click.testing.EchoingStdin.read", "click.core.command"}
    injector = OnlyCheckout(PLAIN_WORD_STORE)
    assert ids(injector.seeds(task)) == ["click.core.command"]
    context = injector.inject(task)
    assert ids(context.core) == ["click.core.command"]
    widened = injector.inject(task, None, ContextExpansion.for_attempt(0), default=context)
    assert ids(widened.core) == ["click.core.command"]
