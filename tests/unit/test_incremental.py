"""Re-indexing after edits re-links only what can change, and equals a full re-index."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

from citeloop.knowledge import (
    Entity,
    Fact,
    RelationKind,
    SqliteGraphStore,
    compute_snapshot,
    index_tree,
)

TEMPLATE = {
    "pkg/__init__.py": "from pkg.base import Base as Base\nfrom pkg.util import *\n",
    "pkg/base.py": """
        from pkg.util import helper


        class Base:
            '''REQ-1: the base.'''

            def run(self):
                return helper()

            def stop(self):
                pass
        """,
    "pkg/util.py": """
        def helper():
            return 1


        class Pool:
            def acquire(self):
                pass
        """,
    "pkg/models.py": """
        from pkg import Base
        from pkg.util import Pool


        class Model(Base):
            pool: Pool

            def __init__(self):
                self.other = Pool()

            def save(self):
                self.run()
                self.pool.acquire()
                self.other.acquire()
                return helper()
        """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/view.py": """
        from pkg.models import Model
        import pkg.util as u


        def render(model: Model):
            model.save()
            model.stop()
            u.helper()
            return Model()


        def lookup(name):
            return {"pool": "Pool", "base": "Base", "widget": "Widget"}[name]
        """,
    "tests/test_view.py": """
        from pkg.sub.view import render


        def test_render():
            render(None)  # REQ-2 covered
        """,
    "docs/adr/0001-base.md": "# Use `Base`\n\nEvery `Model` derives from `Base`.\n",
}


def _edits(root: Path, rng: random.Random, step: int) -> str:
    """Apply one random edit to the tree; say what it was."""
    files = sorted(p for p in root.rglob("*") if p.is_file())
    python = [p for p in files if p.suffix == ".py"]
    target = rng.choice(python)
    text = target.read_text()
    kind = rng.choice(
        [
            "body",
            "add_function",
            "add_subclass",
            "rename_class",
            "change_base",
            "reexport",
            "delete",
            "rename_file",
            "new_module",
            "init_file",
            "decision",
            "requirement",
            "named_class",
        ]
    )
    if kind == "body":
        lines = text.splitlines()
        lines.insert(rng.randrange(len(lines) + 1), "")
        target.write_text("\n".join(lines) + f"\n# edit {step}\n")
    elif kind == "add_function":
        target.write_text(text + f"\n\ndef added_{step}(x: Pool):\n    x.acquire()\n    helper()\n")
    elif kind == "add_subclass":
        target.write_text(
            text + f"\n\nclass Sub{step}(Base):\n    def run(self):\n        super().run()\n"
        )
    elif kind == "rename_class":
        old = rng.choice(["Base", "Pool", "Model"])
        target.write_text(text.replace(f"class {old}", f"class {old}{step}"))
    elif kind == "change_base":
        target.write_text(text.replace("(Base)", "(Pool)").replace("(Model)", "(Base)"))
    elif kind == "reexport":
        init = root / "pkg" / "__init__.py"
        choice = rng.choice(["pkg.models import Model as Base", "pkg.base import Base as Base"])
        init.write_text(f"from {choice}\nfrom pkg.util import *\n")
    elif kind == "delete" and len(python) > 3:
        target.unlink()
    elif kind == "rename_file":
        target.rename(target.with_name(f"moved_{step}.py"))
    elif kind == "new_module":
        (root / "pkg" / "sub" / f"extra_{step}.py").write_text(
            "from pkg.util import Pool\n\nclass Pool2(Pool):\n    pass\n"
        )
    elif kind == "init_file":
        folder = rng.choice([root / "tests", root / "pkg" / "sub", root / "pkg"])
        init = folder / "__init__.py"
        if init.exists():
            init.unlink()
        elif folder.exists():
            init.write_text("")
    elif kind == "decision":
        record = root / "docs" / "adr" / f"{step:04d}-more.md"
        record.write_text(f"# DEC-{step % 3}: use `helper`\n\nAnd `Model.save`.\n")
    elif kind == "named_class":  # a class a string names elsewhere (one more, or a twin)
        target.write_text(text + f"\n\nclass {rng.choice(['Widget', 'Pool'])}:\n    pass\n")
    elif kind == "requirement":
        target.write_text(text + f"\n# REQ-{step % 4}: traced\n")
    return f"{kind} {target.relative_to(root)}"


def _graph(db: Path) -> tuple[dict[str, Entity], dict[str, Fact], str, dict[str, tuple]]:
    with SqliteGraphStore(db, read_only=True, cache_size=0) as store:
        entities = {entity.id: entity for entity in store.all_entities()}
        facts = {fact.fact_id: fact for e in entities for fact in store.facts_of(e)}
        # The full-text index: one document per searchable entity, none left over.
        documents = store._db.execute(
            "SELECT e.id, s.words, s.doc FROM search s JOIN entities e ON e.rowid = s.rowid"
        ).fetchall()
        (rows,) = store._db.execute("SELECT count(*) FROM search").fetchone()
        assert rows == len(documents)
        return entities, facts, store.snapshot(), {row[0]: row[1:] for row in documents}


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))


@pytest.mark.parametrize("seed", range(8))
def test_incremental_equals_full_reindex(tmp_path: Path, seed: int) -> None:
    root = tmp_path / "tree"
    _write(root, TEMPLATE)
    incremental = tmp_path / "incremental.db"
    rng = random.Random(seed)
    with SqliteGraphStore(incremental) as store:
        index_tree(root, store)
    for step in range(10):
        edit = _edits(root, rng, step)
        with SqliteGraphStore(incremental) as store:
            index_tree(root, store)
        full = tmp_path / f"full-{step}.db"
        with SqliteGraphStore(full) as store:
            index_tree(root, store)
        got, want = _graph(incremental), _graph(full)
        assert got[0] == want[0], f"entities differ after {edit}"
        assert {k: (f, f.provenance) for k, f in got[1].items()} == {
            k: (f, f.provenance) for k, f in want[1].items()
        }, f"facts differ after {edit}"
        assert got[2] == want[2], f"snapshot differs after {edit}"
        assert got[2] == compute_snapshot(got[0].values(), got[1])  # ids and spans
        assert got[3] == want[3], f"full-text index differs after {edit}"


def test_a_body_edit_relinks_that_file_only(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    _write(root, TEMPLATE)
    with SqliteGraphStore(tmp_path / "g.db") as store:
        index_tree(root, store)
        before = {row for row in store._db.execute("SELECT path, module FROM deps")}
        util = root / "pkg" / "util.py"
        util.write_text(util.read_text().replace("return 1", "return 2"))
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        report = index_tree(root, store)
        store._db.set_trace_callback(None)
        assert report.files_indexed == 1
        relinked = [s for s in statements if "FROM refs r JOIN files" in s]
        assert relinked and all("pkg/util.py" in s and "pkg/models.py" not in s for s in relinked)
        after = {row for row in store._db.execute("SELECT path, module FROM deps")}
        assert before == after


def test_an_interface_change_relinks_the_files_that_read_it(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    _write(root, TEMPLATE)
    with SqliteGraphStore(tmp_path / "g.db") as store:
        index_tree(root, store)
        util = root / "pkg" / "util.py"
        util.write_text(util.read_text().replace("def acquire", "def take"))
        index_tree(root, store)
        saves = {
            f.object
            for f in store.facts_of("pkg.models.Model.save", [RelationKind.CALLS])
            if f.subject == "pkg.models.Model.save"
        }
        assert "pkg.util.Pool.acquire" not in saves and "?pool.acquire" in saves


@pytest.mark.parametrize(
    ("files", "change"),
    [
        # A module renamed in place: a distribution marker makes libs/foo a base.
        (
            {
                "main.py": "from foo.x import Y\n\ndef go():\n    Y()\n",
                "libs/foo/foo/x.py": "class Y: ...",
            },
            lambda root: (root / "libs" / "foo" / "pyproject.toml").write_text(""),
        ),
        # A module file that hid a namespace folder goes away.
        (
            {
                "pkg/__init__.py": "",
                "pkg/mod.py": "class A: ...\n",
                "pkg/mod/A.py": "def f(): ...\n",
                "use.py": "from pkg.mod.A import f\n\ndef g():\n    f()\n",
            },
            lambda root: (root / "pkg" / "mod.py").unlink(),
        ),
        # A class in a package's __init__ hidden by a submodule of its name: its nested
        # class would share the submodule's class's id; it goes away.
        (
            {
                "pkg/__init__.py": "class a:\n    class Bee:\n        pass\n",
                "pkg/a.py": "class Bee:\n    pass\n",
                "use.py": "def f():\n    return 'Bee'\n",
            },
            lambda root: _write(root, {"pkg/__init__.py": "X = 1\n"}),
        ),
        # A package folder appears beside a module file of its name.
        (
            {
                "src/mod.py": "class Base: ...\n",
                "use.py": "import mod\n\ndef g():\n    mod.Base()\n",
            },
            lambda root: _write(root, {"src/mod/__init__.py": "class Base: ...\n"}),
        ),
    ],
)
def test_renames_relink_their_readers(tmp_path: Path, files: dict[str, str], change) -> None:
    root = tmp_path / "tree"
    _write(root, files)
    with SqliteGraphStore(tmp_path / "incremental.db") as store:
        index_tree(root, store)
        change(root)
        index_tree(root, store)
    with SqliteGraphStore(tmp_path / "full.db") as store:
        index_tree(root, store)
    assert _graph(tmp_path / "incremental.db") == _graph(tmp_path / "full.db")


def test_a_base_that_drops_a_method_relinks_its_overrides(tmp_path: Path) -> None:
    """Only the base's file changes: the subclass's ``overrides`` fact follows it."""
    root = tmp_path / "tree"
    _write(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "class Base:\n    def run(self):\n        return 1\n",
            "pkg/sub.py": "from pkg.base import Base\n\n\nclass Sub(Base):\n    def run(self):\n"
            "        return 2\n",
        },
    )

    def overrides(store: SqliteGraphStore) -> list[str]:
        return [f.object for f in store.facts_of("pkg.sub.Sub.run", [RelationKind.OVERRIDES])]

    with SqliteGraphStore(tmp_path / "g.db") as store:
        index_tree(root, store)
        assert overrides(store) == ["pkg.base.Base.run"]
        (root / "pkg" / "base.py").write_text("class Base:\n    def walk(self):\n        pass\n")
        assert index_tree(root, store).files_indexed == 1
        assert overrides(store) == []
