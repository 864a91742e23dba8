"""Exceptions raised by citeloop.

Every exception carries a message that names the input at fault and how to fix it.
"""

from __future__ import annotations

import sys
from typing import Any

TOO_LONG_NUMBER = (
    f"a JSON number has more than {sys.get_int_max_str_digits()} digits, more than Python "
    "reads; write it as a string (in quotes) or shorten it"
)
"""The fix for a JSON integer past Python's limit on digits (CVE-2020-10735)."""


class CiteloopError(Exception):
    """Base class of every error citeloop raises on purpose."""


class ConfigurationError(CiteloopError, ValueError):
    """A setting is invalid (raised before any model call)."""


class SourceTreeError(CiteloopError, ValueError):
    """A path given to the indexer cannot be indexed (missing, or not a directory)."""


class ValidationError(CiteloopError, ValueError):
    """A schema-level check failed.

    Attributes:
        details: Structured details (e.g. ``{"reason": ..., "position": ...}``).
        context: The same dict as ``details``, under the name the source design 002
            documents (``e.context``: field name, expected and found types, ...).
    """

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.details: dict[str, Any] = details

    @property
    def context(self) -> dict[str, Any]:
        """Structured details of the failure: the same dict as :attr:`details`."""
        return self.details
