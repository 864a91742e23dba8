"""Many entities of one name: a name that subclasses keep means their base, a
capitalized word seeds few of its classes, and a context shows few of one name."""

from __future__ import annotations

from citeloop.knowledge import (
    ContextExpansion,
    ContextInjector,
    Entity,
    EntityKind,
    Fact,
    MemoryGraphStore,
    RelationKind,
)
from citeloop.knowledge.finding import EntityFinder
from citeloop.knowledge.seeds import MAX_PER_NAME
from citeloop.knowledge.store import batched

BASE = "pkg.db.migration.Migration"


def migrations(subclasses: int, *more: Entity) -> MemoryGraphStore:
    """A base class ``Migration`` and ``subclasses`` migration files, each defining a
    ``Migration`` of its own that inherits from it (ids that sort before the base's),
    and ``more``."""
    entities = [Entity(BASE, EntityKind.CLASS, "Migration", "pkg/db/migration.py", 1), *more]
    facts = []
    for index in range(subclasses):
        entity_id = f"pkg.contrib.migrations.m{index}.Migration"
        path = f"pkg/contrib/migrations/m{index}.py"
        entities.append(Entity(entity_id, EntityKind.CLASS, "Migration", path, 1, "(Migration)"))
        facts.append(Fact(entity_id, RelationKind.INHERITS, BASE))
    return MemoryGraphStore(entities, facts)


def test_a_name_many_subclasses_keep_means_their_base() -> None:
    injector = ContextInjector(migrations(MAX_PER_NAME + 3))
    assert [entity.id for entity in injector.seeds("How does `Migration` order them?")] == [BASE]


def test_a_name_few_entities_share_names_them_all() -> None:
    # As many as a name may contribute: the subclasses are not left out for the base.
    injector = ContextInjector(migrations(MAX_PER_NAME - 1))
    assert len(injector.seeds("How does `Migration` order them?")) == MAX_PER_NAME


def test_a_subclass_beside_another_mention_is_the_one_named() -> None:
    beside = "pkg.contrib.migrations.m4.forwards"
    forwards = Entity(beside, EntityKind.FUNCTION, "forwards", "m4.py", 3)
    store = migrations(MAX_PER_NAME + 3, forwards)
    seeds = ContextInjector(store).seeds("Why does the `Migration` with `forwards` fail?")
    assert [entity.id for entity in seeds] == ["pkg.contrib.migrations.m4.Migration", beside]


def test_entities_of_other_kinds_do_not_make_a_subclass_leave() -> None:
    # Two classes (one subclassing the other) and two functions of the name: at most
    # MAX_PER_NAME of a kind rank alike, so both classes are named.
    functions = (
        Entity(f"f{i}.Migration", EntityKind.FUNCTION, "Migration", "f.py", i) for i in (1, 2)
    )
    store = migrations(1, *functions)
    seeds = ContextInjector(store).seeds("How does `Migration` order them?")
    assert [entity.id for entity in seeds] == ["pkg.contrib.migrations.m0.Migration", BASE]


def capitalized(store: MemoryGraphStore, text: str) -> list[str]:
    """The ids of the classes the capitalized words of ``text`` seed."""
    return [e.id for e in EntityFinder(store, batched(store), 0).capitalized_classes(text, None)]


def test_a_capitalized_word_seeds_a_subclassed_base_once() -> None:
    assert capitalized(migrations(MAX_PER_NAME + 3), "How does the Migration run?") == [BASE]


def test_a_capitalized_word_seeds_at_most_a_few_classes_outside_tests() -> None:
    entities = [
        Entity(f"lib{index}.Frozen", EntityKind.CLASS, "Frozen", f"lib{index}.py", 1)
        for index in range(MAX_PER_NAME + 2)
    ]
    entities.append(Entity("tests.a.Frozen", EntityKind.CLASS, "Frozen", "tests/a.py", 1))
    store = MemoryGraphStore(entities, [])
    wanted = [f"lib{index}.Frozen" for index in range(MAX_PER_NAME)]
    assert capitalized(store, "Why is the Frozen one slow?") == wanted


def plugins(count: int) -> MemoryGraphStore:
    """A ``Plugin`` base whose ``count`` subclasses each define ``_get_streams``."""
    entities = [Entity("core.Plugin", EntityKind.CLASS, "Plugin", "core.py", 1)]
    facts = []
    for index in range(count):
        owner = f"plugins.p{index}.Site{index}"
        path = f"plugins/p{index}.py"
        method = f"{owner}._get_streams"
        entities.append(Entity(owner, EntityKind.CLASS, f"Site{index}", path, 1, "(Plugin)"))
        entities.append(Entity(method, EntityKind.METHOD, "_get_streams", path, 2, "(self)"))
        facts.append(Fact(owner, RelationKind.INHERITS, "core.Plugin"))
        facts.append(Fact(owner, RelationKind.DEFINES, method))
    return MemoryGraphStore(entities, facts)


def test_a_context_shows_at_most_a_few_entities_of_one_name() -> None:
    injector = ContextInjector(plugins(8), max_context_tokens=4_000)
    context = injector.inject("How does `Plugin` work?")
    shown = [entity for entity in context.entities if entity.name == "_get_streams"]
    assert len(shown) == MAX_PER_NAME
    assert len([e for e in context.entities if e.name.startswith("Site")]) > MAX_PER_NAME


def test_a_widened_context_shows_no_more_of_one_name() -> None:
    injector = ContextInjector(plugins(8), max_context_tokens=4_000)
    default = injector.inject("How does `Plugin` work?")
    widened = injector.inject(
        "How does `Plugin` work?", expansion=ContextExpansion(extra_hops=1), default=default
    )
    assert [e.name for e in widened.entities].count("_get_streams") == MAX_PER_NAME


def test_the_members_of_the_classes_a_task_names_all_stay() -> None:
    names = " ".join(f"`Site{index}`" for index in range(MAX_PER_NAME + 2))
    context = ContextInjector(plugins(8), max_context_tokens=4_000).inject(f"Compare {names}")
    owners = {e.id.rpartition(".")[0] for e in context.entities if e.name == "_get_streams"}
    assert {f"plugins.p{index}.Site{index}" for index in range(MAX_PER_NAME + 2)} <= owners


def test_a_name_an_answer_used_far_from_its_context_brings_a_few_of_it() -> None:
    """`as_int.restype` in an answer's example is no cue to bring every `as_int` of the
    code base: far from the context, a name brings its best few (outside tests first);
    one the answer said the context lacks brings them all."""
    funcs = [
        Entity(f"tests.t{i}.as_int", EntityKind.FUNCTION, "as_int", f"tests/t{i}.py", 1)
        for i in range(8)
    ] + [
        Entity(f"pkg.m{i}.as_int", EntityKind.FUNCTION, "as_int", f"pkg/m{i}.py", 1)
        for i in range(4)
    ]
    field = Entity("pkg.gdal.Field", EntityKind.CLASS, "Field", "pkg/gdal.py", 1)
    injector = ContextInjector(MemoryGraphStore([field, *funcs], []))
    task = "How does `Field` convert a value?"
    widened = injector.inject(task, expansion=ContextExpansion.for_attempt(0, ("as_int.restype",)))
    brought = [e.id for e in widened.entities if e.name == "as_int"]
    assert brought == [f"pkg.m{i}.as_int" for i in range(MAX_PER_NAME)]
    lacking = ContextExpansion.for_attempt(0, ("as_int",), ("as_int",))
    assert sum(e.name == "as_int" for e in injector.inject(task, expansion=lacking).entities) == 12


def _scalers() -> tuple[ContextInjector, str]:
    """Four transformer classes in one module, each with ``inverse_transform`` and
    ``value``, and a ``__init__`` in another module: names an answer uses in its prose."""
    entities = []
    for name in ("StandardScaler", "Normalizer", "Binarizer", "Encoder"):
        entities.append(Entity(f"pkg.data.{name}", EntityKind.CLASS, name, "pkg/data.py", 1))
        for member in ("inverse_transform", "value"):
            kind = EntityKind.METHOD if member == "inverse_transform" else EntityKind.ATTRIBUTE
            entities.append(Entity(f"pkg.data.{name}.{member}", kind, member, "pkg/data.py", 2))
    entities.append(Entity("pkg.io.Reader.__init__", EntityKind.METHOD, "__init__", "pkg/io.py", 3))
    return ContextInjector(MemoryGraphStore(entities, [])), "What is `StandardScaler` for?"


def test_a_name_an_answer_used_means_the_one_its_context_showed() -> None:
    # `inverse_transform` beside the scaler shown is that scaler's, not every scaler's
    # of the module; a plain word it used (`value`, `__init__`) that its context did not
    # show brings nothing. Said lacking, the name brings the others (another is missing).
    injector, task = _scalers()
    shown = ["pkg.data.StandardScaler", "pkg.data.StandardScaler.inverse_transform"]
    used = ("inverse_transform", "value", "__init__")
    widened = injector.inject(task, expansion=ContextExpansion.for_attempt(0, used), keep=shown)
    ids = {entity.id for entity in widened.entities}
    assert [i for i in ids if i.endswith(".inverse_transform")] == [shown[1]]
    assert [i for i in ids if i.endswith(".value")] == ["pkg.data.StandardScaler.value"]
    assert not any(i.endswith(".__init__") for i in ids)
    lacking = ContextExpansion.for_attempt(0, used, ("inverse_transform",))
    ids = {entity.id for entity in injector.inject(task, expansion=lacking, keep=shown).entities}
    assert sum(i.endswith(".inverse_transform") for i in ids) == 4


def test_a_product_s_name_in_a_task_hints_at_a_class_so_named_without_making_it_core() -> None:
    """conan's `CMake` class wraps CMake: "the CMake variable" of a toolchain block is
    CMake's, and a played answer had been asked to cite the build helper. The class
    still comes in as a hint (as for a capitalized word); in backticks it is core."""
    entities = [
        Entity("conan.tools.cmake.cmake.CMake", EntityKind.CLASS, "CMake", "cmake.py", 1),
        Entity("conan.tools.cmake.blocks.VSRuntimeBlock", EntityKind.CLASS, "VSRuntimeBlock"),
    ]
    store = MemoryGraphStore(entities, [])
    task = "Where does VSRuntimeBlock compute the CMake variable for the runtime?"
    injector = ContextInjector(store)
    assert [e.name for e in injector.seeds(task)] == ["VSRuntimeBlock"]
    assert capitalized(store, task) == ["conan.tools.cmake.cmake.CMake"]
    context = injector.inject(task)
    assert [e.name for e in context.core] == ["VSRuntimeBlock"]
    assert "CMake" in {e.name for e in context.entities}
    assert [e.name for e in injector.seeds("Where does `CMake` build?")] == ["CMake"]
