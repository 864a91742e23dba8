"""Lazy public names of a package (PEP 562): a name's module is imported on first use.

A package lists its public names in a table, name -> the module that defines it, and
hands the table to :func:`lazy_exports`; ``from package import name``, ``package.name``
and ``dir(package)`` then work as with eager imports, but a program that uses one name
imports one module (and what that module needs), not the whole package. Adding a name
is one line of the table (and one of ``__all__``).

Example:
    >>> exports = {"dedent": "textwrap", "fill": "textwrap"}
    >>> __getattr__, __dir__ = lazy_exports("example", exports, {})
    >>> __getattr__("fill")("a b", width=1)
    'a\\nb'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of a package with lazy names.

    Args:
        package: The package's ``__name__``, for the error message.
        exports: Public name -> absolute name of the module that defines it (the module's
            attribute of the same name is the value).
        namespace: The package's ``globals()``; a resolved name is stored there, so
            ``__getattr__`` runs once per name.

    Returns:
        ``(__getattr__, __dir__)``, to assign at the package's module level.

    Raises:
        AttributeError: From ``__getattr__``, for a name the table does not hold (as for
            any missing module attribute, so ``hasattr`` and ``getattr(..., default)``
            keep working).
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
