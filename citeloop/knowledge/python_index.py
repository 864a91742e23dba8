"""Indexing one Python file: a single walk over its syntax tree (never imported or run).

Records the module, its classes (with bases), functions, methods and tests, ``defines``
facts, and references to link later: calls, bases, and requirement ids (``REQ-...``)
found in decorators, docstrings and comments.

Name resolution is best-effort and static: a call ``f()`` resolves to a definition of
``f`` in the same module or to what ``from x import f`` / ``import x`` bound, ``self.m()``
to a method of the enclosing class (or, at link time, of its bases). Calls are recorded
only inside functions and methods; calls made at import time or in class bodies are not.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import PurePosixPath

from citeloop.knowledge.model import Entity, EntityKind, Fact, Provenance, RelationKind
from citeloop.knowledge.names import requirement_mentions
from citeloop.knowledge.records import FileIndex, Reference

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.alias)
_REQUIREMENT_MARK = "REQ-"


def module_name(path: str, package: str = "") -> str:
    """The dotted module name of the relative POSIX ``path`` of a ``.py`` file.

    Args:
        path: Path relative to the indexed root, e.g. ``"pkg/sub/mod.py"``.
        package: Dotted name of the root itself when the root is a package
            (``"langchain_core"``); empty otherwise, and then a leading ``src/`` is dropped.

    Returns:
        E.g. ``"pkg.sub.mod"``; ``"pkg.sub"`` for ``"pkg/sub/__init__.py"``.
    """
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if not package and len(parts) > 1 and parts[0] == "src":
        parts.pop(0)
    if package:
        parts.insert(0, package)
    return ".".join(parts) or PurePosixPath(path).parent.name or "__init__"


def is_test_file(path: str) -> bool:
    """Whether ``path`` holds tests: ``test_*.py``, ``*_test.py`` or below a ``tests/`` dir."""
    pure = PurePosixPath(path)
    return (
        pure.name.startswith("test_")
        or pure.name.endswith("_test.py")
        or any(part in ("tests", "test") for part in pure.parts[:-1])
    )


def _chain(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; ``None`` when it does not start with a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        parts.reverse()
        return parts
    return None


def _arguments(args: ast.arguments) -> str:
    names = [arg.arg for arg in (*args.posonlyargs, *args.args)]
    if args.vararg:
        names.append("*" + args.vararg.arg)
    names.extend(arg.arg for arg in args.kwonlyargs)
    if args.kwarg:
        names.append("**" + args.kwarg.arg)
    return ", ".join(names)


def _span_start(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    return min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])


class _FileWalker:
    """Collects one file's entities, facts and references in one pass over its tree."""

    def __init__(self, path: str, digest: str, module: str, source: str) -> None:
        self.path = path
        self.digest = digest
        self.module = module
        self.source = source
        self.is_tests = is_test_file(path)
        self.index = FileIndex(path, digest)
        self.imports: dict[str, str] = {}
        self.top_level: set[str] = set()
        # (start, end, entity id) of each class and def, to attribute comments by line.
        self.spans: list[tuple[int, int, str]] = []
        # (caller id, enclosing class id, call node)
        self.calls: list[tuple[str, str | None, ast.Call]] = []
        # (class id, base as written, base node); qualified once all imports are seen.
        self.bases: list[tuple[str, str, ast.expr]] = []
        # (entity id, node whose decorators and docstring may hold requirement ids)
        self.documented: list[tuple[str, ast.AST]] = []

    def provenance(self, start: int, end: int) -> Provenance:
        return Provenance(self.path, start, end, self.digest)

    def run(self, tree: ast.Module) -> FileIndex:
        name = self.module.rsplit(".", 1)[-1]
        self.index.entities.append(Entity(self.module, EntityKind.MODULE, name, self.path, 1))
        self.documented.append((self.module, tree))
        self.walk(tree)
        self.index.references.extend(
            Reference(
                RelationKind.INHERITS,
                class_id,
                self.qualify(name.split(".")),
                name,
                base.lineno,
                base.end_lineno or base.lineno,
            )
            for class_id, name, base in sorted(self.bases, key=lambda item: item[2].lineno)
        )
        self.index.references.extend(self.call_references())
        if _REQUIREMENT_MARK in self.source:
            self.index.references.extend(self.requirement_references())
        return self.index

    def walk(self, tree: ast.Module) -> None:
        # Scope: (container id for new definitions or None inside a function,
        #         enclosing class id, id of the def that receives calls).
        root = (self.module, None, None)
        stack: list[tuple[ast.AST, tuple[str | None, str | None, str | None]]] = [
            (node, root) for node in tree.body
        ]
        while stack:
            node, scope = stack.pop()
            if isinstance(node, _LEAVES):
                continue
            container, class_id, caller = scope
            if isinstance(node, _FUNCTIONS) and container is not None:
                inner = self.define_function(node, container, class_id)
                stack.extend((child, scope) for child in node.decorator_list)
                stack.extend((child, scope) for child in ast.iter_child_nodes(node.args))
                if node.returns:
                    stack.append((node.returns, scope))
                stack.extend((child, inner) for child in node.body)
                continue
            if isinstance(node, ast.ClassDef) and container is not None:
                inner = self.define_class(node, container)
                stack.extend((child, scope) for child in node.decorator_list)
                stack.extend((child, scope) for child in node.bases)
                stack.extend((child.value, scope) for child in node.keywords)
                stack.extend((child, inner) for child in node.body)
                continue
            if isinstance(node, ast.Call) and caller is not None:
                self.calls.append((caller, class_id, node))
            elif isinstance(node, ast.Import | ast.ImportFrom):
                self.bind_imports(node, at_module_level=container == self.module)
            stack.extend((child, scope) for child in ast.iter_child_nodes(node))

    def define(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
        container: str,
        kind: EntityKind,
        signature: str,
    ) -> str:
        entity_id = f"{container}.{node.name}"
        start, end = _span_start(node), node.end_lineno or node.lineno
        self.index.entities.append(
            Entity(entity_id, kind, node.name, self.path, node.lineno, signature)
        )
        self.index.facts.append(
            Fact(container, RelationKind.DEFINES, entity_id, self.provenance(start, end))
        )
        self.spans.append((start, end, entity_id))
        self.documented.append((entity_id, node))
        if container == self.module:
            self.top_level.add(node.name)
        return entity_id

    def define_function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, container: str, class_id: str | None
    ) -> tuple[None, str | None, str]:
        in_class = container == class_id
        if self.is_tests and node.name.startswith("test"):
            kind = EntityKind.TEST
        else:
            kind = EntityKind.METHOD if in_class else EntityKind.FUNCTION
        entity_id = self.define(node, container, kind, _arguments(node.args))
        return (None, class_id if in_class else None, entity_id)

    def define_class(self, node: ast.ClassDef, container: str) -> tuple[str, str, None]:
        written = []
        for base in node.bases:
            target = base.value if isinstance(base, ast.Subscript) else base
            chain = _chain(target)
            if chain is not None:
                written.append(".".join(chain))
        entity_id = self.define(node, container, EntityKind.CLASS, ", ".join(written))
        self.bases.extend(
            (entity_id, name, base) for base, name in zip(node.bases, written, strict=False)
        )
        return (entity_id, entity_id, None)

    def bind_imports(self, node: ast.Import | ast.ImportFrom, at_module_level: bool) -> None:
        if isinstance(node, ast.Import):
            bindings = {
                (alias.asname or alias.name.split(".", 1)[0]): (
                    alias.name if alias.asname else alias.name.split(".", 1)[0]
                )
                for alias in node.names
            }
        else:
            origin = self.absolute_module(node.module or "", node.level)
            bindings = {
                (alias.asname or alias.name): f"{origin}.{alias.name}" if origin else alias.name
                for alias in node.names
                if alias.name != "*"
            }
        self.imports.update(bindings)
        if at_module_level:
            self.index.aliases.update(
                {f"{self.module}.{name}": target for name, target in bindings.items()}
            )

    def absolute_module(self, module: str, level: int) -> str:
        if not level:
            return module
        package = self.module.split(".")
        if not self.path.endswith("__init__.py"):
            package.pop()
        base = package[: len(package) - (level - 1)] if level > 1 else package
        return ".".join([*base, module] if module else base)

    def qualify(self, parts: list[str]) -> str:
        """Candidate id for a dotted name used in this module; empty when unknown."""
        head, rest = parts[0], parts[1:]
        if head in self.imports:
            return ".".join([self.imports[head], *rest])
        if head in self.top_level:
            return ".".join([self.module, *parts])
        return ""

    def call_references(self) -> list[Reference]:
        seen: dict[tuple[str, str, str, str], Reference] = {}
        for caller, class_id, call in sorted(
            self.calls, key=lambda item: (item[2].lineno, item[2].col_offset)
        ):
            reference = self.call_reference(caller, class_id, call)
            if reference is not None:
                key = (caller, reference.target, reference.written, reference.mode)
                seen.setdefault(key, reference)
        return list(seen.values())

    def call_reference(self, caller: str, class_id: str | None, call: ast.Call) -> Reference | None:
        func = call.func
        # `Cls[T](...)` constructs `Cls`, as a subscripted base names its class.
        func = func.value if isinstance(func, ast.Subscript) else func
        target, mode = "", ""
        chain = _chain(func)
        if chain is not None and chain[0] in ("self", "cls") and class_id and len(chain) > 1:
            written = ".".join(chain[1:])
            target = f"{class_id}.{written}"
        elif chain == ["super"]:
            return None  # super() itself; the method called on it is the reference
        elif chain is not None:
            written = ".".join(chain)
            target = self.qualify(chain)
        elif isinstance(func, ast.Attribute):
            written = func.attr
            inner = func.value
            if (
                class_id
                and isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Name)
                and inner.func.id == "super"
            ):
                target, mode = f"{class_id}.{written}", "bases"
        else:
            return None
        end = call.end_lineno or call.lineno
        return Reference(RelationKind.CALLS, caller, target, written, call.lineno, end, mode)

    def requirement_references(self) -> list[Reference]:
        references: list[Reference] = []

        def add(subject: str, text: str, line: int) -> None:
            for requirement, title in requirement_mentions(text):
                references.append(
                    Reference(RelationKind.TRACES, subject, requirement, title, line, line)
                )

        for entity_id, node in self.documented:
            for decorator in getattr(node, "decorator_list", ()):
                for part in ast.walk(decorator):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        add(entity_id, part.value, part.lineno)
            body = getattr(node, "body", ())
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                docstring = body[0].value
                for offset, line in enumerate(docstring.value.splitlines()):
                    add(entity_id, line, docstring.lineno + offset)
        for line, comment in self.comments():
            add(self.owner_of_line(line), comment, line)
        return references

    def comments(self) -> list[tuple[int, str]]:
        try:
            return [
                (token.start[0], token.string)
                for token in tokenize.generate_tokens(io.StringIO(self.source).readline)
                if token.type == tokenize.COMMENT and _REQUIREMENT_MARK in token.string
            ]
        except (tokenize.TokenError, SyntaxError):
            # The file parsed, so this is tokenizer/parser disagreement on an edge case;
            # requirement ids from comments are then best-effort missing, never a crash.
            return []

    def owner_of_line(self, line: int) -> str:
        """Innermost class or def whose span holds ``line``; the module otherwise."""
        owner, owner_start = self.module, 0
        for start, end, entity_id in self.spans:
            if start <= line <= end and start >= owner_start:
                owner, owner_start = entity_id, start
        return owner


def index_python(path: str, digest: str, source: str, module: str) -> FileIndex:
    """Index one Python file.

    Args:
        path: POSIX path relative to the indexed root.
        digest: SHA-256 hex digest of the file's bytes.
        source: The decoded source text.
        module: The file's dotted module name (see :func:`module_name`).

    Returns:
        The file's entities, ``defines`` facts, references and module-level aliases.

    Raises:
        SyntaxError: If the source does not parse.
        ValueError: If the source contains null bytes.
        RecursionError: If the tree is too deeply nested to compile.
    """
    tree = ast.parse(source, filename=path)
    return _FileWalker(path, digest, module, source).run(tree)
