"""Telling same-named entities apart by the other code a task writes: what a namesake's
own code calls or names, and the class it is in (:func:`citeloop.knowledge.seeds.quoted_code`)."""

from __future__ import annotations

import time

from citeloop.knowledge import ContextInjector, Entity, EntityKind, Fact, RelationKind
from citeloop.knowledge import seeds as seeds_module
from citeloop.knowledge.seeds import quoted_code
from citeloop.knowledge.store import MemoryGraphStore, batched


def _method(owner: str, name: str, path: str, line: int) -> Entity:
    return Entity(f"{owner}.{name}", EntityKind.METHOD, name, path, line)


def _class(entity_id: str, path: str, line: int) -> Entity:
    return Entity(entity_id, EntityKind.CLASS, entity_id.rpartition(".")[2], path, line)


def _get_querysets() -> tuple[list[Entity], list[Fact]]:
    """Three ``get_queryset``: a list view's that calls ``queryset.all`` and
    ``model._default_manager.all``, a manager's that calls ``super().get_queryset()``
    and ``order_by``, and an admin's that calls ``isinstance``."""
    entities = [
        _class("web.views.list.MultipleObjectMixin", "web/views/list.py", 10),
        _method("web.views.list.MultipleObjectMixin", "get_queryset", "web/views/list.py", 20),
        _class("web.models.query.QuerySet", "web/models/query.py", 1),
        _class("tests.models.OrderedObjectManager", "tests/models.py", 1),
        _method("tests.models.OrderedObjectManager", "get_queryset", "tests/models.py", 3),
        _class("web.admin.ModelAdmin", "web/admin.py", 1),
        _method("web.admin.ModelAdmin", "get_queryset", "web/admin.py", 40),
    ]
    view = "web.views.list.MultipleObjectMixin.get_queryset"
    manager = "tests.models.OrderedObjectManager.get_queryset"
    facts = [
        Fact(view, RelationKind.CALLS, "?queryset.all"),
        Fact(view, RelationKind.CALLS, "?model._default_manager.all"),
        Fact(view, RelationKind.REFERENCES, "web.models.query.QuerySet"),
        Fact(manager, RelationKind.CALLS, "?get_queryset"),
        Fact(manager, RelationKind.CALLS, "?order_by"),
        Fact("web.admin.ModelAdmin.get_queryset", RelationKind.CALLS, "?isinstance"),
    ]
    return entities, facts


def test_the_namesake_whose_code_calls_the_quoted_calls_is_core() -> None:
    """A task that quotes the calls a ``get_queryset`` makes means that one, not the test
    manager whose class name holds the task's word "ordering"."""
    injector = ContextInjector(MemoryGraphStore(*_get_querysets()))
    task = (
        "Where does the conditional invocation of `queryset.all()` versus "
        "`self.model._default_manager.all()` in `get_queryset` occur, and how does it "
        "affect the subsequent ordering logic?"
    )
    core = [entity.id for entity in injector.inject(task).core]
    assert core == ["web.views.list.MultipleObjectMixin.get_queryset"]


def test_counts_each_quoted_name_once_without_receivers_or_the_own_name() -> None:
    """``self.`` is dropped from a quoted call; the group's own name (a ``super()``
    call) and a builtin's name alone count for nothing; a class the code names counts."""
    entities, facts = _get_querysets()
    reads = batched(MemoryGraphStore(entities, facts))
    group = [e for e in entities if e.name == "get_queryset"]
    mentions = ["queryset.all", "self.model._default_manager.all", "get_queryset", "isinstance"]
    assert quoted_code(reads, [group], mentions) == {
        "web.views.list.MultipleObjectMixin.get_queryset": 2
    }
    assert quoted_code(reads, [group], [*mentions, "QuerySet"]) == {
        "web.views.list.MultipleObjectMixin.get_queryset": 3
    }
    assert quoted_code(reads, [group], ["get_queryset", "isinstance"]) == {}


def test_the_member_of_the_class_the_task_names_beats_its_file_mates() -> None:
    """Two capture classes of one file define ``snap``; a task about `SysCapture` and
    `snap()` means ``SysCapture.snap`` alone, not every ``snap`` of the file."""
    entities = [
        _class("cap.SysCapture", "cap.py", 10),
        _method("cap.SysCapture", "snap", "cap.py", 20),
        _class("cap.FDCapture", "cap.py", 40),
        _method("cap.FDCapture", "snap", "cap.py", 50),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, []))
    task = "Why does the `SysCapture` class keep its buffer when `snap()` runs?"
    assert [e.id for e in injector.seeds(task)] == ["cap.SysCapture", "cap.SysCapture.snap"]


def test_an_ambiguous_class_name_picks_its_member_that_calls_the_other_code() -> None:
    """Two example apps are both named ``MyApp``; of the ``OnInit`` methods, the one of
    a ``MyApp`` that calls the quoted ``CanvasFrame`` is meant."""
    entities = [
        _class("ex.wx3.MyApp", "ex/wx3.py", 1),
        _method("ex.wx3.MyApp", "OnInit", "ex/wx3.py", 2),
        _class("ex.mathtext.MyApp", "ex/mathtext.py", 1),
        _method("ex.mathtext.MyApp", "OnInit", "ex/mathtext.py", 2),
        _class("ex.mathtext.CanvasFrame", "ex/mathtext.py", 10),
        _class("ex.wx4.App", "ex/wx4.py", 1),
        _method("ex.wx4.App", "OnInit", "ex/wx4.py", 2),
        _class("ex.wx4.CanvasFrame", "ex/wx4.py", 10),
    ]
    facts = [
        Fact("ex.mathtext.MyApp.OnInit", RelationKind.CALLS, "ex.mathtext.CanvasFrame"),
        Fact("ex.wx4.App.OnInit", RelationKind.CALLS, "ex.wx4.CanvasFrame"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, facts))
    task = "Why does creating `CanvasFrame` objects in `MyApp`'s `OnInit` cost memory?"
    on_init = [e.id for e in injector.seeds(task) if e.name == "OnInit"]
    assert on_init == ["ex.mathtext.MyApp.OnInit"]


def test_a_namesake_in_a_named_class_outranks_one_whose_code_calls_the_quoted_code() -> None:
    """The ``predict_proba`` the named `NuSVC` inherits stays the one meant, though
    another class's calls the quoted `predict_log_proba`: where a namesake is defined
    is stronger evidence than what it calls."""
    entities = [
        _class("sk.svm.NuSVC", "sk/svm.py", 1),
        _class("sk.svm.BaseSVC", "sk/svm_base.py", 1),
        _method("sk.svm.BaseSVC", "predict_proba", "sk/svm_base.py", 5),
        _method("sk.svm.BaseSVC", "predict_log_proba", "sk/svm_base.py", 9),
        _class("sk.nb.BaseNB", "sk/nb.py", 1),
        _method("sk.nb.BaseNB", "predict_proba", "sk/nb.py", 5),
    ]
    facts = [
        Fact("sk.svm.NuSVC", RelationKind.INHERITS, "sk.svm.BaseSVC"),
        Fact("sk.nb.BaseNB.predict_proba", RelationKind.CALLS, "?predict_log_proba"),
    ]
    injector = ContextInjector(MemoryGraphStore(entities, facts))
    task = "How do `NuSVC`'s `predict_proba` and `predict_log_proba` agree?"
    proba = [e.id for e in injector.seeds(task) if e.name == "predict_proba"]
    assert proba == ["sk.svm.BaseSVC.predict_proba"]


def test_the_calls_of_a_name_defined_too_often_are_not_read(monkeypatch) -> None:
    """A group over ``MAX_CALLERS_READ`` namesakes is told apart by its class names only:
    its calls are not read."""
    entities, facts = _get_querysets()
    store = MemoryGraphStore(entities, facts)
    read: list[str] = []

    class Spy:
        def facts_of_many(self, entity_ids):
            read.extend(entity_ids)
            return batched(store).facts_of_many(entity_ids)

    group = [e for e in entities if e.name == "get_queryset"]
    monkeypatch.setattr(seeds_module, "MAX_CALLERS_READ", 2)
    found = quoted_code(Spy(), [group], ["queryset.all", "OrderedObjectManager"])
    assert read == []
    assert found == {"tests.models.OrderedObjectManager.get_queryset": 1}


def _seconds_for_a_chain_of(parts: int) -> float:
    """Seconds :func:`quoted_code` takes over two namesakes whose code calls a chain of
    ``parts`` names."""
    entities, facts = [], []
    for index in range(2):
        method = _method(f"m{index}.C{index}", "run", f"m{index}.py", 2)
        entities.append(method)
        chain = ".".join(f"a{part}" for part in range(parts))
        facts.append(Fact(method.id, RelationKind.CALLS, f"?{chain}"))
    reads = batched(MemoryGraphStore(entities, facts))
    started = time.perf_counter()
    found = quoted_code(reads, [entities], ["a5.a6", f"a{parts - 2}.a{parts - 1}", "other"])
    seconds = time.perf_counter() - started
    assert found == {entity.id: 1 for entity in entities}
    return seconds


def test_a_long_call_chain_takes_linear_time() -> None:
    """Only the endings of as many parts as a quoted name has are made of a callee: every
    ending of a chain of 20,000 parts had been made, quadratic in its length (seconds)."""
    short, long = _seconds_for_a_chain_of(2_000), _seconds_for_a_chain_of(20_000)
    assert long < 30 * short + 0.5
