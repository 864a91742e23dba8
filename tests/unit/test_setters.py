"""The method that first sets an instance attribute the task names is named with it: its
source is what makes the attribute's value."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from citeloop.knowledge import (
    ContextInjector,
    Entity,
    EntityKind,
    SqliteGraphStore,
    index_tree,
    selection,
)
from citeloop.knowledge.candidate_order import setters
from citeloop.knowledge.excerpts import choose_excerpts
from citeloop.knowledge.neighbourhood import Candidates


def _found(*entities: Entity) -> Candidates:
    found = Candidates()
    for entity in entities:
        found.entities[entity.id] = entity
    return found


def _entity(entity_id: str, kind: EntityKind, set_in: str = "") -> Entity:
    name = entity_id.rpartition(".")[2]
    entity = Entity(entity_id, kind, name, "m.py", 1, "(self)", end_line=9)
    return dataclasses.replace(entity, set_in=set_in)


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


SOURCE = (
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
    offered: list[tuple[list[str], list[str]]] = []

    def spy(ids, *args, **kwargs):
        offered.append((list(ids), list(kwargs.get("named", ()))))
        return choose_excerpts(ids, *args, **kwargs)

    monkeypatch.setattr(selection, "choose_excerpts", spy)
    (tmp_path / "model.py").write_text(SOURCE, encoding="utf-8")
    db = tmp_path / "graph.db"
    with SqliteGraphStore(db) as store:
        index_tree(tmp_path, store)
    task = "How does the fit method shrink the rows to compute coef_ and total_?"
    with SqliteGraphStore(db, read_only=True) as store:
        context = ContextInjector(store, reuse_contexts=0).inject(task)
    core = {entity.id for entity in context.core}
    assert core == {"model.Model.coef_", "model.Model.total_"}
    ids, named = offered[0]
    assert ids[len(core)] == "model.Model.fit" and "model.Model.fit" in named
    assert "self.coef_ = sum(rows) / len(rows)" in context.text
