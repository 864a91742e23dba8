"""Measure an answer's length in characters and tokens, and check it against bounds.

Characters are Unicode code points (``len(text)``). Tokens are counted by the caller's
tokenizer when one is given, otherwise estimated with OpenAI's rule of thumb of one
token per four characters of English text, rounded up
(https://help.openai.com/en/articles/4936856-what-are-tokens-and-how-to-count-them).
The estimate undercounts text that is not English prose (code, CJK scripts); pass a
tokenizer when the bound matters.

A tokenizer is any of:

- a callable ``str -> int`` (a count) or ``str -> sequence`` (the tokens);
- an object whose ``encode(str)`` returns a sequence, or an object with ``ids``
  (``tiktoken.Encoding``, a Hugging Face tokenizer, ``tokenizers.Tokenizer``).

A tokenizer that raises ``ValueError`` on a text (lone surrogates, or a special token
such as ``<|endoftext|>`` that tiktoken refuses) is tried once more with lone surrogates
replaced; if it still fails, the estimate is used and the result says so
(``estimated=True``).

Error contract: these are signal checks. They return a :class:`LengthResult` and never
raise on odd text; bad settings (negative or crossed bounds, a tokenizer that is
neither, or one that returns neither a count nor a sequence) raise
:class:`~citeloop.errors.ConfigurationError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from dataclasses import dataclass
from typing import Any

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed, require_text
from citeloop.errors import ConfigurationError
from citeloop.text import estimated_tokens

WORDS_PER_TOKEN = 0.75
"""Words per token of English text, for instructions to the model (same source)."""
DEFAULT_SHORT_MAX_TOKENS = 150
"""Default ceiling of :func:`short_response_result`: about 110 words, a paragraph
(the source design 002's)."""
DEFAULT_LONG_MIN_TOKENS = 500
"""Default floor of :func:`long_response_result`: about 375 words, a page."""

Tokenizer = Any
"""A callable ``str -> int | sequence``, or an object with ``encode`` (see above)."""


@dataclass(frozen=True, slots=True)
class LengthResult:
    """An answer's length and whether it is within bounds.

    Attributes:
        chars: Length in Unicode code points.
        tokens: Length in tokens (the tokenizer's count, or the estimate).
        passed: Every bound holds.
        problems: One :class:`~citeloop.checks.check.Problem` per broken bound;
            ``details`` holds ``code`` (``"too_short"``, ``"too_long"`` or ``"empty"``),
            ``unit`` (``"chars"`` or ``"tokens"``), ``limit`` and ``actual``.
        estimated: ``tokens`` is the 4-characters-per-token estimate (no tokenizer was
            given, or it refused the text).
    """

    chars: int
    tokens: int
    passed: bool
    problems: tuple[Problem, ...] = ()
    estimated: bool = True

    @property
    def codes(self) -> tuple[str, ...]:
        """The problems' codes, e.g. ``("too_long",)``."""
        return tuple(problem.details.get("code", "") for problem in self.problems)


def _encodable(text: str) -> str:
    """``text`` with lone surrogates replaced, for tokenizers that only take valid UTF-8."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _counter(tokenizer: Tokenizer) -> Callable[[str], int | None]:
    """A token counter for a tokenizer (``None``: it refused the text); see the module
    docstring."""
    if isinstance(tokenizer, str | bytes):
        raise ConfigurationError(
            f"tokenizer must be a tokenizer object or function, not the name {tokenizer!r}; "
            "e.g. pass tiktoken.get_encoding(name)"
        )
    encode = getattr(tokenizer, "encode", None)
    call = encode if callable(encode) else tokenizer
    if not callable(call):
        raise ConfigurationError(
            f"tokenizer must be a callable (str -> int or list of tokens) or have an encode "
            f"method, got {type(tokenizer).__name__}"
        )

    def count(text: str) -> int | None:
        try:
            tokens = call(text)
        except ValueError:
            # Lone surrogates cannot be encoded as UTF-8; most tokenizers refuse them.
            try:
                tokens = call(_encodable(text))
            except ValueError:
                return None
        ids = getattr(tokens, "ids", None)
        if ids is not None and not isinstance(tokens, Sized):
            tokens = ids
        if (
            isinstance(tokens, bool | str | bytes)
            or not isinstance(tokens, int | Sized)
            or (isinstance(tokens, int) and tokens < 0)
        ):
            raise ConfigurationError(
                f"tokenizer returned {tokens!r:.40}; it must return a count (an int, 0 or "
                "more) or the tokens (a sequence)"
            )
        return tokens if isinstance(tokens, int) else len(tokens)

    return count


def _estimate(text: str) -> int:
    return estimated_tokens(text)


def estimate_tokens(text: str, tokenizer: Tokenizer | None = None) -> int:
    """The number of tokens of ``text``: counted by ``tokenizer``, else estimated.

    Args:
        text: Any text.
        tokenizer: Optional tokenizer (see the module docstring).

    Returns:
        The count; the estimate is ``ceil(len(text) / 4)`` (0 for empty text).

    Raises:
        ConfigurationError: ``text`` is not a string; ``tokenizer`` is neither callable
            nor has ``encode``, or returns something that is neither a count nor a
            sequence.

    Example:
        >>> estimate_tokens("Hello, world!")
        4
        >>> estimate_tokens("Hello, world!", tokenizer=str.split)
        2
    """
    require_text(text)
    counted = None if tokenizer is None else _counter(tokenizer)(text)
    return _estimate(text) if counted is None else counted


def _bound(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{name} must be a non-negative int or None, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class _Bounds:
    """Checked length bounds, inclusive; ``None`` means unbounded."""

    min_chars: int | None = None
    max_chars: int | None = None
    min_tokens: int | None = None
    max_tokens: int | None = None
    require_content: bool = False

    def __post_init__(self) -> None:
        for name in ("min_chars", "max_chars", "min_tokens", "max_tokens"):
            _bound(name, getattr(self, name))
        for unit in ("chars", "tokens"):
            low, high = getattr(self, f"min_{unit}"), getattr(self, f"max_{unit}")
            if low is not None and high is not None and low > high:
                raise ConfigurationError(
                    f"min_{unit}={low} is greater than max_{unit}={high}; swap or widen them"
                )

    def problems(self, chars: int, tokens: int, blank: bool) -> list[Problem]:
        found: list[Problem] = []
        if self.require_content and blank:
            found.append(
                Problem(
                    "the response is empty",
                    "a non-empty answer",
                    "Write the answer.",
                    {"code": "empty"},
                )
            )
        for unit, actual, low, high in (
            ("chars", chars, self.min_chars, self.max_chars),
            ("tokens", tokens, self.min_tokens, self.max_tokens),
        ):
            if low is not None and actual < low:
                found.append(_too("short", unit, actual, low))
            if high is not None and actual > high:
                found.append(_too("long", unit, actual, high))
        return found


def _words(unit: str, limit: int) -> str:
    if unit == "chars":
        return f"{limit:,} characters"
    return f"{limit:,} tokens (about {int(limit * WORDS_PER_TOKEN):,} words)"


def _too(kind: str, unit: str, actual: int, limit: int) -> Problem:
    noun = "characters" if unit == "chars" else "tokens"
    if kind == "long":
        return Problem(
            f"the response is too long: {actual:,} {noun}, at most {limit:,} allowed",
            f"at most {_words(unit, limit)}",
            f"Shorten the answer to at most {_words(unit, limit)}; keep only what the "
            "task asks for.",
            {"code": "too_long", "unit": unit, "limit": limit, "actual": actual},
        )
    return Problem(
        f"the response is too short: {actual:,} {noun}, at least {limit:,} needed",
        f"at least {_words(unit, limit)}",
        f"Expand the answer to at least {_words(unit, limit)} with relevant detail.",
        {"code": "too_short", "unit": unit, "limit": limit, "actual": actual},
    )


def _measure(text: str, bounds: _Bounds, count: Callable[[str], int | None] | None) -> LengthResult:
    require_text(text)
    counted = None if count is None else count(text)
    tokens = _estimate(text) if counted is None else counted
    problems = bounds.problems(len(text), tokens, blank=not text.strip())
    return LengthResult(len(text), tokens, not problems, tuple(problems), counted is None)


def length_result(
    text: str,
    *,
    min_chars: int | None = None,
    max_chars: int | None = None,
    min_tokens: int | None = None,
    max_tokens: int | None = None,
    tokenizer: Tokenizer | None = None,
) -> LengthResult:
    """Measure ``text`` and check it against inclusive bounds.

    Args:
        text: Any text (counted as given: whitespace counts).
        min_chars: Fewest code points, or ``None``.
        max_chars: Most code points, or ``None``.
        min_tokens: Fewest tokens, or ``None``.
        max_tokens: Most tokens, or ``None``.
        tokenizer: Optional tokenizer (see the module docstring); tokens are estimated
            without one.

    Returns:
        A :class:`LengthResult`; with no bounds it passes and only measures.

    Raises:
        ConfigurationError: A bound that is not a non-negative int, a minimum above its
            maximum, or an unusable tokenizer.

    Example:
        >>> result = length_result("x" * 50, max_tokens=10)
        >>> result.tokens, result.passed, result.codes
        (13, False, ('too_long',))
    """
    bounds = _Bounds(min_chars, max_chars, min_tokens, max_tokens)
    return _measure(text, bounds, None if tokenizer is None else _counter(tokenizer))


def short_response_result(
    text: str, max_tokens: int = DEFAULT_SHORT_MAX_TOKENS, *, tokenizer: Tokenizer | None = None
) -> LengthResult:
    """Check that ``text`` is a short answer: not blank, at most ``max_tokens`` tokens.

    Args:
        text: Any text.
        max_tokens: The ceiling (default :data:`DEFAULT_SHORT_MAX_TOKENS`, 150).
        tokenizer: Optional tokenizer.

    Returns:
        A :class:`LengthResult` (problem codes ``"empty"``, ``"too_long"``).

    Raises:
        ConfigurationError: A negative ``max_tokens`` or an unusable tokenizer.
    """
    bounds = _Bounds(max_tokens=max_tokens, require_content=True)
    return _measure(text, bounds, None if tokenizer is None else _counter(tokenizer))


def long_response_result(
    text: str,
    min_tokens: int = DEFAULT_LONG_MIN_TOKENS,
    *,
    max_tokens: int | None = None,
    tokenizer: Tokenizer | None = None,
) -> LengthResult:
    """Check that ``text`` is a long answer: at least ``min_tokens`` tokens.

    Args:
        text: Any text.
        min_tokens: The floor (default :data:`DEFAULT_LONG_MIN_TOKENS`, 500).
        max_tokens: Optional ceiling.
        tokenizer: Optional tokenizer.

    Returns:
        A :class:`LengthResult` (problem codes ``"empty"``, ``"too_short"``,
        ``"too_long"``).

    Raises:
        ConfigurationError: Bad bounds or an unusable tokenizer.
    """
    bounds = _Bounds(min_tokens=min_tokens, max_tokens=max_tokens, require_content=True)
    return _measure(text, bounds, None if tokenizer is None else _counter(tokenizer))


def length_check(
    *,
    min_chars: int | None = None,
    max_chars: int | None = None,
    min_tokens: int | None = None,
    max_tokens: int | None = None,
    tokenizer: Tokenizer | None = None,
    on_fail: OnFail | str = "reask",
    name: str = "length",
) -> Check:
    """A :class:`Check` of :func:`length_result`'s bounds.

    It offers no ``fixed`` text: cutting an answer to fit would silently drop what it
    says, and padding one would add nothing; the model is asked again instead.
    ``outcome.value`` is the :class:`LengthResult`.

    Args:
        min_chars: Fewest code points.
        max_chars: Most code points.
        min_tokens: Fewest tokens.
        max_tokens: Most tokens.
        tokenizer: Optional tokenizer.
        on_fail: The failure policy.
        name: The check's name.

    Returns:
        The check.

    Raises:
        ConfigurationError: Bad bounds, tokenizer or policy (at once, not per call).

    Example:
        >>> check = length_check(max_chars=5)
        >>> check
        Check('length', on_fail='reask')
        >>> check("too long").problems[0].expected
        'at most 5 characters'
    """
    bounds = _Bounds(min_chars, max_chars, min_tokens, max_tokens)
    count = None if tokenizer is None else _counter(tokenizer)

    def check_length(text: str) -> CheckOutcome:
        result = _measure(text, bounds, count)
        if result.passed:
            return CheckOutcome(name, True, value=result)
        return failed(name, result.problems, value=result)

    return Check(name, check_length, on_fail)
