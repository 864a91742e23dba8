"""``Check``: any validator behind one signature, ``check(text) -> CheckOutcome``.

A check is a small frozen callable with a name, a failure policy and a readable
``repr`` (the shape of ``attrs.validators``). Its outcome is structured — each problem
with what was expected and how to fix it — so that a retry prompt can be built from it
without parsing messages. The failure policies are the vocabulary of Guardrails'
``OnFailAction`` (https://www.guardrailsai.com/docs/concepts/validator_on_fail_actions).

Example:
    >>> def no_todo(text: str) -> CheckOutcome:
    ...     if "TODO" not in text:
    ...         return CheckOutcome("no_todo", True)
    ...     problem = Problem("the answer contains TODO", "finished text", "finish it")
    ...     return CheckOutcome("no_todo", False, (problem,), fixed=text.replace("TODO", ""))
    >>> check = Check("no_todo", no_todo, on_fail="fix")
    >>> check
    Check('no_todo', on_fail='fix')
    >>> check("Done. TODO").fixed
    'Done. '
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from citeloop.errors import ConfigurationError, ValidationError


class OnFail(StrEnum):
    """What a guarded loop does when a check fails (Guardrails' ``OnFailAction`` names)."""

    REASK = "reask"
    """Ask the model again, with the problems in the prompt."""
    FIX = "fix"
    """Use the check's fixed text; a check that offers none stays failed."""
    FIX_REASK = "fix_reask"
    """Use the fixed text if it passes the check; otherwise ask again."""
    EXCEPTION = "exception"
    """Raise :class:`citeloop.ValidationError` with the problems."""
    NOOP = "noop"
    """Record the failure and go on; the output is returned as it is."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an output.

    Attributes:
        message: What is wrong, e.g. ``"no JSON value found"``.
        expected: The shape the output should have, e.g. ``"a JSON object"``.
        fix: How to fix it, as an instruction to the model.
        details: Structured details (a JSON path, a position, ...), JSON-ready.
    """

    message: str
    expected: str = ""
    fix: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "expected": self.expected,
            "fix": self.fix,
            "details": dict(self.details),
        }


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """What a check found.

    Attributes:
        name: The check's name.
        passed: Whether the output is acceptable.
        problems: Why not (empty when passed).
        fixed: A corrected output, when the check can make one; else ``None``.
        value: A parsed value the check produced (e.g. the JSON it extracted), or ``None``.
    """

    name: str
    passed: bool
    problems: tuple[Problem, ...] = ()
    fixed: str | None = None
    value: Any = field(default=None, repr=False)  # its repr may raise, or be huge

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``value`` is left out: it may not be JSON)."""
        return {
            "name": self.name,
            "passed": self.passed,
            "problems": [problem.to_dict() for problem in self.problems],
            "fixed": self.fixed,
        }


def failed(name: str, problems: list[Problem] | tuple[Problem, ...], **kwargs: Any) -> CheckOutcome:
    """A failed :class:`CheckOutcome` (a shorthand for check functions)."""
    return CheckOutcome(name, False, tuple(problems), **kwargs)


@dataclass(frozen=True, slots=True)
class Check:
    """A named validator with a failure policy: ``check(text) -> CheckOutcome``.

    Args:
        name: Shown in outcomes, reports and retry prompts.
        func: ``(text) -> CheckOutcome``; it must not raise on odd text (a
            :class:`citeloop.ValidationError` it raises becomes a failed outcome).
        on_fail: An :class:`OnFail` policy or its value (default ``"reask"``).

    Raises:
        ConfigurationError: An unknown policy, an empty name, or a ``func`` that is not
            callable.
    """

    name: str
    func: Callable[[str], CheckOutcome] = field(repr=False)
    on_fail: OnFail = OnFail.REASK

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigurationError(f"a check needs a non-empty name, got {self.name!r}")
        if not callable(self.func):
            raise ConfigurationError(f"check {self.name!r}: func must be callable")
        try:
            object.__setattr__(self, "on_fail", OnFail(self.on_fail))
        except ValueError:
            choices = ", ".join(policy.value for policy in OnFail)
            raise ConfigurationError(
                f"check {self.name!r}: on_fail must be one of {choices}; got {self.on_fail!r}"
            ) from None

    def __repr__(self) -> str:
        return f"Check({self.name!r}, on_fail={self.on_fail.value!r})"

    def __call__(self, text: str) -> CheckOutcome:
        try:
            outcome = self.func(text)
        except ValidationError as exc:
            details = {"reason": str(exc), **exc.details}
            return failed(self.name, [Problem(str(exc), details=_json_ready(details))])
        if (
            not isinstance(outcome, CheckOutcome)
            or not isinstance(outcome.passed, bool)
            or not all(isinstance(problem, Problem) for problem in outcome.problems)
            or not (outcome.fixed is None or isinstance(outcome.fixed, str))
        ):
            raise TypeError(
                f"check {self.name!r} returned {outcome!r:.200}; a check function must return "
                "a CheckOutcome(name, passed: bool, problems: tuple[Problem, ...], "
                "fixed: str | None)"
            )
        return outcome if outcome.name == self.name else _renamed(outcome, self.name)

    def with_policy(self, on_fail: OnFail | str) -> Check:
        """The same check with another failure policy."""
        return Check(self.name, self.func, on_fail)  # __post_init__ checks the policy


def _renamed(outcome: CheckOutcome, name: str) -> CheckOutcome:
    return CheckOutcome(name, outcome.passed, outcome.problems, outcome.fixed, outcome.value)


def _json_ready(details: Mapping[str, Any]) -> dict[str, Any]:
    ready: dict[str, Any] = {}
    for key, value in details.items():
        ready[key] = (
            value if isinstance(value, str | int | float | bool | type(None)) else str(value)
        )
    return ready


CheckStatus = Literal["passed", "fixed", "failed"]


@dataclass(frozen=True, slots=True)
class CheckRun:
    """The result of :func:`run_checks`.

    Attributes:
        text: The output after the fixes that were applied.
        outcomes: Each check's outcome on the text it saw, in order.
        statuses: ``"passed"``, ``"fixed"`` (its fix was applied and passes) or
            ``"failed"``, per check.
        reask: The problems of failed checks whose policy asks the model again
            (``reask``, or ``fix_reask`` without a passing fix), in check order.
    """

    text: str
    outcomes: tuple[CheckOutcome, ...]
    statuses: tuple[CheckStatus, ...]
    reask: tuple[tuple[str, Problem], ...]

    @property
    def passed(self) -> bool:
        """Every check passed, or was fixed."""
        return all(status != "failed" for status in self.statuses)

    def to_list(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per check: its outcome and ``status``."""
        return [
            {**outcome.to_dict(), "status": status}
            for outcome, status in zip(self.outcomes, self.statuses, strict=True)
        ]


def require_text(text: object) -> str:
    """``text``, the output to check, when it is a string.

    Raises:
        ConfigurationError: It is not (the message names its type).
    """
    if not isinstance(text, str):
        raise ConfigurationError(
            f"text must be a string (the model's output), got {type(text).__name__}; pass it as str"
        )
    return text


def require_checks(checks: Iterable[object]) -> tuple[Check, ...]:
    """``checks`` as a tuple, each a :class:`Check`.

    ``checks`` is a list (or any ordered iterable: checks run in order) of checks.

    Raises:
        ConfigurationError: ``checks`` is one :class:`Check`, a string, a mapping, a set
            or no iterable at all (the message says to pass a list), or an item is not a
            :class:`Check` (the message says how to wrap a function).
    """
    if isinstance(checks, Check):
        raise ConfigurationError(
            f"checks must be a list of checks, got the single check {checks!r}; pass checks=[check]"
        )
    if isinstance(checks, str | bytes | Mapping | AbstractSet) or not isinstance(checks, Iterable):
        raise ConfigurationError(
            f"checks must be a list of citeloop.checks.Check objects, in the order to run "
            f"them, got {type(checks).__name__}; pass e.g. checks=[json_check()]"
        )
    found = tuple(checks)
    for check in found:
        if not isinstance(check, Check):
            raise ConfigurationError(
                f"checks must be citeloop.checks.Check objects, got {check!r}; "
                "wrap a function with Check(name, func, on_fail=...)"
            )
    return found  # type: ignore[return-value]


def run_checks(checks: Sequence[Check], text: str) -> CheckRun:
    """Run ``checks`` in order on ``text``, applying each failure policy.

    - ``fix``: the check's fixed text replaces the output (status ``fixed`` when the
      check then passes, else ``failed``); no fixed text: ``failed``.
    - ``fix_reask``: the fixed text replaces the output only when the check passes on
      it; otherwise the problems go to :attr:`CheckRun.reask`.
    - ``reask``: the problems go to :attr:`CheckRun.reask`.
    - ``noop``: ``failed`` is recorded and nothing else happens.
    - ``exception``: raises at once.

    Later checks see the text after earlier fixes, and a fix is applied only when every
    earlier check that passed still passes on the fixed text (a fix of one check must
    not break another: cleaning repetition out of a JSON array would break the JSON).

    Raises:
        ValidationError: A check with policy ``exception`` failed; ``details`` holds
            ``check`` and ``problems`` (dicts).
    """
    outcomes: list[CheckOutcome] = []
    statuses: list[CheckStatus] = []
    reask: list[tuple[str, Problem]] = []
    kept: list[Check] = []  # the checks that passed so far

    def keeps_passing(fixed: str) -> bool:
        return all(earlier(fixed).passed for earlier in kept)

    for check in checks:
        outcome = check(text)
        status: CheckStatus = "passed" if outcome.passed else "failed"
        policy = check.on_fail
        if not outcome.passed and policy is OnFail.EXCEPTION:
            problems = "; ".join(problem.message for problem in outcome.problems)
            raise ValidationError(
                f"check {check.name!r} failed: {problems or 'no detail'}",
                check=check.name,
                problems=[problem.to_dict() for problem in outcome.problems],
            )
        fixed = outcome.fixed
        fixable = not outcome.passed and policy in (OnFail.FIX, OnFail.FIX_REASK)
        if fixable and fixed is not None and keeps_passing(fixed):
            if check(fixed).passed:
                text, status = fixed, "fixed"
            elif policy is OnFail.FIX:
                text = fixed  # Guardrails' fix: the fixed value is used as it is
        if status == "failed" and policy in (OnFail.REASK, OnFail.FIX_REASK):
            reask.extend((check.name, problem) for problem in outcome.problems)
        if status != "failed":
            kept.append(check)
        outcomes.append(outcome)
        statuses.append(status)
    return CheckRun(text, tuple(outcomes), tuple(statuses), tuple(reask))


MAX_PROMPT_PROBLEMS = 20
"""Problems listed in a retry prompt; the rest are counted ("... and 7 more")."""

MAX_PROBLEM_CHARS = 600
"""Characters of one problem line in a retry prompt."""


def format_problems(problems: Sequence[tuple[str, Problem]]) -> str:
    """The problems as retry-prompt lines: what is wrong, the expected shape, the fix.

    For example ``- [json] no JSON value found. Expected: a JSON object. Fix: reply with
    JSON only.`` At most :data:`MAX_PROMPT_PROBLEMS` lines of at most
    :data:`MAX_PROBLEM_CHARS` characters, so the prompt stays bounded however many
    problems the checks report.
    """
    lines = []
    for name, problem in problems[:MAX_PROMPT_PROBLEMS]:
        line = f"- [{name}] {problem.message.rstrip('.')}."
        if problem.expected:
            line += f" Expected: {problem.expected.rstrip('.')}."
        if problem.fix:
            line += f" Fix: {problem.fix.rstrip('.')}."
        if len(line) > MAX_PROBLEM_CHARS:
            line = line[: MAX_PROBLEM_CHARS - 3] + "..."
        lines.append(line)
    if len(problems) > MAX_PROMPT_PROBLEMS:
        lines.append(f"- ... and {len(problems) - MAX_PROMPT_PROBLEMS} more problems.")
    return "\n".join(lines)
