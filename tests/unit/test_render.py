"""The lines of a context: signatures, summaries, members, attributes and relations."""

from __future__ import annotations

import dataclasses

from citeloop.grounding import parse_context_entities
from citeloop.knowledge import Entity, EntityKind, Fact, RelationKind
from citeloop.knowledge.render import (
    MAX_BRIEF_RETURN,
    MAX_LINE_SIGNATURE,
    MAX_LINE_SUMMARY,
    ContextText,
    entity_line,
)


def method(entity_id: str, signature: str = "(self)", **fields) -> Entity:
    return Entity(
        entity_id, EntityKind.METHOD, entity_id.rpartition(".")[2], signature=signature, **fields
    )


def test_a_line_has_the_signature_the_line_and_the_summary() -> None:
    entity = Entity(
        "m.load",
        EntityKind.FUNCTION,
        "load",
        path="m.py",
        line=40,
        signature="(path: str, *, strict: bool = True) -> Config",
        docstring="Load a config. Raises on a bad file.",
    )
    assert entity.summary == "Load a config."
    assert entity_line(entity, None) == (
        "def load(path: str, *, strict: bool = True) -> Config  # L40 — Load a config."
    )


def test_a_method_line_names_its_class_without_the_receiver() -> None:
    assert entity_line(method("m.Graph.add", "(self, node: str) -> None"), "Graph") == (
        "Graph.add(node: str) -> None"
    )
    assert entity_line(method("m.Graph.make", "(cls)"), "Graph") == "Graph.make()"
    assert entity_line(method("m.Graph.run", "(selfish)"), "Graph") == "Graph.run(selfish)"
    # An annotated receiver too (a played context showed `render_from_file(cls:
    # type[FileRenderer], ...)` although the prompt says method lines leave it out).
    typed = method("m.Graph.load", "(cls: type[Graph], path: str) -> Graph")
    assert entity_line(typed, "Graph") == "Graph.load(path: str) -> Graph"
    assert entity_line(method("m.Graph.copy", "(self: Graph)"), "Graph") == "Graph.copy()"
    # A static method has no receiver: a first parameter named `self` is a parameter (a
    # played line had read `Invalid.__getattr__(nanana) @staticmethod`, hiding the point).
    static = method("m.Invalid.__getattr__", "(self, nanana)", decorators=("staticmethod",))
    assert entity_line(static, "Invalid") == "Invalid.__getattr__(self, nanana)"


def test_attributes_read_as_attributes() -> None:
    attribute = Entity("m.Box.size", EntityKind.ATTRIBUTE, "size", signature=": int = 3")
    assert entity_line(attribute, "Box") == "Box.size: int = 3"
    constant = Entity("m.PI", EntityKind.ATTRIBUTE, "PI", signature=" = 3.14")
    assert entity_line(constant, None) == "PI = 3.14"
    annotated = Entity("m.NAME", EntityKind.ATTRIBUTE, "NAME", signature=": str", assignments=1)
    assert entity_line(annotated, None) == "NAME: str = ..."  # its value is not shown
    # A bare annotation sets nothing (a played context had written `example5: Set[""] =
    # ...` of pylint's test data, which sets no value).
    declared = Entity("m.NAME", EntityKind.ATTRIBUTE, "NAME", signature=": str")
    assert entity_line(declared, None) == "NAME: str"
    # A property without a return annotation still reads (and parses) as an attribute.
    bare = Entity("m.Props.value", EntityKind.ATTRIBUTE, "value")
    assert entity_line(bare, "Props") == "Props.value = ..."
    assert [e.name for e in parse_context_entities(entity_line(bare, "Props"))] == [
        "Props",
        "value",
    ]


def test_a_property_says_it_is_one_on_full_and_brief_lines() -> None:
    """``= ...`` alone reads as an assignment: a player took a property for a class
    attribute set once."""
    prop = Entity(
        "m.Props.registry",
        EntityKind.ATTRIBUTE,
        "registry",
        path="m.py",
        line=51,
        end_line=54,
        decorators=("property",),
    )
    assert entity_line(prop, "Props") == "Props.registry = ...  # L51-54 @property"
    assert entity_line(prop, "Props", brief=True) == "Props.registry = ...  # L51-54 @property"
    names = [e.name for e in parse_context_entities(entity_line(prop, "Props"))]
    assert names == ["Props", "registry"]


def test_a_nested_definition_says_what_it_is_defined_inside() -> None:
    """A closure, a function inside a method and a class inside a class do not read as
    module-level definitions; the line still names only the entity itself."""
    closure = Entity(
        "pkg.base._fit_context.decorator",
        EntityKind.FUNCTION,
        "decorator",
        path="pkg/base.py",
        line=45,
        end_line=65,
        signature="(fit_method)",
    )
    line = entity_line(closure, None)
    assert line == "def decorator(fit_method)  # L45-65 inside _fit_context"
    assert [e.name for e in parse_context_entities("# pkg/base.py\n" + line)] == ["decorator"]
    helper = Entity(
        "pkg.header.Header._insert.index_of", EntityKind.FUNCTION, "index_of", "pkg/header.py", 9
    )
    assert entity_line(helper, None, brief=True) == "def index_of()  # L9 inside Header._insert"
    meta = Entity("app.models.Book.Meta", EntityKind.CLASS, "Meta", "app/models.py", 3, end_line=5)
    assert entity_line(meta, None) == "class Meta  # L3-5 inside Book"
    # Module-level: in a module, in a package's __init__.py, or with no place.
    for entity in [
        Entity("pkg.mod.run", EntityKind.FUNCTION, "run", "pkg/mod.py", 3),
        Entity("pkg.run", EntityKind.FUNCTION, "run", "pkg/__init__.py", 3),
        Entity("pkg.mod.Box", EntityKind.CLASS, "Box", "pkg\\mod.py", 3),
    ]:
        assert "inside" not in entity_line(entity, None)


def test_a_long_signature_is_cut_at_a_parameter_and_keeps_its_return() -> None:
    params = ", ".join(f"argument_{i}: dict[str, int] = {{}}" for i in range(12))
    entity = Entity("m.f", EntityKind.FUNCTION, "f", signature=f"({params}) -> Result")
    line = entity_line(entity, None)
    assert line.startswith("def f(argument_0: dict[str, int] = {}, ")
    assert line.endswith(", ...) -> Result")
    assert len(line) <= len("def f") + MAX_LINE_SIGNATURE + len(", ...)")


def test_a_long_signature_finds_its_return_after_its_parameters_not_in_a_default() -> None:
    params = ", ".join(f"argument_{i}: int = 0" for i in range(8))
    entity = Entity("m.f", EntityKind.FUNCTION, "f", signature=f"({params}, arrow=') -> ')")
    line = entity_line(entity, None)  # no return annotation: none is made up
    assert line.startswith("def f(argument_0: int = 0, ") and line.endswith(", ...)")
    assert "->" not in line


def test_a_first_parameter_too_long_to_show_keeps_the_return() -> None:
    entity = Entity("m.f", EntityKind.FUNCTION, "f", signature=f"(x: {'A' * 200}) -> None")
    assert entity_line(entity, None) == "def f(...) -> None"


def test_type_parameters_come_before_the_receiver() -> None:
    entity = method("m.Gen.get", "[U](self, u: U) -> T")
    assert entity_line(entity, "Gen") == "Gen.get[U](u: U) -> T"


def test_a_generic_class_shows_its_type_parameters_once() -> None:
    bare = Entity("m.Box", EntityKind.CLASS, "Box", signature="[T]")
    based = Entity("m.Box", EntityKind.CLASS, "Box", signature="[T: int](Base)")
    assert entity_line(bare, None) == "class Box[T]"
    assert entity_line(based, None) == "class Box[T: int](Base)"


def test_a_place_mark_in_a_signature_or_summary_is_not_read_as_the_place() -> None:
    entity = Entity(
        "p.m.fmt",
        EntityKind.FUNCTION,
        "fmt",
        "p/m.py",
        1,
        '(marker="  # L900-901")',
        True,
        3,
        docstring="Format   # L7 values.",
    )
    line = entity_line(entity, None)
    assert line == 'def fmt(marker=" # L900-901")  # L1-3 — Format # L7 values.'
    (parsed,) = parse_context_entities(f"# p/m.py\n{line}\n")
    assert parsed.places[0][1:3] == (1, 3)


def test_a_long_summary_is_cut_at_a_word() -> None:
    entity = Entity("m.f", EntityKind.FUNCTION, "f", path="m.py", line=1, docstring="word " * 60)
    summary = entity_line(entity, None).split(" — ", 1)[1]
    assert summary.endswith("…") and len(summary) <= MAX_LINE_SUMMARY
    assert not summary.removesuffix("…").endswith(" ")


def test_a_member_of_a_class_defined_in_a_function_says_where_its_class_is() -> None:
    """A test's local `class View` does not read as the library's `View` (a played
    context had listed `View.index` of tests/test_views.py beside flask's `View`); a
    member of a module-level class says nothing more, and both lines parse back."""
    local = Entity(
        "tests.test_views.test_routes.View.index",
        EntityKind.METHOD,
        "index",
        "tests/test_views.py",
        1863,
        '(self, test="a")',
        end_line=1864,
    )
    line = entity_line(local, "View")
    assert line == 'View.index(test="a")  # L1863-1864 inside test_routes'
    library = Entity(
        "flask.views.View.dispatch_request",
        EntityKind.METHOD,
        "dispatch_request",
        "src/flask/views.py",
        78,
        "(self)",
        end_line=84,
    )
    assert entity_line(library, "View") == "View.dispatch_request()  # L78-84"
    # A file's variable is inside nothing, though a package above has its file's name
    # (a played context read `mag = ...  # L44-49 inside function` of units/function/units.py).
    mag = Entity(
        "astropy.units.function.units.mag",
        EntityKind.ATTRIBUTE,
        "mag",
        "astropy/units/function/units.py",
        44,
        " = ...",
        end_line=49,
    )
    assert entity_line(mag, None) == "mag = ...  # L44-49"
    parsed = parse_context_entities("# tests/test_views.py\n" + line)
    assert [(e.name, e.places[0].owner) for e in parsed if e.places] == [("index", "View")]


def test_a_summary_cut_inside_code_closes_it() -> None:
    """A summary cut inside a code span closes it: a model quoting the line would pair
    the lone backtick with one of its own (a played answer was failed for inventing
    `` `are` ``, the word between)."""
    docstring = "Warns if *ucd* is not a valid `unified content descriptor " + "word " * 30
    entity = Entity("m.f", EntityKind.FUNCTION, "f", path="m.py", line=1, docstring=docstring)
    summary = entity_line(entity, None).split(" — ", 1)[1]
    assert summary.endswith("`…") and summary.count("`") == 2


def test_a_user_signature_without_parentheses_gets_them() -> None:
    assert (
        entity_line(Entity("m.f", EntityKind.FUNCTION, "f", signature="a, b"), None)
        == "def f(a, b)"
    )


def test_files_group_their_entities_in_line_order_and_relations_follow() -> None:
    entities = [
        Entity("m.Group", EntityKind.CLASS, "Group", path="core.py", line=30),
        method("m.Group.invoke", path="core.py", line=35),
        Entity("m.Command", EntityKind.CLASS, "Command", path="core.py", line=10),
        method("m.Command.invoke", path="core.py", line=15),
        Entity("m.helper", EntityKind.FUNCTION, "helper", path="util.py", line=3),
        Entity("REQ-1", EntityKind.REQUIREMENT, "REQ-1", signature="commands run"),
    ]
    owners = {"m.Group.invoke": "m.Group", "m.Command.invoke": "m.Command"}
    facts = [
        Fact("m.Group", RelationKind.INHERITS, "m.Command"),
        Fact("m.Group.invoke", RelationKind.CALLS, "m.Command.invoke"),
        Fact("m.Group.invoke", RelationKind.CALLS, "m.helper"),
        Fact("m.helper", RelationKind.CALLS, "m.nowhere"),  # not in the context
    ]
    assert ContextText(entities, owners).render(facts).splitlines() == [
        "# core.py",
        "class Command  # L10",
        "Command.invoke()  # L15",
        "class Group  # L30",
        "Group.invoke()  # L35",
        "# util.py",
        "def helper()  # L3",
        "Group inherits from Command",
        "Group.invoke() calls Command.invoke(), helper()",
        "## Requirements",
        "REQ-1 commands run",
    ]


def test_a_special_method_in_a_relation_line_names_its_class() -> None:
    """`__init__() calls check_ucd()` did not say whose `__init__` (every class has
    one), even with one `__init__` in the context."""
    entities = [
        Entity("m.Index", EntityKind.CLASS, "Index", path="index.py", line=10),
        method("m.Index.__init__", path="index.py", line=12),
        Entity("m.check_ucd", EntityKind.FUNCTION, "check_ucd", path="ucd.py", line=3),
    ]
    owners = {"m.Index.__init__": "m.Index"}
    facts = [Fact("m.Index.__init__", RelationKind.CALLS, "m.check_ucd")]
    text = ContextText(entities, owners).render(facts)
    assert text.splitlines()[-1] == "Index.__init__() calls check_ucd()"
    assert {entity.name for entity in parse_context_entities(text)} >= {"__init__", "check_ucd"}


def test_a_calls_line_says_which_callees_the_context_does_not_hold() -> None:
    """`_set_params() calls BaseEstimator.set_params()` read as all it calls: played
    answers never asked for `_replace_estimator`. The line names the best one not held
    and counts the rest, with no comma, so that none parses as an entity of the text."""
    caller = Entity("m.f", EntityKind.FUNCTION, "f", path="m.py", line=1)
    held = Entity("m.g", EntityKind.FUNCTION, "g", path="m.py", line=5)
    others = [Entity(f"m.{n}", EntityKind.FUNCTION, n, path="m.py", line=9) for n in "hkl"]
    facts = [Fact("m.f", RelationKind.CALLS, "m.g")]
    text = ContextText([caller, held], {}, callees={"m.f": [held, *others]}).render(facts)
    assert text.splitlines()[-1] == "f() calls g(); not shown: h() and 2 more"
    assert {entity.name for entity in parse_context_entities(text)} == {"f", "g"}
    alone = ContextText([caller, held], {}, callees={"m.f": [held, others[0]]}).render(facts)
    assert alone.splitlines()[-1] == "f() calls g(); not shown: h()"
    # All held, or none known: the line as before.
    assert (
        ContextText([caller, held], {}, callees={"m.f": [held]})
        .render(facts)
        .endswith("f() calls g()")
    )
    assert ContextText([caller, held], {}).render(facts).endswith("f() calls g()")
    # A name an entity of the context has is not the one written: the demo had read
    # `compile() calls validate(); not shown: validate() and 4 more`.
    twin = Entity("m.B.g", EntityKind.METHOD, "g", path="m.py", line=12)
    both = ContextText([caller, held], {}, callees={"m.f": [held, twin, others[0]]})
    assert both.render(facts).splitlines()[-1] == "f() calls g(); not shown: h() and 1 more"
    alone = ContextText([caller, held], {}, callees={"m.f": [held, twin]}).render(facts)
    assert alone.splitlines()[-1] == "f() calls g(); not shown: 1 more"
    # Nor is a member a list of the context names (`_owner_entities() L409` listed):
    # it is counted, as it has no line, and the next best is written.
    lists = {"m.C": ([others[0]], 0)}
    listed = ContextText([caller, held], {}, callees={"m.f": [held, *others]}, member_lists=lists)
    assert listed.render(facts).splitlines()[-1] == "f() calls g(); not shown: k() and 2 more"
    files = {"m.py": ([others[0], others[1]], 0)}
    listed = ContextText([caller, held], {}, callees={"m.f": [held, *others]}, module_lists=files)
    assert listed.render(facts).splitlines()[-1] == "f() calls g(); not shown: l() and 2 more"


def test_a_calls_line_tail_does_not_name_the_class_of_a_member_line() -> None:
    """A class whose member has a line is an entity of the context (its member's line
    names it), even without a line of its own: a calls line's tail does not name it as
    code the context does not show (`compile() calls attach_node(); not shown:
    CompiledStateGraph() and 10 more` under `CompiledStateGraph.attach_node(...)`)."""
    caller = Entity("m.f", EntityKind.FUNCTION, "f", path="m.py", line=1)
    attach = method("m.Graph.attach", path="m.py", line=20)
    graph = Entity("m.Graph", EntityKind.CLASS, "Graph", path="m.py", line=18)
    other = Entity("m.h", EntityKind.FUNCTION, "h", path="m.py", line=40)
    facts = [Fact("m.f", RelationKind.CALLS, "m.Graph.attach")]
    text = ContextText(
        [caller, attach], {"m.Graph.attach": "m.Graph"}, callees={"m.f": [attach, graph, other]}
    ).render(facts)
    assert "Graph.attach()  # L20" in text.splitlines()
    assert text.splitlines()[-1] == "f() calls attach(); not shown: h() and 1 more"
    alone = ContextText(
        [caller, attach], {"m.Graph.attach": "m.Graph"}, callees={"m.f": [attach, graph]}
    ).render(facts)
    assert alone.splitlines()[-1] == "f() calls attach(); not shown: 1 more"


def test_a_class_named_only_by_its_members_lines_makes_its_name_ambiguous() -> None:
    """A played context showed `Interval.low: float` of a dataclass (its class line
    left out) beside the constraint class `Interval`: `Interval inherits from
    _Constraint` read as the dataclass's."""
    entities = [
        Entity("v.Interval", EntityKind.CLASS, "Interval", path="v.py", line=402),
        Entity("v._Constraint", EntityKind.CLASS, "_Constraint", path="v.py", line=261),
        Entity("link.Interval.low", EntityKind.ATTRIBUTE, "low", path="link.py", line=20),
    ]
    owners = {"link.Interval.low": "link.Interval"}
    facts = [Fact("v.Interval", RelationKind.INHERITS, "v._Constraint")]
    lines = ContextText(entities, owners).render(facts).splitlines()
    assert lines[-1] == "Interval (v.py:402) inherits from _Constraint"
    # Its own members name no other class: the name stays plain.
    own = {"link.Interval.low": "v.Interval"}
    assert ContextText(entities, own).render(facts).splitlines()[-1] == (
        "Interval inherits from _Constraint"
    )


def test_module_level_twins_on_relation_lines_are_told_apart_by_place() -> None:
    # A dialect's class inherits from the ANSI class of its name; each function calls
    # the other's twin. A member keeps its class, and its place when another class has
    # that class's name (two played test classes `TestUpdateLeapSeconds`); an entity
    # without a place has none.
    entities = [
        Entity("d.mysql.Limit", EntityKind.CLASS, "Limit", path="d/mysql.py", line=12),
        Entity("d.ansi.Limit", EntityKind.CLASS, "Limit", path="d/ansi.py", line=40),
        Entity("d.mysql.parse", EntityKind.FUNCTION, "parse", path="d/mysql.py", line=50),
        Entity("d.ansi.parse", EntityKind.FUNCTION, "parse", path="d/ansi.py", line=90),
        Entity("d.ansi.Limit.parse", EntityKind.METHOD, "parse", path="d/ansi.py", line=44),
        Entity("u.parse", EntityKind.FUNCTION, "parse"),  # a user's store: no place
        Entity("d.ansi.lone", EntityKind.FUNCTION, "lone", path="d/ansi.py", line=99),
    ]
    owners = {"d.ansi.Limit.parse": "d.ansi.Limit"}
    facts = [
        Fact("d.mysql.Limit", RelationKind.INHERITS, "d.ansi.Limit"),
        Fact("d.mysql.parse", RelationKind.CALLS, "d.ansi.parse"),
        Fact("d.mysql.parse", RelationKind.CALLS, "d.ansi.lone"),
        Fact("d.mysql.parse", RelationKind.CALLS, "d.ansi.Limit.parse"),
        Fact("d.ansi.lone", RelationKind.CALLS, "u.parse"),
    ]
    text = ContextText(entities, owners).render(facts)
    assert text.splitlines()[-3:] == [
        "Limit (d/mysql.py:12) inherits from Limit (d/ansi.py:40)",
        "parse() (d/mysql.py:50) calls parse() (d/ansi.py:90), lone(), "
        "Limit.parse() (d/ansi.py:44)",
        "lone() calls parse()",
    ]
    # A path with a bracket gets no place (the parser could not tell where it ends).
    bracketed = [
        Entity(f"m{i}.go", EntityKind.FUNCTION, "go", path=f"p({i})/m.py", line=3) for i in (1, 2)
    ]
    calls = [Fact("m1.go", RelationKind.CALLS, "m2.go")]
    assert ContextText(bracketed, {}).render(calls).splitlines()[-1] == "go() calls go()"
    # The places name nothing: the lines parse to the entities' names, as before.
    parsed = {entity.name: entity.kind for entity in parse_context_entities(text)}
    assert parsed == {"Limit": "class", "parse": "function", "lone": "function"}


def test_a_variable_set_by_a_call_reads_as_no_function() -> None:
    entities = [
        Entity("m.formatter", EntityKind.ATTRIBUTE, "formatter", path="m.py", line=9),
        Entity("m.StrictFormatter", EntityKind.CLASS, "StrictFormatter", path="m.py", line=2),
    ]
    facts = [Fact("m.formatter", RelationKind.CALLS, "m.StrictFormatter")]
    lines = ContextText(entities, {}).render(facts).splitlines()
    assert lines[-1] == "formatter calls StrictFormatter()"
    names = {e.name: e.kind for e in parse_context_entities("\n".join(lines))}
    assert names["formatter"] == "attribute"


def test_a_brief_line_keeps_the_name_the_return_and_the_place() -> None:
    long = "(path: str, *, strict: bool = True, encoding: str = 'utf-8') -> Config"
    load = Entity(
        "m.load",
        EntityKind.FUNCTION,
        "load",
        path="m.py",
        line=40,
        end_line=52,
        signature=long,
        docstring="Load a config.",
        decorators=("cache",),
    )
    assert entity_line(load, None) == (f"def load{long}  # L40-52 @cache — Load a config.")
    assert entity_line(load, None, brief=True) == "def load(...) -> Config  # L40-52"
    # A short signature is kept whole; a long return annotation goes.
    assert entity_line(method("m.Box.get", "(self, key)", line=7, path="m.py"), "Box", True) == (
        "Box.get(key)  # L7"
    )
    returns = "dict[str, tuple[int, int, list[str | None]]]"
    wide = method("m.Box.items", f"(self, deep: bool = False) -> {returns}", path="m.py", line=9)
    assert len(returns) > MAX_BRIEF_RETURN
    assert entity_line(wide, "Box", brief=True) == "Box.items(...)  # L9"


def test_a_brief_class_or_attribute_line_keeps_its_code_without_the_summary() -> None:
    shape = Entity(
        "m.Circle",
        EntityKind.CLASS,
        "Circle",
        path="m.py",
        line=3,
        signature="(Shape)",
        docstring="A round shape.",
        decorators=("functools.total_ordering",),
    )
    assert entity_line(shape, None, brief=True) == "class Circle(Shape)  # L3"
    size = Entity(
        "m.Box.size", EntityKind.ATTRIBUTE, "size", "m.py", 4, ": int = 3", docstring="Size."
    )
    assert entity_line(size, "Box", brief=True) == "Box.size: int = 3  # L4"
    requirement = Entity("REQ-1", EntityKind.REQUIREMENT, "REQ-1", signature="commands run")
    assert entity_line(requirement, None, brief=True) == "REQ-1 commands run"


def test_brief_lines_parse_back_as_the_entities_they_name() -> None:
    entities = [
        Entity("m.Box", EntityKind.CLASS, "Box", path="m.py", line=1, signature="(Base)"),
        method("m.Box.items", "(self, deep: bool = False) -> list[str]", path="m.py", line=3),
        Entity("m.Box.size", EntityKind.ATTRIBUTE, "size", "m.py", 8, ": int = 3"),
        Entity("m.load", EntityKind.FUNCTION, "load", "m.py", 12, "(path: str, strict: bool)"),
    ]
    owners = {"m.Box.items": "m.Box", "m.Box.size": "m.Box"}
    text = ContextText(entities, owners, brief={e.id for e in entities}).render([])
    assert text.splitlines() == [
        "# m.py",
        "class Box(Base)  # L1",
        "Box.items(...) -> list[str]  # L3",
        "Box.size: int = 3  # L8",
        "def load(...)  # L12",
    ]
    parsed = {(e.name, e.kind) for e in parse_context_entities(text)}
    assert parsed >= {
        ("Box", "class"),
        ("items", "method"),
        ("size", "attribute"),
        ("load", "function"),
    }


def test_a_brief_signature_says_no_parameters_and_keeps_its_type_parameters() -> None:
    def brief(signature: str) -> str:
        return entity_line(Entity("m.f", EntityKind.FUNCTION, "f", signature=signature), None, True)

    assert brief("() -> dict[str, list[int]] | None") == "def f() -> dict[str, list[int]] | None"
    # The return follows the parameters' closing bracket, not a `) -> ` inside a default.
    assert brief("(sep: str = ') -> ', count: int = 0)") == "def f(...)"
    assert brief("[T: (int, str)](items: list[T], more: int = 3) -> T") == (
        "def f[T: (int, str)](...) -> T"
    )


def test_a_brief_method_line_still_says_it_is_static_or_a_class_method() -> None:
    def line(*decorators: str) -> str:
        entity = method(
            "m.Box.make",
            "(cls, source: str, *, strict: bool = True) -> Box",
            path="m.py",
            line=5,
            decorators=decorators,
        )
        return entity_line(entity, "Box", brief=True)

    assert line("classmethod", "cache") == "Box.make(...) -> Box  # L5 @classmethod"
    assert line("staticmethod") == "Box.make(...) -> Box  # L5 @staticmethod"
    assert line("functools.cache") == "Box.make(...) -> Box  # L5"
    # An abstract method or an overload's signature says so too, however it is imported
    # (a played answer had named only the abstract methods whose lines were whole).
    assert line("abc.abstractmethod") == "Box.make(...) -> Box  # L5 @abc.abstractmethod"
    assert line("overload") == "Box.make(...) -> Box  # L5 @overload"
    # though three others come first; another library's `overload` implements
    assert line("cached", "traced", "logged", "abstractmethod") == (
        "Box.make(...) -> Box  # L5 @abstractmethod"
    )
    assert line("numba.extending.overload") == "Box.make(...) -> Box  # L5"
    assert line("t.overload") == "Box.make(...) -> Box  # L5 @t.overload"


def test_a_coroutine_function_s_line_says_async_and_parses_back() -> None:
    """``async def`` is part of a function's code: a judge found `Channel.get()` shown
    as a plain method where the code awaits it. Whole or brief, its line says so, and
    the validator still reads its name."""
    fetch = Entity(
        "m.fetch",
        EntityKind.FUNCTION,
        "fetch",
        "m.py",
        3,
        "(url: str, *, timeout: float = 10.0, retries: int = 3) -> bytes",
        end_line=9,
        asynchronous=True,
    )
    get = method("m.Channel.get", "(self) -> Msg", path="m.py", line=12)
    get = dataclasses.replace(get, asynchronous=True)
    assert entity_line(fetch, None) == (
        "async def fetch(url: str, *, timeout: float = 10.0, retries: int = 3) -> bytes  # L3-9"
    )
    assert entity_line(fetch, None, brief=True) == "async def fetch(...) -> bytes  # L3-9"
    assert entity_line(get, "Channel") == "async Channel.get() -> Msg  # L12"
    sync = dataclasses.replace(get, asynchronous=False)
    assert entity_line(sync, "Channel") == "Channel.get() -> Msg  # L12"
    text = "# m.py\n" + "\n".join(
        [entity_line(fetch, None, brief=True), entity_line(get, "Channel")]
    )
    parsed = parse_context_entities(text)
    assert [e.name for e in parsed] == ["fetch", "Channel", "get"]  # as a sync line's
    assert parsed[2].places[0].owner == "Channel" and parsed[2].places[0].start == 12


def test_a_brief_class_line_still_says_it_is_a_dataclass_or_final() -> None:
    """Judges of played answers had found brief lines of a frozen dataclass and of a
    final class that said neither: the line keeps them, with the dataclass's arguments,
    and no other decorator."""

    def line(*decorators: str) -> str:
        entity = Entity(
            id="m.Var",
            kind=EntityKind.CLASS,
            name="Var",
            path="m.py",
            line=5,
            end_line=40,
            signature="(Generic[T])",
            docstring="An immutable var.",
            decorators=decorators,
        )
        return entity_line(entity, None, brief=True)

    frozen = "dataclasses.dataclass(eq=False, frozen=True)"
    assert line(frozen, "register") == (
        "class Var(Generic[T])  # L5-40 @dataclasses.dataclass(eq=False, frozen=True)"
    )
    assert line("typing.final") == "class Var(Generic[T])  # L5-40 @typing.final"
    assert line("register") == "class Var(Generic[T])  # L5-40"
