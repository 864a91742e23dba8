"""The code between two core entities (a member of one that calls or names the other),
and the method that first sets an instance attribute the task names, show their source
right after the core."""

from __future__ import annotations

from pathlib import Path

from citeloop.knowledge import (
    ContextInjector,
    Entity,
    EntityKind,
    InjectedContext,
    SqliteGraphStore,
    index_tree,
    selection,
)
from citeloop.knowledge.body_lines import focus_terms
from citeloop.knowledge.candidate_order import BRIDGES, bridges, parameter_users, setters
from citeloop.knowledge.excerpts import choose_excerpts
from citeloop.knowledge.model import Fact, RelationKind
from citeloop.knowledge.neighbourhood import Candidates


def _entity(entity_id: str, kind: EntityKind, set_in: str = "") -> Entity:
    name = entity_id.rpartition(".")[2]
    return Entity(entity_id, kind, name, "m.py", 1, "(self)", end_line=9, set_in=set_in)


def _candidates(*facts: tuple[str, RelationKind, str]) -> Candidates:
    found = Candidates()
    for subject, relation, target in facts:
        for entity_id in (subject, target):
            kind = EntityKind.METHOD if entity_id.count(".") > 1 else EntityKind.CLASS
            found.entities.setdefault(entity_id, _entity(entity_id, kind))
        fact = Fact(subject, relation, target)
        found.facts[fact.fact_id] = fact
    return found


def test_a_member_of_one_core_class_that_calls_another_is_a_bridge() -> None:
    found = _candidates(
        ("m.Pool.__init__", RelationKind.CALLS, "m.Worker"),  # the bridge
        ("m.Pool.close", RelationKind.REFERENCES, "m.Worker.stop"),  # to a member: one too
        ("m.Pool.size", RelationKind.CALLS, "m.Pool.close"),  # within one class: none
        ("m.Pool.log", RelationKind.CALLS, "m.Logger"),  # to code the task did not name
        ("m.Pool.check", RelationKind.USES_TYPE, "m.Worker"),  # an annotation: none
    )
    order = ["m.Pool", "m.Worker", "m.Pool.close", "m.Pool.size", "m.Pool.__init__"]
    order += ["m.Pool.log", "m.Pool.check"]
    assert bridges(order, found, {"m.Pool", "m.Worker"}) == ["m.Pool.close", "m.Pool.__init__"]
    # One core entity has nothing to bridge to; a core member is core already.
    assert bridges(order, found, {"m.Pool"}) == []
    assert bridges(order, found, {"m.Pool.__init__", "m.Worker"}) == []


def test_at_most_a_few_bridges_are_taken_in_rank_order() -> None:
    names = [f"m.Pool.make_{n}" for n in range(BRIDGES + 2)]
    found = _candidates(*((name, RelationKind.CALLS, "m.Worker") for name in names))
    order = ["m.Pool", "m.Worker", *reversed(names)]
    assert bridges(order, found, {"m.Pool", "m.Worker"}) == list(reversed(names))[:BRIDGES]


SOURCE = """\
class Worker:
    \"\"\"Runs one job.\"\"\"

    def run(self, job):
        return job()


class Pool:
    \"\"\"Workers for jobs.\"\"\"

    def make_heavy_objects(self):
        \"\"\"Make objects for the heavy jobs of the pool.\"\"\"
        return [object() for job in self.jobs if job.heavy]

    def __init__(self, jobs):
        self.jobs = jobs
        self.workers = []
        for job in jobs:
            if job.heavy:
                self.workers.append(Worker())
"""


def _offered(
    tmp_path: Path, monkeypatch, files: dict[str, str], task: str
) -> tuple[list[tuple[list[str], list[str]]], InjectedContext]:
    """The ids (and the named ids) each excerpt choice of ``task``'s context was
    offered, and the context, on a graph of ``files``."""
    offered: list[tuple[list[str], list[str]]] = []

    def spy(ids, *args, **kwargs):
        offered.append((list(ids), list(kwargs.get("named", ()))))
        return choose_excerpts(ids, *args, **kwargs)

    monkeypatch.setattr(selection, "choose_excerpts", spy)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    db = tmp_path / "graph.db"
    with SqliteGraphStore(db) as store:
        index_tree(tmp_path, store)
    with SqliteGraphStore(db, read_only=True) as store:
        return offered, ContextInjector(store, reuse_contexts=0).inject(task)


def test_the_bridge_is_offered_source_right_after_the_core(tmp_path: Path, monkeypatch) -> None:
    # `make_heavy_objects` matches the task's words best; `__init__`, which makes the
    # `Worker`s, is offered its source first.
    task = "Why does `Pool` make `Worker` objects only for heavy jobs of the pool?"
    offered, context = _offered(tmp_path, monkeypatch, {"pool.py": SOURCE}, task)
    ids = offered[0][0]
    assert sorted(ids[:2]) == ["pool.Pool", "pool.Worker"]
    assert ids[2] == "pool.Pool.__init__"
    assert "self.workers.append(Worker())" in context.text


def _found(*entities: Entity) -> Candidates:
    found = Candidates()
    for entity in entities:
        found.entities[entity.id] = entity
    return found


def test_the_method_that_sets_a_core_attribute_is_its_setter() -> None:
    found = _found(
        _entity("m.Model", EntityKind.CLASS),
        _entity("m.Model.fit", EntityKind.METHOD),
        _entity("m.Model.__init__", EntityKind.METHOD),
        _entity("m.Model.coef_", EntityKind.ATTRIBUTE, set_in="fit"),
        _entity("m.Model.alpha", EntityKind.ATTRIBUTE, set_in="__init__"),
        _entity("m.Model.scale", EntityKind.ATTRIBUTE),  # a class attribute: set nowhere
    )
    order = ["m.Model", "m.Model.__init__", "m.Model.fit", "m.Model.coef_", "m.Model.alpha"]
    assert setters(order, found, {"m.Model.coef_", "m.Model.alpha"}) == [
        "m.Model.__init__",
        "m.Model.fit",
    ]
    assert setters(order, found, {"m.Model.scale", "m.Model"}) == []
    # A setter the task names is core already; one not among the candidates is none.
    assert setters(order, found, {"m.Model.coef_", "m.Model.fit"}) == []
    assert setters(["m.Model.coef_"], found, {"m.Model.coef_"}) == []


MODEL = (
    """\
class Model:
    \"\"\"A model.\"\"\"

    def __init__(self, shrink):
        self.shrink = shrink

    def fit(self, rows):
        \"\"\"Fit the model.\"\"\"
        self.total_ = 0
"""
    + "".join(f"        step_{n} = prepare(rows, {n})\n" for n in range(40))
    + """\
        self.coef_ = sum(rows) / len(rows)
        return self


class Ridge:
    \"\"\"Another model that shrinks.\"\"\"

    def fit(self, rows):
        \"\"\"Fit the ridge with its shrink.\"\"\"
"""
    + "".join(f"        shrink_{n} = rows[{n}] * 2\n" for n in range(40))
    + """\
        return self
"""
)


def test_a_task_about_fitted_attributes_names_the_method_that_sets_them(
    tmp_path: Path, monkeypatch
) -> None:
    # `coef_` and `total_` (a trailing underscore is code) are set in `fit`: its source
    # is offered right after the core, named as the core is (its excerpt may grow to
    # the share the core leaves), ahead of the other class's `fit` the words find.
    task = "How does the fit method shrink the rows to compute coef_ and total_?"
    offered, context = _offered(tmp_path, monkeypatch, {"model.py": MODEL}, task)
    core = {entity.id for entity in context.core}
    assert core == {"model.Model.coef_", "model.Model.total_"}
    ids, named = offered[0]
    assert ids[len(core)] == "model.Model.fit" and "model.Model.fit" in named
    assert "self.coef_ = sum(rows) / len(rows)" in context.text


def test_a_method_of_a_named_class_that_takes_a_parameter_the_task_names_is_offered() -> None:
    def method(entity_id: str, signature: str) -> Entity:
        name = entity_id.rpartition(".")[2]
        return Entity(entity_id, EntityKind.METHOD, name, "m.py", 1, signature, end_line=9)

    found = _found(
        _entity("m.Legend", EntityKind.CLASS),
        method("m.Legend.__init__", "(self, parent, *, title_fontsize=None, **kwargs)"),
        method("m.Legend.set_title", "(self, title, prop=None)"),
        method("m.Other.__init__", "(self, title_fontsize=None)"),  # not a named class's
        method("m.Legend.draw", "(self, renderer)"),
    )
    order = ["m.Legend", "m.Other.__init__", "m.Legend.set_title", "m.Legend.__init__"]
    order += ["m.Legend.draw"]
    assert parameter_users(order, found, {"m.Legend"}, {"title_fontsize"}) == ["m.Legend.__init__"]
    # No parameter named, or none of a named class, offers nothing; a named method is core.
    assert parameter_users(order, found, {"m.Legend"}, set()) == []
    assert parameter_users(order, found, {"m.Other"}, {"prop"}) == []
    assert (
        parameter_users(order, found, {"m.Legend", "m.Legend.__init__"}, {"title_fontsize"}) == []
    )


LEGEND = (
    """class Legend:
    \"\"\"A legend.\"\"\"

    def __init__(self, parent, title_fontsize=None, title_props=None):
        self.parent = parent
"""
    + "".join(f"        self.option_{n} = parent.get({n})\n" for n in range(40))
    + """        if title_fontsize is not None and title_props is not None:
            raise TypeError("title_fontsize and title_props can't both be given")
        self.size = title_fontsize


def validate_fontsize(fontsize):
    \"\"\"Validate a legend title fontsize.\"\"\"
    if fontsize in ("small", "large"):
        return fontsize
    return float(fontsize)
"""
)


def test_a_task_naming_parameters_of_a_class_shows_the_lines_that_use_them(
    tmp_path: Path, monkeypatch
) -> None:
    # "the Legend class" (a capitalized word: a hint, not core) and two parameters of
    # its `__init__`: their lines are shown, not only the function its words find.
    task = "How does the Legend class handle conflicting title_fontsize and title_props?"
    offered, context = _offered(tmp_path, monkeypatch, {"legend.py": LEGEND}, task)
    assert "legend.Legend.__init__" in offered[0][1]
    assert "if title_fontsize is not None and title_props is not None:" in context.text


def test_the_code_names_of_a_task_without_an_entity_choose_lines_as_the_core_does(
    tmp_path: Path, monkeypatch
) -> None:
    # `max_rows` names no entity: it is a term of each excerpt's lines, whole on each
    # line that uses it, as the core's names are (a capitalized word is not code).
    cores: list[list[str]] = []

    def spy(*args, **kwargs):
        cores.append(list(kwargs.get("core", args[4] if len(args) > 4 else ())))
        return focus_terms(*args, **kwargs)

    monkeypatch.setattr(selection, "focus_terms", spy)
    source = "def build(rows, max_rows=3):\n    return rows[:max_rows]\n"
    task = "How does `build` keep the Rows to `max_rows` at most?"
    _offered(tmp_path, monkeypatch, {"build.py": source}, task)
    assert cores and all(core == ["build", "max_rows"] for core in cores)
