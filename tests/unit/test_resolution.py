"""Name resolution: each rule on a small tree, checked through the facts it links."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from citeloop.knowledge import EntityKind, RelationKind, SqliteGraphStore, index_tree
from citeloop.knowledge.render import entity_line

CLIENT = """
class Pool:
    def acquire(self):
        return 1


class Client:
    pool: Pool

    def get(self):
        return self.pool.acquire()

    def __enter__(self):
        return self


def make_client() -> Client:
    return Client()
"""


def build(tmp_path: Path, files: dict[str, str]) -> SqliteGraphStore:
    root = tmp_path / "tree"
    for path, text in {"app/__init__.py": "", "app/net.py": CLIENT, **files}.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")
    store = SqliteGraphStore(tmp_path / "graph.db")
    index_tree(root, store)
    return store


def calls(store: SqliteGraphStore, caller: str) -> set[str]:
    return {
        fact.object
        for fact in store.facts_of(caller, [RelationKind.CALLS])
        if fact.subject == caller
    }


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        # annotated parameters, plain, optional, union, string and generic forms
        ("def use(c: Client):\n    c.get()", "app.net.Client.get"),
        ("def use(c: Optional[Client]):\n    c.get()", "app.net.Client.get"),
        ("def use(c: Client | None = None):\n    c.get()", "app.net.Client.get"),
        ("def use(c: 'Client'):\n    c.get()", "app.net.Client.get"),
        ("def use(c: Annotated[Client, 'x']):\n    c.get()", "app.net.Client.get"),
        # locals: a constructor call, an annotation, a function's return annotation
        ("def use():\n    c = Client()\n    c.get()", "app.net.Client.get"),
        ("def use():\n    c: Client = load()\n    c.get()", "app.net.Client.get"),
        ("def use():\n    c = make_client()\n    c.get()", "app.net.Client.get"),
        ("def use():\n    make_client().get()", "app.net.Client.get"),
        ("def use():\n    Client().pool.acquire()", "app.net.Pool.acquire"),
        # typed loop variables, enumerate, with and except targets, cast
        ("def use(cs: list[Client]):\n    for c in cs:\n        c.get()", "app.net.Client.get"),
        (
            "def use(cs: Sequence[Client]):\n    for i, c in enumerate(cs):\n        c.get()",
            "app.net.Client.get",
        ),
        ("def use():\n    with Client() as c:\n        c.get()", "app.net.Client.get"),
        ("def use(x):\n    cast(Client, x).get()", "app.net.Client.get"),
        # what an assignment's target reads: a subscript's key, an attribute's owner
        # (a judge found `self.headers[to_native_string(name)] = value` uncounted)
        ("def use(d):\n    d[make_client()] = 1", "app.net.make_client"),
        ("def use():\n    make_client().pool = None", "app.net.make_client"),
        ("def use(d):\n    d[0], d[make_client()] = 1, 2", "app.net.make_client"),
        # module aliases
        ("def use():\n    net.Client().get()", "app.net.Client.get"),
        ("def use():\n    N.make_client()", "app.net.make_client"),
    ],
)
def test_calls_on_typed_values(tmp_path: Path, code: str, expected: str) -> None:
    header = (
        "from typing import Annotated, Optional, Sequence, cast\n"
        "from app import net\nimport app.net as N\n"
        "from app.net import Client, make_client\n\n"
    )
    store = build(tmp_path, {"app/use.py": header + code + "\n"})
    assert expected in calls(store, "app.use.use")


def test_a_call_of_a_name_bound_to_either_of_two_callables_calls_both(tmp_path: Path) -> None:
    """matplotlib's `printer = (self._print_figure_tex if usetex else
    self._print_figure)`, then `printer(...)`: the context had said `_print_ps() calls
    _print_figure_tex()` alone. A test that calls through such a name tests both."""
    code = """
        class Canvas:
            def print_ps(self, usetex):
                printer = self._print_tex if usetex else self._print_plain
                printer()
                handle = make_default or self._print_plain
                handle()
                pick = self._print_tex if usetex else LIMIT
                pick()

            def _print_tex(self): ...
            def _print_plain(self): ...

        def make_default(): ...

        LIMIT = 3
    """
    test = """
        from app.canvas import Canvas

        def test_print(usetex):
            printer = Canvas()._print_tex if usetex else Canvas()._print_plain
            printer()
    """
    store = build(tmp_path, {"app/canvas.py": code, "tests/test_canvas.py": test})
    assert {"app.canvas.Canvas._print_tex", "app.canvas.Canvas._print_plain"} <= calls(
        store, "app.canvas.Canvas.print_ps"
    )
    assert "app.canvas.make_default" in calls(store, "app.canvas.Canvas.print_ps")  # `or`
    assert "app.canvas.LIMIT" not in calls(store, "app.canvas.Canvas.print_ps")  # no callable
    tested = {
        fact.subject
        for fact in store.facts_of("tests.test_canvas.test_print", [RelationKind.TESTED_BY])
        if fact.object == "tests.test_canvas.test_print"
    }
    assert {"app.canvas.Canvas._print_tex", "app.canvas.Canvas._print_plain"} <= tested


def test_attributes_set_in_init_and_inherited(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/service.py": """
            from app.net import Client, Pool


            class Base:
                def __init__(self):
                    self.client = Client()


            class Service(Base):
                extra: Pool

                def run(self):
                    self.client.get()
                    self.extra.acquire()
                    self.helper()

                def helper(self):
                    pass


            class Child(Service):
                def run(self):
                    super().run()
                    self.client.pool.acquire()
            """
        },
    )
    assert calls(store, "app.service.Service.run") == {
        "app.net.Client.get",
        "app.net.Pool.acquire",
        "app.service.Service.helper",
    }
    assert calls(store, "app.service.Child.run") == {
        "app.service.Service.run",
        "app.net.Pool.acquire",
    }
    client = store.get_entity("app.service.Base.client")
    assert client.kind is EntityKind.ATTRIBUTE and client.signature == " = Client()"


def test_properties_are_attributes_with_the_type_they_return(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/holder.py": """
            from functools import cached_property
            from app.net import Client


            class Holder:
                @property
                def client(self) -> Client:
                    '''The shared client.'''
                    return Client()

                @client.setter
                def client(self, value):
                    pass

                @cached_property
                def other(self) -> "Client":
                    return Client()

                def use(self):
                    self.client.get()
                    self.other.pool.acquire()
            """
        },
    )
    prop = store.get_entity("app.holder.Holder.client")
    assert prop.kind is EntityKind.ATTRIBUTE
    assert prop.decorators == ("property",) and prop.signature == ": Client"
    assert prop.summary == "The shared client."
    assert calls(store, "app.holder.Holder.use") == {"app.net.Client.get", "app.net.Pool.acquire"}
    # Its setter is the property's: the span runs to its end (the excerpt shows it).
    assert (prop.line, prop.end_line) == (7, 14)


def test_a_library_s_own_property_descriptor_is_a_property(tmp_path: Path) -> None:
    """A decorator named like a property (astropy's ``lazyproperty``) makes an
    attribute, whose ``@cache.deleter`` is its own (a played context had shown
    ``TimeBase.cache()  # L1746-1751`` without the deleter the question was about); a
    decorator of another name keeps a method."""
    store = build(
        tmp_path,
        {
            "app/time.py": """
            from app.decorators import lazyproperty, memoize


            class Time:
                @lazyproperty
                def cache(self):
                    '''The cache of this instance.'''
                    return {}

                @cache.deleter
                def cache(self):
                    for instance in self._ids:
                        instance.clear()

                @memoize
                def value(self):
                    return 1
            """,
            "app/decorators.py": """
            class lazyproperty(property):
                pass


            def memoize(func):
                return func
            """,
        },
    )
    cache = store.get_entity("app.time.Time.cache")
    assert cache.kind is EntityKind.ATTRIBUTE and (cache.line, cache.end_line) == (6, 14)
    assert store.get_entity("app.time.Time.value").kind is EntityKind.METHOD


def test_reexports_aliases_and_star_imports(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "lib/__init__.py": "from lib._impl import Engine as Engine\nfrom lib.stars import *\n",
            "lib/_impl.py": "class Engine:\n    def start(self):\n        pass\n",
            "lib/stars.py": "def starred():\n    pass\n",
            "app/use.py": """
            import lib
            from lib import Engine, starred as renamed
            Alias = Engine


            def use():
                lib.Engine().start()
                Engine.start(None)
                renamed()
                lib.starred()
                Alias().start()
                Alias()
            """,
        },
    )
    assert calls(store, "app.use.use") == {
        "lib._impl.Engine",
        "lib._impl.Engine.start",
        "lib.stars.starred",
    }


def test_nested_functions_are_entities_of_their_own(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/nest.py": """
            from app.net import Client


            def outer(c: Client):
                def inner():
                    c.get()

                class Local:
                    def go(self):
                        inner()

                inner()
                return Local
            """
        },
    )
    inner = store.get_entity("app.nest.outer.inner")
    assert inner is not None and inner.kind is EntityKind.FUNCTION
    assert store.get_entity("app.nest.outer.Local.go").kind is EntityKind.METHOD
    assert calls(store, "app.nest.outer") == {"app.nest.outer.inner"}
    assert calls(store, "app.nest.outer.inner") == {"app.net.Client.get"}  # through the closure
    assert calls(store, "app.nest.outer.Local.go") == {"app.nest.outer.inner"}
    defines = {f.object for f in store.facts_of("app.nest.outer", [RelationKind.DEFINES])}
    assert defines >= {"app.nest.outer.inner", "app.nest.outer.Local"}


def test_self_cls_and_classmethods(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/factory.py": """
            class Factory:
                @classmethod
                def create(cls):
                    return cls.build(cls())

                @staticmethod
                def build(self):
                    self.missing()
            """
        },
    )
    assert calls(store, "app.factory.Factory.create") == {
        "app.factory.Factory.build",
        "app.factory.Factory",
    }
    # A static method's first parameter is no receiver: the call stays unresolved.
    assert calls(store, "app.factory.Factory.build") == {"?self.missing"}


def test_unresolved_targets_are_kept(tmp_path: Path) -> None:
    store = build(tmp_path, {"app/use.py": "def use(x):\n    x.run()\n    nowhere()\n"})
    assert calls(store, "app.use.use") == {"?x.run", "?nowhere"}
    assert store.get_entity("?nowhere").resolved is False


def test_a_rebinding_reads_the_latest_value_before_the_use(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/use.py": """
            from app.net import Client, Pool


            def use():
                value = Client()
                value.get()
                value = Pool()
                value.acquire()
            """
        },
    )
    assert calls(store, "app.use.use") >= {"app.net.Client.get", "app.net.Pool.acquire"}
    assert "app.net.Pool.get" not in calls(store, "app.use.use")


def test_a_value_that_holds_itself_stays_unresolved(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/loop.py": """
            class Dist:
                def __init__(self, names: list[str]):
                    self.names = [n for n in self.names if n]
                    self.other = self.other.other

                def drop(self):
                    for name in self.names:
                        name.startswith("x")
                    self.other.go()
            """
        },
    )
    assert calls(store, "app.loop.Dist.drop") == {"?name.startswith", "?other.go"}


def test_what_python_binds_where_names_are_reused(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/base.py": "class Foo:\n    def run(self):\n        pass\n\n\n"
            "class A:\n    def m(self):\n        pass\n\n\n"
            "class B(A):\n    def m(self):\n        pass\n",
            "app/reuse.py": """
            from app.base import *
            from app.base import Foo
            from app.net import Client, Pool


            class Foo(Foo):  # the base is the imported Foo
                def go(self):
                    self.run()


            class C(B):
                def m(self):
                    super(B, self).m()  # A.m: the bases of B


            later = Client()


            def use():
                f = lambda Pool: Pool.acquire()  # the parameter, not the class
                later.pool.acquire()
                return A()


            later = Pool()  # what `use` sees once the module has run
            """,
        },
    )
    (base,) = store.facts_of("app.reuse.Foo", [RelationKind.INHERITS])
    assert base.object == "app.base.Foo"
    assert calls(store, "app.reuse.Foo.go") == {"app.base.Foo.run"}
    assert calls(store, "app.reuse.C.m") == {"app.base.A.m"}
    assert calls(store, "app.reuse.use") == {"?Pool.acquire", "?later.pool.acquire", "app.base.A"}


def test_loops_over_typed_pairs(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/pairs.py": """
            from app.net import Client, Pool


            def use(pairs: list[tuple[Client, Pool]]):
                for client, pool in pairs:
                    client.get()
                    pool.acquire()
            """
        },
    )
    assert calls(store, "app.pairs.use") == {"app.net.Client.get", "app.net.Pool.acquire"}


def test_values_of_typed_mappings(tmp_path: Path) -> None:
    store = build(
        tmp_path,
        {
            "app/maps.py": """
            from typing import Mapping
            from app.net import Client, Pool


            def use(clients: Mapping[str, Client], pools: dict[str, Pool], key: str):
                clients[key].get()
                pools.get(key).acquire()
                for client in clients.values():
                    client.get()
                for name, pool in pools.items():
                    pool.acquire()
            """
        },
    )
    # The containers' own methods are no code of the tree: they stay unresolved.
    assert calls(store, "app.maps.use") == {
        "app.net.Client.get",
        "app.net.Pool.acquire",
        "?pools.get",
        "?clients.values",
        "?pools.items",
    }


def test_values_of_typed_mappings_held_in_attributes(tmp_path: Path) -> None:
    """`self.clients.values()` of an attribute `clients: dict[str, Client]` had been
    left unresolved (`?c.get`), while `self.clients[key]` and a parameter's `.values()`
    resolved: a newcomer's `sum(i.value() for i in self.items.values())` had no calls
    line to `Item.value`."""
    store = build(
        tmp_path,
        {
            "app/hub.py": """
            from app.net import Client, Pool


            class Hub:
                def __init__(self) -> None:
                    self.clients: dict[str, Client] = {}
                    self.pools: dict[str, Pool] = {}

                def each(self) -> None:
                    for c in self.clients.values():
                        c.get()

                def one(self, key: str) -> None:
                    self.pools.get(key).acquire()

                def pairs(self) -> None:
                    for name, pool in self.pools.items():
                        pool.acquire()
            """
        },
    )
    assert calls(store, "app.hub.Hub.each") == {"app.net.Client.get", "?clients.values"}
    assert calls(store, "app.hub.Hub.one") == {"app.net.Pool.acquire", "?pools.get"}
    assert calls(store, "app.hub.Hub.pairs") == {"app.net.Pool.acquire", "?pools.items"}


def _wrappers() -> list[str]:
    from citeloop.knowledge.indexing import chains

    names = chains._OPTIONAL_WRAPPERS | chains._ITERABLES | chains._MAPPINGS
    return sorted(names | {"Union", "Coroutine", "type", "Type", "tuple", "Tuple", "Client"})


@pytest.mark.parametrize("wrapper", _wrappers())
def test_an_empty_subscript_annotation_is_unknown_not_fatal(tmp_path: Path, wrapper: str) -> None:
    # pylint's own tests annotate with ``Generator[()]``: a subscript that holds an
    # empty tuple, so the wrapper has no argument to take the type from.
    code = f"""
    from app.net import Client

    def use(value: {wrapper}[()], other: Client):
        value.get()
        other.get()
    """
    root = tmp_path / "tree"
    store = build(tmp_path, {"app/use.py": code})
    assert not index_tree(root, store).skipped
    assert "app.net.Client.get" in calls(store, "app.use.use")


def test_a_main_guard_block_is_a_script_run_not_module_attributes(tmp_path: Path) -> None:
    """A played context showed `res = ...` and `msg = repr_errors(...)` of a module's
    `__main__` block as module constants."""
    store = build(
        tmp_path,
        {
            "app/tool.py": """
            LIMIT = 3

            def report(x):
                return x

            if __name__ == "__main__":
                res = report(LIMIT)
                msg = make_client()
            else:
                on_import = report(1)
            if "__main__" == __name__:
                reversed_guard = 2
            """,
        },
    )
    names = {e.name for e in store.all_entities() if e.path == "app/tool.py"}
    assert {"LIMIT", "report", "on_import"} <= names
    assert not names & {"res", "msg", "reversed_guard"}


def test_an_instance_attribute_knows_the_method_that_sets_it(tmp_path: Path) -> None:
    """Played contexts showed `self.x = ...` lines of a method as class attributes
    (`Section._interpolation_engine = class_(self)  # L545`)."""
    store = build(
        tmp_path,
        {
            "app/engine.py": """
            class Engine:
                mode = "fast"

                def __init__(self, section):
                    self.section = section
                    self.mode = "slow"

                def run(self):
                    self.cached = self.section
                    if self.mode == "slow":
                        self.prior = 1
                    else:
                        self.prior = 2

                def reset(self):
                    self.prior = 0
                    (_, self.labels_), *self.rest = fit(self)
                    self.labels_ = None
            """,
        },
    )

    def entity(name: str):
        return store.get_entity(f"app.engine.Engine.{name}")

    assert (entity("section").set_in, entity("cached").set_in) == ("__init__", "run")
    assert entity("mode").set_in == ""  # a class attribute, also set in __init__
    assert (entity("mode").assignments, entity("cached").assignments) == (2, 1)
    assert entity_line(entity("mode"), "Engine") == 'Engine.mode = "fast"  # L3 set 2 times'
    line = entity_line(entity("cached"), "Engine")
    assert line == "Engine.cached = self.section  # L10 set in run"
    # Set by three statements (branches, another method): its line shows the first's
    # value and says it is one of three (played contexts showed one branch as the value).
    prior = entity_line(entity("prior"), "Engine")
    assert prior == "Engine.prior = 1  # L12 set 3 times, first in run"
    # Unpacked from a tuple, an attribute is set too (played: `labels_` said 2 times).
    assert (entity("labels_").assignments, entity("labels_").line) == (2, 18)
    assert entity("rest").set_in == "reset"


def test_each_target_of_a_multi_line_unpacking_is_at_its_own_line(tmp_path: Path) -> None:
    """A played member list put all eleven targets of a multi-line `(self.support_, ...,
    self._probB, ...) = fit(...)` at the statement's first line."""
    store = build(
        tmp_path,
        {
            "app/svm.py": """
            class SVM:
                def fit(self, X):
                    (
                        self.support_,
                        self._probB,
                    ) = fit(X)
            """,
        },
    )
    lines = [store.get_entity(f"app.svm.SVM.{name}").line for name in ("support_", "_probB")]
    assert lines == [5, 6]


def test_a_function_nested_in_a_method_sets_the_instance_attribute(tmp_path: Path) -> None:
    """A closure's ``self.x = ...`` sets the attribute of its method's instance: a played
    context said ``Response._content_consumed`` was set twice (a nested ``generate()``
    sets it a third time). A nested function's own ``self`` parameter is not the
    method's, and a function outside a class has no instance."""
    store = build(
        tmp_path,
        {
            "app/stream.py": """
            class Stream:
                def __init__(self):
                    self.consumed = False

                    def on_done(future):
                        self.result = future.result()
                    self.result = None

                def chunks(self):
                    def generate():
                        yield 1
                        self.consumed = True

                    def unrelated(self):
                        self.other = 1

                    self.started = True
                    return generate()


            def outside(self):
                def inner():
                    self.loose = 1
            """,
        },
    )
    consumed = store.get_entity("app.stream.Stream.consumed")
    assert (consumed.assignments, consumed.set_in) == (2, "__init__")
    # A callback defined before its method's own statement: the method's is the first.
    result = store.get_entity("app.stream.Stream.result")
    assert (result.signature, result.line, result.set_in) == (" = None", 8, "__init__")
    assert result.assignments == 2
    assert store.get_entity("app.stream.Stream.other") is None
    names = {e.name for e in store.all_entities() if e.path == "app/stream.py"}
    assert "loose" not in names and "started" in names


def test_a_module_variable_set_twice_says_so(tmp_path: Path) -> None:
    """A module variable assigned twice (a gallery script's `model = ...` per plot) or
    extended (`NAMES += (...)`) shows its first value and says it is one of several: a
    played context had shown `scipy_special_ufuncs = ...` as all of it, and `model`'s
    first value beside the call its second one makes."""
    store = build(
        tmp_path,
        {
            "app/names.py": """
            NAMES = ("a", "b")
            NAMES += ("c",)
            model = make(1)
            model = other(2)
            LIMIT = 3

            def make(a):
                return a

            def other(a):
                return a
            """,
        },
    )

    def line(name: str) -> str:
        return entity_line(store.get_entity(f"app.names.{name}"), None)

    assert line("NAMES") == 'NAMES = ("a", "b")  # L2 set 2 times'
    assert line("model") == "model = make(1)  # L4 set 2 times"
    assert line("LIMIT") == "LIMIT = 3  # L6"


def test_a_declaration_is_no_assignment(tmp_path: Path) -> None:
    """A bare annotation declares an attribute and sets nothing: a played context had
    said `Session.cookies: RequestsCookieJar  # L424 set 2 times` of requests' class
    declaration and its one `self.cookies = ...` in `__init__`."""
    store = build(
        tmp_path,
        {
            "app/jar.py": """
            LIMIT: int
            LIMIT = 3
            LIMIT = 4
            WIDTH: int

            class Session:
                cookies: dict
                headers: dict

                def __init__(self):
                    self.cookies = {}
                    self.headers = {}
                    self.headers = {"a": 1}

                @property
                def size(self) -> int:
                    return 1

                @size.setter
                def size(self, value):
                    self._size = value

                def grow(self):
                    self.size = 2

                def _eval(self):
                    self.policy: str
                    self.mode: str
                    self.mode = "a"
            """,
        },
    )

    def line(name: str, owner: str | None = None) -> str:
        return entity_line(store.get_entity(f"app.jar.{name}"), owner)

    assert line("Session.cookies", "Session") == "Session.cookies: dict  # L8"
    assert line("Session.headers", "Session") == "Session.headers: dict  # L9 set 2 times"
    assert line("LIMIT") == "LIMIT: int = ...  # L2 set 2 times"
    assert line("WIDTH") == "WIDTH: int  # L5"  # declared, never set
    # A property's setter called through `self.size = 2` is no assignment either.
    assert store.get_entity("app.jar.Session.size").assignments == 0
    # `self.policy: str` in a method declares what a configuration sets (sqlfluff's
    # rules): a played context had said `set in _eval` of it.
    assert line("Session.policy", "Session") == "Session.policy: str  # L28 declared in _eval"
    assert line("Session.mode", "Session") == "Session.mode: str  # L29 set in _eval"


def test_a_function_defined_twice_says_so(tmp_path: Path) -> None:
    """A function defined under `if` and again under `else` (or twice in one body) shows
    its first definition and says it is one of several: a played context had shown one
    of two byte-order variants of `_ensure_bigendian` as the function, and the answer
    read the other's code into it."""
    store = build(
        tmp_path,
        {
            "app/order.py": """
            import sys

            if sys.byteorder == "little":
                def swap(x):
                    return x[::-1]
            else:
                def swap(x):
                    return x

            class Box:
                def size(self):
                    def inner():
                        return 1

                    def inner():
                        return 2

                    return inner()

                def once(self):
                    return 0
            """,
        },
    )

    def line(entity_id: str, owner: str | None = None) -> str:
        return entity_line(store.get_entity(f"app.order.{entity_id}"), owner)

    assert line("swap") == (
        'def swap(x)  # L5-6 defined 2 times, under if sys.byteorder == "little" (L4)'
    )
    assert line("Box.size.inner") == "def inner()  # L13-14 inside Box.size, defined 2 times"
    assert line("Box.once", "Box") == "Box.once()  # L21-22"


def overridden(store: SqliteGraphStore, member: str) -> set[str]:
    return {
        fact.object
        for fact in store.facts_of(member, [RelationKind.OVERRIDES])
        if fact.subject == member
    }


def test_a_member_overrides_the_nearest_definition_up_its_bases(tmp_path: Path) -> None:
    """``Leaf.run`` overrides ``Middle.run`` (not ``Root.run``, which ``Middle`` hides);
    ``Leaf.stop`` overrides ``Root.stop`` through a base that does not define it; a
    property overrides a property; a name no base defines overrides nothing, and a
    class's own base list across modules and aliases is followed."""
    store = build(
        tmp_path,
        {
            "app/root.py": """
            class Root:
                def run(self): ...
                def stop(self): ...
                @property
                def size(self): return 0
            """,
            "app/tree.py": """
            from app.root import Root as Base

            class Middle(Base):
                def run(self):
                    self.stop()

            class Leaf(Middle):
                def run(self): ...
                def stop(self): ...
                @property
                def size(self): return 1
                def grow(self): ...
            """,
        },
    )
    try:
        assert overridden(store, "app.tree.Leaf.run") == {"app.tree.Middle.run"}
        assert overridden(store, "app.tree.Middle.run") == {"app.root.Root.run"}
        assert overridden(store, "app.tree.Leaf.stop") == {"app.root.Root.stop"}
        assert overridden(store, "app.tree.Leaf.size") == {"app.root.Root.size"}
        assert overridden(store, "app.tree.Leaf.grow") == set()
        assert overridden(store, "app.root.Root.run") == set()
        # The base's self-call still resolves to what the base's class holds.
        assert calls(store, "app.tree.Middle.run") == {"app.root.Root.stop"}
    finally:
        store.close()
