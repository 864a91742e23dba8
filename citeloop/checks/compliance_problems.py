"""The format-compliance :class:`~citeloop.checks.check.Check`: :func:`compliance_check`
turns a :class:`~citeloop.checks.compliance.ComplianceResult` into problems a retry
prompt can quote, with the fix (greetings and fillers stripped) when one is safe.
"""

from __future__ import annotations

from collections.abc import Iterable

from citeloop.checks.check import Check, CheckOutcome, Problem, failed
from citeloop.checks.compliance import ComplianceResult, check_signals, compliance_result
from citeloop.checks.phrase_patterns import (
    PhraseMatch,
    PhrasePatterns,
)
from citeloop.checks.phrase_scan import (
    phrase_patterns_or_default,
)
from citeloop.errors import ConfigurationError

# --- check -----------------------------------------------------------------------------

_REASON_PROBLEMS = {
    "empty": (
        "the answer is empty",
        "an answer to the task",
        "answer the task",
    ),
    "no_substance": (
        "the answer holds only conversational phrases (greetings, fillers, refusals or "
        "statements about being an AI), no content",
        "an answer to the task",
        "answer the task itself",
    ),
}


def _quoted(matches: tuple[PhraseMatch, ...]) -> str:
    shown = [repr(match.text) for match in matches[:3]]
    return ", ".join(shown) + (", ..." if len(matches) > 3 else "")


def _problems(result: ComplianceResult) -> list[Problem]:
    problems: list[Problem] = []
    for reason in result.off_topic_reasons:
        if reason in _REASON_PROBLEMS:
            message, expected, fix = _REASON_PROBLEMS[reason]
            problems.append(Problem(message, expected, fix, {"reason": reason}))
    if result.refusals:
        problems.append(
            Problem(
                f"the answer refuses the request ({_quoted(result.refusals)})",
                "a direct answer to the task",
                "answer the task; do not refuse, apologise or explain what you cannot do",
                {"reason": "refusal", "position": result.refusals[0].start},
            )
        )
    if "no_on_topic_signal" in result.off_topic_reasons:
        topics = ", ".join(repr(signal) for signal in result.signals_given[:10])
        problems.append(
            Problem(
                f"the answer is off-topic: it mentions none of {topics}",
                f"an answer about {topics}",
                "answer the question that was asked, using its terms",
                {"reason": "no_on_topic_signal", "signals": topics},
            )
        )
    if result.self_identifications:
        problems.append(
            Problem(
                f"the answer talks about itself as an AI ({_quoted(result.self_identifications)})",
                "an answer about the task only",
                "remove statements about being an AI, a language model or an assistant",
                {"reason": "self_identification", "position": result.self_identifications[0].start},
            )
        )
    if not result.allow_fillers:
        chatter = result.greetings + result.fillers
        if chatter:
            problems.append(
                Problem(
                    f"the answer has greetings or filler phrases ({_quoted(chatter)})",
                    "the content alone, without greetings or chatbot filler",
                    "start with the answer itself and end when it is complete; drop "
                    "greetings, 'Certainly!', 'I hope this helps' and offers of more help",
                    {"reason": "filler", "position": chatter[0].start},
                )
            )
    return problems


def compliance_check(
    on_topic_signals: Iterable[str] | None = None,
    *,
    allow_fillers: bool = False,
    patterns: PhrasePatterns | None = None,
    on_fail: str = "reask",
) -> Check:
    """A :class:`Check` named ``"compliance"`` over :func:`compliance_result`.

    It fails on an off-topic answer, a refusal, self-identification and (unless
    ``allow_fillers``) greetings and fillers. When the only problems are an opening
    greeting/filler or closing filler sentences, the outcome's ``fixed`` text is the
    answer without them; otherwise there is no fix. ``value`` is the
    :class:`ComplianceResult`.

    Args:
        on_topic_signals: Words or phrases an on-topic answer mentions.
        allow_fillers: Accept greetings and fillers.
        patterns: The phrases (default :data:`DEFAULT_PATTERNS`).
        on_fail: The failure policy (see :class:`citeloop.checks.check.OnFail`).

    Raises:
        ConfigurationError: Bad signals, a non-bool ``allow_fillers``, bad ``patterns``
            or an unknown ``on_fail``.

    Example:
        >>> outcome = compliance_check()("Sure! The answer is 4.")
        >>> outcome.passed, outcome.fixed
        (False, 'The answer is 4.')
    """
    signals = check_signals(on_topic_signals)
    if not isinstance(allow_fillers, bool):
        raise ConfigurationError(f"allow_fillers must be a bool, got {allow_fillers!r}")
    checked_patterns = phrase_patterns_or_default(patterns)

    def run(text: str) -> CheckOutcome:
        result = compliance_result(
            text, signals, patterns=checked_patterns, allow_fillers=allow_fillers
        )
        if result.compliant:
            return CheckOutcome("compliance", True, value=result)
        return failed("compliance", _problems(result), fixed=result.fixed, value=result)

    return Check("compliance", run, on_fail)  # type: ignore[arg-type]
