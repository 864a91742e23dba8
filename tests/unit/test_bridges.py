"""The code between two core entities (a member of one that calls or names the other)
shows its source right after the core."""

from __future__ import annotations

from pathlib import Path

from citeloop.knowledge import (
    ContextInjector,
    Entity,
    EntityKind,
    SqliteGraphStore,
    index_tree,
    selection,
)
from citeloop.knowledge.candidate_order import BRIDGES, bridges
from citeloop.knowledge.excerpts import choose_excerpts
from citeloop.knowledge.model import Fact, RelationKind
from citeloop.knowledge.neighbourhood import Candidates


def _entity(entity_id: str, kind: EntityKind) -> Entity:
    return Entity(entity_id, kind, entity_id.rpartition(".")[2], "m.py", 1, "(self)", end_line=9)


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


def test_the_bridge_is_offered_source_right_after_the_core(tmp_path: Path, monkeypatch) -> None:
    # `make_heavy_objects` matches the task's words best; `__init__`, which makes the
    # `Worker`s, is offered its source first.
    offered: list[list[str]] = []

    def spy(ids, *args, **kwargs):
        offered.append(list(ids))
        return choose_excerpts(ids, *args, **kwargs)

    monkeypatch.setattr(selection, "choose_excerpts", spy)
    (tmp_path / "pool.py").write_text(SOURCE, encoding="utf-8")
    db = tmp_path / "graph.db"
    with SqliteGraphStore(db) as store:
        index_tree(tmp_path, store)
    task = "Why does `Pool` make `Worker` objects only for heavy jobs of the pool?"
    with SqliteGraphStore(db, read_only=True) as store:
        context = ContextInjector(store, reuse_contexts=0).inject(task)
    assert sorted(offered[0][:2]) == ["pool.Pool", "pool.Worker"]
    assert offered[0][2] == "pool.Pool.__init__"
    assert "self.workers.append(Worker())" in context.text
