"""Module names as Python would import them, for every file of an indexed tree.

An import name is a file's path relative to a ``sys.path`` entry (a *base*), with the
folders on the way as packages: regular packages (with ``__init__.py``) or PEP 420
namespace packages (without; https://peps.python.org/pep-0420/). The tree is read, never
imported, so the bases are inferred:

- **Above the root.** When the indexed folder is itself a package (it has
  ``__init__.py``), its name comes from the chain of ``__init__.py`` folders above it
  (``.../langchain_core`` -> ``langchain_core``), continued through namespace folders up
  to a ``site-packages``, ``dist-packages`` or ``src`` folder
  (``site-packages/google/cloud`` -> ``google.cloud``), or one folder up to a
  distribution's folder. A folder directly in such a folder is a package even without
  ``__init__.py`` (``site-packages/langgraph`` -> ``langgraph``). Otherwise the root is
  a base.
- **Inside the tree.** Folders named ``src``, ``site-packages`` or ``dist-packages``, and
  folders holding a ``pyproject.toml``, ``setup.py`` or ``setup.cfg`` (a distribution
  of a monorepo) are bases; so is a ``lib`` folder right in a base that is no package
  itself but holds one (matplotlib's ``lib/matplotlib`` is ``matplotlib``), and a
  folder whose name is no identifier (``my-scripts``).
  Every other folder below a base is a package (namespace when it has no
  ``__init__.py``), so a checkout's ``tests/test_app.py`` is ``tests.test_app`` beside
  ``src/app`` as ``app``.
- **Declared.** ``packages`` names folders no rule decides (``--package NAME`` of
  ``citeloop index``): a dotted import name whose parts are the trailing folders of the
  root or of a folder in the tree. Its files are named from it.

Two files with one name (``pkg.py`` beside ``pkg/__init__.py``, or equal names under
two bases) cannot both be imported: as Python looks them up, a package folder wins over
a module file and a module file over a namespace folder (whose files then take the
folder's name with ``_``), then the shallower base, then the first path; each other
file is named by its path from the root (``examples.conf``). A file name that is no
identifier (``a.b.py``, ``my-tool.py``) cannot be imported at all and never takes a
name an importable file has.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from citeloop.errors import SourceTreeError

BASE_FOLDERS = frozenset({"src", "site-packages", "dist-packages"})
"""Folder names that are ``sys.path`` entries (namespace packages may sit directly in them)."""

LIBRARY_FOLDERS = frozenset({"lib"})
"""Folder names that a distribution's build commonly declares its packages' base
(setuptools' ``package_dir={"": "lib"}``, matplotlib's ``lib/matplotlib``): such a
folder right in a base, itself no package (no ``__init__.py``) but holding one, is a
base too."""

DISTRIBUTION_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
"""Files that make their folder the root of a distribution (a base)."""


@dataclass(frozen=True, slots=True)
class PackageRoot:
    """A top-level import name the tree provides.

    Attributes:
        name: The import name (``"langgraph"``), or a dotted declared name.
        path: Its folder, POSIX and relative to the indexed root (``"."`` for the root).
        namespace: ``True`` for a PEP 420 namespace package (no ``__init__.py``).
    """

    name: str
    path: str
    namespace: bool


@dataclass(frozen=True, slots=True)
class ModuleLayout:
    """The import names of a tree's Python files.

    Attributes:
        modules: Module name by file path (POSIX, relative to the root).
        packages: The top-level packages found, by name.
        children: For each package module name, its direct submodules' names.
        renamed: ``(path, name, fallback)`` of each file whose import name another file
            has (only one of them can be imported): it is indexed as ``fallback``.
    """

    modules: dict[str, str]
    packages: tuple[PackageRoot, ...]
    children: dict[str, frozenset[str]]
    renamed: tuple[tuple[str, str, str], ...] = ()

    def context_key(self, path: str, top_names: Collection[str] = ()) -> str:
        """What a file's index depends on besides its bytes: its module name and, for a
        package's ``__init__.py``, which of the names it defines (``top_names``) are also
        submodules (those definitions are shadowed)."""
        module = self.modules[path]
        if not path.endswith("__init__.py"):
            return module
        shadowed = self.children.get(module, frozenset()).intersection(top_names)
        if not shadowed:
            return module
        return module + "\x1f" + "\x1f".join(sorted(shadowed))


def _is_package_file(path: str) -> bool:
    return PurePosixPath(path).name == "__init__.py"


def _root_prefix(root: Path, declared: Sequence[str]) -> tuple[str, bool]:
    """The import name of the root folder itself (``""`` when it is a base), and whether
    it is a namespace package."""
    for name in declared:
        parts = name.split(".")
        if list(root.parts[-len(parts) :]) == parts:
            return name, not (root / "__init__.py").is_file()
    names: list[str] = []
    folder = root
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        names.append(folder.name)
        folder = folder.parent
    namespace = not names
    # Continue through namespace folders up to a site-packages or src folder, or one
    # namespace folder up to a distribution's folder (``libs/pkg/pyproject.toml``).
    pending: list[str] = []
    while folder.name.isidentifier() and not _is_base(folder, len(pending)):
        pending.append(folder.name)
        if folder.parent == folder or len(pending) > 8:
            pending = []
            break
        folder = folder.parent
    if folder != root and _is_base(folder, len(pending)):
        names.extend(pending)
    elif namespace:
        return "", False
    return ".".join(reversed(names)), namespace


def _is_base(folder: Path, below: int) -> bool:
    """Whether a folder at or above the root is a ``sys.path`` entry for a package
    ``below`` namespace folders down."""
    if folder.name in BASE_FOLDERS:
        return True
    if below > 1:
        return False
    try:
        return any((folder / marker).is_file() for marker in DISTRIBUTION_MARKERS)
    except OSError:
        return False


def _find_declared(name: str, folders: Collection[str]) -> str:
    suffix = name.replace(".", "/")
    found = [f for f in folders if f == suffix or f.endswith("/" + suffix)]
    if not found:
        last = suffix.rpartition("/")[2]
        close = difflib.get_close_matches(last, {f.rpartition("/")[2] for f in folders}, n=3)
        hint = f" (folders with a close name: {', '.join(close)})" if close else ""
        raise SourceTreeError(
            f"--package {name!r}: no folder {suffix!r} in the indexed tree{hint}; pass the "
            "import name of the indexed folder or of a folder in it that holds the "
            "package's Python files"
        )
    return min(found, key=lambda folder: (folder.count("/"), folder))


def module_layout(
    root: Path,
    paths: Iterable[str],
    distributions: Collection[str] = (),
    packages: Sequence[str] = (),
) -> ModuleLayout:
    """Name every Python file of a tree as Python would import it.

    Args:
        root: The indexed folder (absolute and resolved); folders above it are read to
            name a root that is itself a package.
        paths: The ``.py`` files, POSIX and relative to ``root``.
        distributions: Folders (relative, ``"."`` for the root) that hold a
            ``pyproject.toml`` or ``setup.cfg`` (``setup.py`` is found among ``paths``).
        packages: Declared dotted import names of folders of the tree (``--package``).

    Returns:
        The module name of every file, the top-level packages, the submodules of every
        package, and the files that had to take another name.

    Raises:
        SourceTreeError: A declared name is not dotted identifiers, or names no folder.
    """
    files = sorted(paths)
    folders = {str(PurePosixPath(p).parent) for p in files} - {"."}
    folders |= {str(parent) for f in folders for parent in PurePosixPath(f).parents} - {"."}
    for name in packages:
        _check_declared(name)
    prefix, root_namespace = _root_prefix(root, packages)
    declared = {_find_declared(name, folders): name for name in packages if name != prefix}
    names, base_depth = _folder_names(
        files, folders, distributions, prefix, root_namespace, declared
    )
    wanted: dict[str, list[str]] = {}
    for path in files:
        pure = PurePosixPath(path)
        package = names[str(pure.parent)]
        stem = pure.stem if pure.stem.isidentifier() else pure.stem.replace(".", "_")
        if stem == "__init__":
            module = package or "__init__"
        else:
            module = f"{package}.{stem}" if package else stem
        wanted.setdefault(module, []).append(path)
    modules: dict[str, str] = {}
    renamed: list[tuple[str, str, str]] = []
    taken = set(wanted)
    for module, claimants in wanted.items():
        # Python imports a package folder before a module file, a module file before a
        # namespace folder, and the first sys.path entry that has the name.
        claimants.sort(
            key=lambda p: (
                not PurePosixPath(p).stem.isidentifier(),
                not _is_package_file(p),
                base_depth[str(PurePosixPath(p).parent)],
                p,
            )
        )
        modules[claimants[0]] = module
        for loser in claimants[1:]:
            parts = [part.replace(".", "_") for part in PurePosixPath(loser).with_suffix("").parts]
            fallback = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            while fallback in taken:
                fallback += "_"
            taken.add(fallback)
            modules[loser] = fallback
            renamed.append((loser, module, fallback))
    children: dict[str, set[str]] = {}
    for module in modules.values():
        parent, _, child = module.rpartition(".")
        if parent:
            children.setdefault(parent, set()).add(child)
    return ModuleLayout(
        modules=modules,
        packages=_package_roots(modules, renamed, prefix, root_namespace, declared, files),
        children={name: frozenset(found) for name, found in children.items()},
        renamed=tuple(renamed),
    )


def _check_declared(name: str) -> None:
    if not name or not all(part.isidentifier() for part in name.split(".")):
        raise SourceTreeError(
            f"--package {name!r} is not a dotted import name; pass the name the code "
            "imports the folder by (e.g. --package langgraph or --package google.cloud)"
        )


def _folder_names(
    files: list[str],
    folders: set[str],
    distributions: Collection[str],
    prefix: str,
    root_namespace: bool,
    declared: dict[str, str],
) -> tuple[dict[str, str], dict[str, int]]:
    """Each folder's import name (``""`` for a base) and the depth of its base."""
    with_init = {str(PurePosixPath(p).parent) for p in files if _is_package_file(p)}
    holds_package = {str(PurePosixPath(folder).parent) for folder in with_init}
    modules_files = {str(PurePosixPath(p).with_suffix("")) for p in files}
    bases = set(distributions) | {
        str(PurePosixPath(p).parent) for p in files if PurePosixPath(p).name == "setup.py"
    }
    names: dict[str, str] = {".": prefix}
    base_depth: dict[str, int] = {".": 0}
    for folder in sorted(folders, key=lambda f: (f.count("/"), f)):
        pure = PurePosixPath(folder)
        parent = str(pure.parent)
        parent_name = names[parent]
        base_depth[folder] = base_depth[parent]
        regular_parent = parent in with_init or (parent == "." and prefix and not root_namespace)
        if folder in declared:
            names[folder] = declared[folder]
        elif (
            not pure.name.isidentifier()
            or (not regular_parent and (pure.name in BASE_FOLDERS or folder in bases))
            or (
                pure.name in LIBRARY_FOLDERS
                and not parent_name
                and folder not in with_init
                and folder in holds_package
            )
        ):
            names[folder] = ""  # a base: its files are top-level modules
            base_depth[folder] = folder.count("/") + 1
        else:
            name = f"{parent_name}.{pure.name}" if parent_name else pure.name
            if folder not in with_init and folder in modules_files:
                name += "_"  # a module file of this name hides the namespace folder
            names[folder] = name
    return names, base_depth


def _package_roots(
    modules: dict[str, str],
    renamed: list[tuple[str, str, str]],
    prefix: str,
    root_namespace: bool,
    declared: dict[str, str],
    files: list[str],
) -> tuple[PackageRoot, ...]:
    """The top-level packages that name modules, each with its folder."""
    with_init = {str(PurePosixPath(p).parent) for p in files if _is_package_file(p)}
    roots: dict[str, PackageRoot] = {}
    if prefix:
        roots[prefix] = PackageRoot(prefix, ".", root_namespace)
    for folder, name in declared.items():
        roots[name] = PackageRoot(name, folder, folder not in with_init)
    fallbacks = {loser for loser, _, _ in renamed}
    for path, module in sorted(modules.items()):
        parts = module.split(".")
        if path in fallbacks or module.startswith(tuple(f"{r}." for r in roots)):
            continue
        up = len(parts) - (1 if _is_package_file(path) else 2)
        if up < 0:
            continue  # a top-level module file, not a package
        folder = PurePosixPath(path).parent
        for _ in range(up):
            folder = folder.parent
        if folder.name == parts[0]:
            roots.setdefault(
                parts[0], PackageRoot(parts[0], str(folder), str(folder) not in with_init)
            )
    return tuple(sorted(roots.values(), key=lambda root: root.name))
