"""Resolution accuracy: citeloop's ``inherits`` and ``calls`` facts against griffe and jedi.

Run: ``python benchmarks/bench_resolution.py [--quick]`` (about a minute; ``--quick``
drops griffe's loading of other packages, about 30 s less). Exits 1, after printing
everything, when a share is under its target.

Entities are compared by place, not by id: a place is (absolute file, line of the
``def``/``class`` keyword), so a change of naming scheme does not move the figures.

(a) Base classes vs griffe, on ``langgraph`` (a PEP 420 namespace package, indexed from
its folder as ``make demo`` does) and ``langchain_core``. griffe loads both statically
(``allow_inspection=False``: never imported), then resolves aliases with
``implicit=True`` (names missing from ``__all__`` too) and ``external=True`` (it loads
any other package an alias points into: langsmith, pydantic, ...). For every class
griffe finds in the package and every base it resolves, alias chain followed to the
final object, to a class of the same package, citeloop must have the ``inherits`` fact
from the class to the base. griffe's line of a decorated class is its first decorator's
(as citeloop's is), so both are mapped to the ``class`` line with ``ast``. Target:
GRIFFE_TARGET per tree.

(b) Calls vs jedi on langchain_core. Call sites are the ``ast.Call`` nodes whose callee is
a name or an attribute (``f()``, ``a.b.f()``) in the body of a def (the innermost one
is the caller; decorators and defaults belong to the outer scope). SAMPLE of them are
drawn with a fixed seed and jedi is asked ``goto(follow_imports=True)`` on the called
name (one ``Project`` for site-packages, one ``Script`` per file). Sites where jedi lands
on a ``def``/``class`` inside langchain_core are kept; citeloop agrees when the entity at
the caller's place has a ``calls`` fact to the entity at jedi's place. Target:
JEDI_TARGET.
"""

from __future__ import annotations

import argparse
import ast
import logging
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path

import griffe
import jedi
import langgraph.graph
from _common import corpus_root, site_packages

from citeloop.knowledge import EntityKind, RelationKind, SqliteGraphStore, index_tree

GRIFFE_TARGET = 0.99
JEDI_TARGET = 0.90
SAMPLE = 300
SEED = 20_240_601
SHOWN = 20
JEDI_DEF_TYPES = frozenset({"class", "function", "property"})

Place = tuple[Path, int]


class Graph:
    """citeloop's graph of one tree, looked up by place."""

    def __init__(self, root: Path, db: Path) -> None:
        self.root = root.resolve()
        started = time.perf_counter()
        self.store = SqliteGraphStore(db)
        index_tree(root, self.store)
        self.seconds = time.perf_counter() - started
        self.at: dict[Place, list[str]] = defaultdict(list)
        for entity in self.store.all_entities():
            if entity.resolved and entity.path and entity.line and entity.kind != EntityKind.MODULE:
                self.at[keyword_place(self.root / entity.path, entity.line)].append(entity.id)

    def objects(self, place: Place, relation: RelationKind) -> list[tuple[str, int]]:
        """(object id, provenance line) of each ``relation`` fact of the entities at ``place``."""
        return [
            (fact.object, fact.provenance.start_line if fact.provenance else 0)
            for subject in self.at.get(place, [])
            for fact in self.store.facts_of(subject, [relation])
            if fact.subject == subject
        ]

    def rel(self, place: Place) -> str:
        path, line = place
        return f"{path.relative_to(self.root.parent)}:{line}"


@cache
def keyword_lines(path: Path) -> dict[int, int]:
    """First line of each def/class of ``path`` (decorators included) -> its keyword line."""
    lines: dict[int, int] = {}
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):  # citeloop indexes what ast cannot read too
        return lines
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            lines[first] = node.lineno
    return lines


def keyword_place(path: Path, line: int) -> Place:
    """The place of the def/class whose first line (decorators included) is ``line``:
    its keyword's line (another line is kept as it is)."""
    return path, keyword_lines(path).get(line, line) if path.suffix == ".py" else line


def griffe_place(obj: griffe.Object) -> Place:
    return keyword_place(Path(str(obj.filepath)).resolve(), obj.lineno or 0)


def classes_in(obj: griffe.Object) -> Iterator[griffe.Object]:
    for member in obj.members.values():
        if member.is_alias:
            continue
        if member.is_class:
            yield member
        if member.is_module or member.is_class:
            yield from classes_in(member)


def base_pairs(
    collection: griffe.ModulesCollection, package: str, folder: Path
) -> tuple[int, dict[tuple[Place, Place], str], Counter[str]]:
    """Classes found, {(class place, base place): "Class -> Base"}, bases left out by why."""
    classes = list(classes_in(collection.get_member(package)))
    pairs: dict[tuple[Place, Place], str] = {}
    left_out: Counter[str] = Counter()
    for cls in classes:
        for base in cls.bases:
            path = base if isinstance(base, str) else base.canonical_path
            try:
                target = collection.get_member(path)
                if target.is_alias:
                    target = target.final_target
            except (griffe.AliasResolutionError, griffe.CyclicAliasError, KeyError, ValueError):
                left_out["not resolved by griffe"] += 1
                continue
            if not target.is_class:
                left_out["not a class"] += 1
            elif folder not in griffe_place(target)[0].parents:
                left_out["outside the package"] += 1
            else:
                pairs[griffe_place(cls), griffe_place(target)] = f"{cls.path} -> {target.path}"
    return len(classes), pairs, left_out


def check_bases(
    name: str, graph: Graph, collection: griffe.ModulesCollection, folder: Path
) -> bool:
    classes, pairs, left_out = base_pairs(collection, name, folder)
    misses = []
    for (cls, base), label in sorted(pairs.items()):
        has = graph.objects(cls, RelationKind.INHERITS)
        if any(obj in graph.at.get(base, []) for obj, _ in has):
            continue
        if cls not in graph.at:
            why = "no citeloop entity at the class's place"
        elif base not in graph.at:
            why = "no citeloop entity at the base's place"
        else:
            why = f"citeloop inherits {sorted(obj for obj, _ in has)} (base is {graph.at[base]})"
        misses.append(f"{graph.rel(cls)} -> {graph.rel(base)} ({label}): {why}")
    share = 1 - len(misses) / len(pairs) if pairs else 1.0
    print(f"{name}: index_tree {graph.seconds:.1f} s; griffe finds {classes} classes")
    print("  griffe bases left out: " + ", ".join(f"{k} {v}" for k, v in sorted(left_out.items())))
    print(
        f"  in-package (class, base) pairs: {len(pairs)}, citeloop has "
        f"{len(pairs) - len(misses)} ({share:.1%}, target >= {GRIFFE_TARGET:.0%})"
    )
    for miss in misses[:SHOWN]:
        print(f"  MISS {miss}")
    return share >= GRIFFE_TARGET


@dataclass(frozen=True, slots=True)
class CallSite:
    path: Path
    caller_line: int
    line: int
    column: int
    """0-based column of the called name in characters, as jedi counts."""
    name: str


class CallSites(ast.NodeVisitor):
    """The call sites of one file whose callee is a name or an attribute."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = path.read_bytes().splitlines()
        self.callers: list[int] = []
        self.sites: list[CallSite] = []
        self.nameless = 0
        self.visit(ast.parse(b"\n".join(self.lines)))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for outer in [*node.decorator_list, node.args, node.returns]:
            if outer is not None:
                self.visit(outer)
        self.callers.append(node.lineno)
        for statement in node.body:
            self.visit(statement)
        self.callers.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if self.callers and isinstance(func, ast.Name):
            self.add(func.id, func.lineno, func.col_offset)
        elif self.callers and isinstance(func, ast.Attribute) and func.end_lineno is not None:
            assert func.end_col_offset is not None
            self.add(func.attr, func.end_lineno, func.end_col_offset - len(func.attr.encode()))
        elif self.callers:
            self.nameless += 1
        self.generic_visit(node)

    def add(self, name: str, line: int, byte_column: int) -> None:
        column = len(self.lines[line - 1][:byte_column].decode(errors="replace"))
        self.sites.append(CallSite(self.path, self.callers[-1], line, column, name))


def check_calls(
    graph: Graph, folder: Path, size: int = SAMPLE, seed: int = SEED, shown: int = SHOWN
) -> bool:
    files = sorted(folder.resolve().rglob("*.py"))
    visited = [CallSites(path) for path in files]
    sites = [site for visitor in visited for site in visitor.sites]
    nameless = sum(visitor.nameless for visitor in visited)
    sample = sorted(random.Random(seed).sample(sites, size), key=lambda s: (s.path, s.line))
    print(
        f"langchain_core: {len(sites)} call sites in def bodies ({nameless} more whose "
        f"callee is neither a name nor an attribute); sample {size}, seed {seed}"
    )

    started = time.perf_counter()
    project = jedi.Project(site_packages())
    outcome: Counter[str] = Counter()
    kept: list[tuple[CallSite, list[Place]]] = []
    script, script_path = None, None
    for site in sample:
        if site.path != script_path:
            script, script_path = jedi.Script(path=site.path, project=project), site.path
        assert script is not None
        try:
            names = script.goto(site.line, site.column, follow_imports=True)
        except (RecursionError, ValueError, AttributeError):  # jedi's own failures
            outcome["jedi failed"] += 1
            continue
        inside = [n for n in names if n.module_path and folder in n.module_path.resolve().parents]
        defs = sorted((n.module_path.resolve(), n.line) for n in inside if n.type in JEDI_DEF_TYPES)
        if defs:
            kept.append((site, defs))
        outcome[
            "a def/class in langchain_core (kept)"
            if defs
            else "a variable or parameter in langchain_core"
            if inside
            else "outside langchain_core (stdlib, typeshed, other packages)"
            if names
            else "nothing"
        ] += 1
    jedi_seconds = time.perf_counter() - started

    disagreements = []
    for site, defs in kept:
        caller = (site.path, site.caller_line)
        targets = {entity for place in defs for entity in graph.at.get(place, [])}
        has = graph.objects(caller, RelationKind.CALLS)
        if any(obj in targets for obj, _ in has):
            continue
        if caller not in graph.at:
            instead = "no citeloop entity at the caller's place"
        elif not targets:
            instead = "no citeloop entity at jedi's place"
        else:
            named = [
                f"{obj} (line {line})"
                for obj, line in has
                if obj.lstrip("?").split(".")[-1] == site.name
            ]
            instead = ", ".join(named) or f"no calls fact named {site.name} ({len(has)} calls)"
        disagreements.append(
            f"{graph.rel((site.path, site.line))} {site.name}() in def at line "
            f"{site.caller_line} -> jedi {', '.join(graph.rel(p) for p in defs)}; "
            f"citeloop: {instead}"
        )
    agreed = len(kept) - len(disagreements)
    share = agreed / len(kept) if kept else 1.0
    print(f"  jedi {jedi.__version__}: {jedi_seconds:.1f} s for {size} goto calls; goes to:")
    for what, count in outcome.most_common():
        print(f"    {count:4d}  {what}")
    print(
        f"  jedi-resolved {len(kept)}, citeloop agrees on {agreed} "
        f"({share:.1%}, target >= {JEDI_TARGET:.0%})"
    )
    for disagreement in disagreements[:shown]:
        print(f"  DISAGREE {disagreement}")
    return share >= JEDI_TARGET


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="griffe: do not load other packages (external=False)"
    )
    parser.add_argument("--sample", type=int, default=SAMPLE, help=f"call sites (default {SAMPLE})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"sample seed (default {SEED})")
    parser.add_argument("--shown", type=int, default=SHOWN, help="disagreements printed")
    args = parser.parse_args()
    started = time.perf_counter()
    logging.getLogger("griffe").setLevel(logging.CRITICAL)  # it logs each unresolvable alias
    trees = {
        "langgraph": Path(langgraph.graph.__file__).parents[1],
        "langchain_core": corpus_root(),
    }

    loading = time.perf_counter()
    loader = griffe.GriffeLoader(search_paths=[site_packages()], allow_inspection=False)
    for name in trees:
        loader.load(name)
    unresolved, _ = loader.resolve_aliases(implicit=True, external=not args.quick)
    print(
        f"(a) base classes vs griffe {version('griffe')} (static; aliases: implicit, "
        f"external={not args.quick}): {time.perf_counter() - loading:.1f} s, "
        f"{len(loader.modules_collection.members)} top-level packages loaded, "
        f"{len(unresolved)} aliases left unresolved"
    )
    ok = True
    with tempfile.TemporaryDirectory() as scratch:
        for name, root in trees.items():
            graph = Graph(root, Path(scratch) / f"{name}.db")
            try:
                ok &= check_bases(name, graph, loader.modules_collection, root.resolve())
                if name == "langchain_core":
                    print("(b) calls vs jedi")
                    ok &= check_calls(graph, root.resolve(), args.sample, args.seed, args.shown)
            finally:
                graph.store.close()
    print(f"total run time: {time.perf_counter() - started:.1f} s")
    if not ok:
        print("FAIL: a resolution share is under its target", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
