"""The checks of :class:`~citeloop.knowledge.injector.ContextInjector`'s settings."""

from __future__ import annotations

from numbers import Integral, Real
from pathlib import Path
from typing import Any

from citeloop.errors import ConfigurationError
from citeloop.knowledge.model import MAX_CONTEXT_TOKENS
from citeloop.text import estimated_tokens

STORE_READS = ("entities_named", "names", "get_entity", "facts_of", "snapshot")
"""What an injector reads of its store (:class:`~citeloop.knowledge.store.GraphStore`)."""


def check_settings(
    store: Any,
    *,
    hops: Any,
    max_context_tokens: Any,
    max_entities: Any,
    lexical_hits: Any,
    excerpt_share: Any,
    reuse_contexts: Any,
    count_tokens: Any = None,
) -> None:
    """Check an injector's arguments (see
    :class:`~citeloop.knowledge.injector.ContextInjector` for their ranges).

    Raises:
        ConfigurationError: Naming the argument, what it got, and what to pass: a
            ``store`` without the reads of :data:`STORE_READS` (a path, say), a count
            that is no int (``True`` is none) or out of range, an ``excerpt_share``
            that is no number between 0 and 1, a ``count_tokens`` that is neither
            ``None`` (the default counter) nor callable.
    """
    missing = [name for name in STORE_READS if not callable(getattr(store, name, None))]
    if missing:
        given = f"the path {str(store)!r}" if isinstance(store, str | Path) else None
        raise ConfigurationError(
            f"store must be a graph store, got {given or type(store).__name__} (it has "
            f"no {', '.join(missing)}); open one: ContextInjector(SqliteGraphStore(path))"
        )
    if isinstance(reuse_contexts, bool) or not isinstance(reuse_contexts, Integral):
        raise ConfigurationError(f"reuse_contexts must be an int, got {reuse_contexts!r}")
    if reuse_contexts < 0:
        raise ConfigurationError(
            f"reuse_contexts must be >= 0, got {reuse_contexts}; use 0 to build every context"
        )
    check_values(
        hops=hops,
        max_context_tokens=max_context_tokens,
        max_entities=max_entities,
        lexical_hits=lexical_hits,
        excerpt_share=excerpt_share,
        count_tokens=estimated_tokens if count_tokens is None else count_tokens,
    )


def check_values(
    *,
    hops: Any,
    max_context_tokens: Any,
    max_entities: Any,
    lexical_hits: Any,
    excerpt_share: Any,
    count_tokens: Any,
) -> None:
    """Check the settings an injector reads at every ``inject`` (its attributes of these
    names, which a caller may change between calls), as :func:`check_settings` does.

    Raises:
        ConfigurationError: Naming the setting, what it got, and what to pass.
    """
    if not callable(count_tokens):
        raise ConfigurationError(
            f"count_tokens must be a function that counts a text's tokens (str -> int), "
            f"got {count_tokens!r}; pass one (lambda text: len(encoding.encode(text))), or "
            "citeloop.text.estimated_tokens, the default, for about 4 characters a token"
        )
    for name, value, kind in (
        ("hops", hops, "an int"),
        ("max_context_tokens", max_context_tokens, "an int"),
        ("lexical_hits", lexical_hits, "an int"),
        ("max_entities", 1 if max_entities is None else max_entities, "an int or None"),
    ):
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise ConfigurationError(f"{name} must be {kind}, got {value!r}")
    if hops < 0:
        raise ConfigurationError(f"hops must be >= 0, got {hops}; use 0 for seeds only")
    if not 1 <= max_context_tokens <= MAX_CONTEXT_TOKENS:
        raise ConfigurationError(
            f"max_context_tokens must be within 1..{MAX_CONTEXT_TOKENS:,}, got {max_context_tokens}"
        )
    if max_entities is not None and max_entities < 1:
        raise ConfigurationError(f"max_entities must be >= 1 or None, got {max_entities}")
    if lexical_hits < 0:
        raise ConfigurationError(
            f"lexical_hits must be >= 0, got {lexical_hits}; use 0 for no lexical retrieval"
        )
    if isinstance(excerpt_share, bool) or not isinstance(excerpt_share, Real):
        raise ConfigurationError(
            f"excerpt_share must be a number between 0 and 1, got {excerpt_share!r}"
        )
    if not 0 <= excerpt_share <= 1:
        raise ConfigurationError(
            f"excerpt_share must be between 0 and 1, got {excerpt_share!r}; "
            "use 0 for no source excerpts"
        )
