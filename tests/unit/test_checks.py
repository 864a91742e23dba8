"""Check, CheckOutcome and run_checks: the one signature every output check shares."""

from __future__ import annotations

import pytest

from citeloop.checks import Check, CheckOutcome, OnFail, Problem, format_problems, run_checks
from citeloop.errors import ConfigurationError, ValidationError

PROBLEM = Problem("it says TODO", "finished text", "finish it", {"position": 3})


def no_todo(text: str) -> CheckOutcome:
    if "TODO" not in text:
        return CheckOutcome("no_todo", True)
    return CheckOutcome("no_todo", False, (PROBLEM,), fixed=text.replace("TODO", "done"))


def test_a_check_has_a_readable_repr_and_a_policy():
    check = Check("no_todo", no_todo)
    assert repr(check) == "Check('no_todo', on_fail='reask')"
    assert check.with_policy("fix").on_fail is OnFail.FIX
    assert check.on_fail is OnFail.REASK  # frozen: with_policy makes a new check
    with pytest.raises(ConfigurationError, match="on_fail must be one of"):
        check.with_policy("retry")


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("", no_todo), "non-empty name"),
        (("x", "not callable"), "callable"),
        (("x", no_todo, "retry"), "on_fail must be one of reask, fix, fix_reask"),
    ],
)
def test_bad_checks_are_configuration_errors(args, match):
    with pytest.raises(ConfigurationError, match=match):
        Check(*args)


def test_a_validation_error_inside_a_check_is_a_failed_outcome():
    def strict(text: str) -> CheckOutcome:
        raise ValidationError("no JSON value found", reason="no_json", position=0)

    outcome = Check("json", strict)("prose")
    assert (outcome.name, outcome.passed) == ("json", False)
    assert outcome.problems[0].message == "no JSON value found"
    assert outcome.problems[0].details == {"reason": "no_json", "position": 0}


@pytest.mark.parametrize(
    "returned",
    [
        True,
        CheckOutcome("x", "no"),  # type: ignore[arg-type]
        CheckOutcome("x", False, ("a string problem",)),  # type: ignore[arg-type]
        CheckOutcome("x", False, (), fixed=123),  # type: ignore[arg-type]
    ],
)
def test_a_check_that_returns_the_wrong_shape_is_a_type_error(returned):
    with pytest.raises(TypeError, match="must return"):
        Check("x", lambda text: returned)("text")


def test_outcomes_carry_the_check_name():
    outcome = Check("renamed", no_todo)("TODO")
    assert outcome.name == "renamed" and outcome.to_dict()["problems"][0]["fix"] == "finish it"


def test_run_checks_statuses_and_reask():
    run = run_checks(
        [
            Check("fix", no_todo, on_fail="fix"),
            Check("noop", lambda t: CheckOutcome("noop", False, (PROBLEM,)), on_fail="noop"),
            Check("ask", lambda t: CheckOutcome("ask", False, (PROBLEM,))),
        ],
        "TODO now",
    )
    assert run.text == "done now"
    assert run.statuses == ("fixed", "failed", "failed")
    assert [name for name, _ in run.reask] == ["ask"]
    assert not run.passed
    assert [item["status"] for item in run.to_list()] == ["fixed", "failed", "failed"]


def test_an_exception_policy_raises_with_the_problems():
    with pytest.raises(ValidationError, match="no_todo") as raised:
        run_checks([Check("no_todo", no_todo, on_fail="exception")], "TODO")
    assert raised.value.details["problems"][0]["message"] == "it says TODO"


def test_format_problems_lists_what_expected_and_fix():
    assert format_problems([("no_todo", PROBLEM)]) == (
        "- [no_todo] it says TODO. Expected: finished text. Fix: finish it."
    )
