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
from citeloop.knowledge.candidate_order import BRIDGES, bridges, setters
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
