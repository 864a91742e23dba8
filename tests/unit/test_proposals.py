"""Names an answer's prose proposes as new code are never held against it as invented."""

from __future__ import annotations

import pytest

from citeloop.grounding.proposals import proposed_names
from citeloop.grounding.substance import ungrounded_names
from tests.linear import scans_linearly

# A played answer to "How would you refactor a minimal test function like test_1 to
# implement a parameterized testing strategy ...?" (pytest), failed as inventing
# `test_1_cases`; its retry was told to remove the proposal.
PLAYED = (
    "  - The test IDs change from `test_1` to `test_1[default]`, `test_1[one]`, and so on. "
    "Anything that selects the test by exact node ID must be updated, or the old "
    "unparametrized `test_1` can be kept next to a new `test_1_cases`."
)


@pytest.mark.parametrize(
    ("text", "proposed"),
    [
        (PLAYED, {"test_1_cases"}),
        ("Add a new private helper `_retry_once()` to the session.", {"_retry_once"}),
        ("It needs a new test function called `test_parse_cases`.", {"test_parse_cases"}),
        ("Introduce `RetryPolicy` and pass it down.", {"RetryPolicy"}),
        ("Rename `run` to `run_once`; callers keep working.", {"run_once"}),
        ("The option should be renamed to `max_tries`.", {"max_tries"}),
        ("I'd suggest renaming the `run` method to `run_once`.", {"run_once"}),
        ("Extract the check into `_validate_positions()`.", {"_validate_positions"}),
        ("Factor the loop out to `_run_once`.", {"_run_once"}),
        ("It should be extracted into `_check`.", {"_check"}),
        ("We could add a `timeout` parameter.", {"timeout"}),
        ("Then add a boolean `strict` argument to `parse`.", {"strict"}),
        ("A new `Session.retry_once()` method would do.", {"Session.retry_once"}),
        ("Define a new `class RetryError(RequestException)` for it.", {"RetryError"}),
        # A played refactoring answer (sphinx): "e.g." is no end of the sentence.
        (
            "Split it in two (*proposed* helper, e.g. `_describe_operand(signode)`).",
            {"_describe_operand"},
        ),
        ("Use a class constant (*proposed*, i.e. `_id_prefix = 'nx'`).", {"_id_prefix"}),
    ],
)
def test_proposals_in_prose_are_found(text: str, proposed: set[str]) -> None:
    assert proposed_names(text) == proposed


@pytest.mark.parametrize(
    "text",
    [
        "`FooBar` returns the parsed value.",  # a claim about the code base
        "This is new. `FooBar` then parses it.",  # another sentence
        "It is new: `FooBar` parses it.",  # another clause
        "New checks should follow `_check_cryptography`'s pattern.",  # four words back
        "Pass the result to `finish_run`.",  # `to` without a rename
        "A new `Variable` or `FooBar` is returned.",  # a span between the cue and it
        "It adds `FooBar` to the list.",  # no article: what the code does
        "```python\nnew = 1\n```\n`FooBar` parses.",  # the fence ends the sentence
        "It uses a proposed layout. E.g. `FooBar` parses it.",  # `E.g.` opens no new word
    ],
)
def test_names_the_prose_does_not_propose(text: str) -> None:
    assert "FooBar" not in proposed_names(text)
    assert "_check_cryptography" not in proposed_names(text)
    assert "finish_run" not in proposed_names(text)


@pytest.mark.parametrize(
    "text",
    [
        # "new" of another noun: the name is the code base's, what is new is not it
        "Write a new test for `FooBar`.",
        "Create a new subclass of `FooBar` for it.",
        "Add a new helper next to `FooBar`.",
        "The new API exposes `FooBar` for this.",
        "In the new version, `FooBar` handles it.",
        "Its new `FooBar` handles it.",
        "I'd introduce it in `FooBar`.",
    ],
)
def test_new_proposes_only_the_name_it_opens(text: str) -> None:
    assert proposed_names(text) == frozenset()


@pytest.mark.parametrize(
    "text",
    [
        # a verb saying what the code does or did: an instance of the code's class
        "`Session.send` creates a new `FooBar` object.",
        "The class defines a new `FooBar` attribute in `__init__`.",
        "Each call returns a new `FooBar`.",
        "`Session` has a new `FooBar` since 2.0.",
        "It's a new `FooBar`.",
        "The old loop used a new `FooBar` per request.",
    ],
)
def test_new_after_what_the_code_does_is_a_claim(text: str) -> None:
    assert "FooBar" not in proposed_names(text)


@pytest.mark.parametrize(
    "text",
    [
        # the span's next word says the code is used, not defined: it exists
        "Add a `FooBar()` call after `send`.",
        "Add a `FooBar()` check first.",
        "Create a `FooBar` instance per thread.",
        "Keep it in a new `FooBar` object.",
        "Add a `FooBar` import at the top.",
    ],
)
def test_a_name_the_proposal_uses_is_a_claim(text: str) -> None:
    assert "FooBar" not in proposed_names(text)


@pytest.mark.parametrize(
    "text",
    [
        # a rename done, or done by the code: `FooBar` is the code base's name now
        "The option was renamed to `FooBar`.",
        "`run` has been renamed to `FooBar` in 2.0.",
        "`run` is renamed to `FooBar` there.",
        "The migration renames `run` to `FooBar`.",
        # a rename, then another verb: "to" is the other verb's
        "Rename it and pass it to `FooBar`.",
        "Rename it, then hand it to `FooBar`.",
        "The check was extracted into `FooBar`.",
        "`parse` extracts the header into `FooBar`.",
        "Extract it and pass it to `FooBar`.",
    ],
)
def test_a_rename_or_extraction_that_is_no_proposal(text: str) -> None:
    assert "FooBar" not in proposed_names(text)


@pytest.mark.parametrize(
    "text",
    [
        "We need a new `FooBar` class.",
        "This requires a new `FooBar` class.",
        "Register it as a new `FooBar`.",
        "Perhaps a new `FooBar` would do.",
        "It needs a new private test function called `FooBar`.",
    ],
)
def test_new_after_what_a_proposal_needs_proposes(text: str) -> None:
    assert proposed_names(text) == {"FooBar"}


def test_a_proposed_name_is_not_invented() -> None:
    graph = {"test_1", "Variable"}.__contains__
    found = ungrounded_names(PLAYED, {"test_1"}, graph)
    assert found.invented == ()
    # Without the proposal, the same name is invented.
    claimed = ungrounded_names("It uses `test_1_cases` for that.", {"test_1"}, graph)
    assert claimed.invented == ("test_1_cases",)


def test_a_proposed_name_the_graph_has_is_still_brought_in() -> None:
    # "in a new `Variable`": the graph's class, which the context does not show.
    text = "Wrap it in a new `Variable`."
    assert proposed_names(text) == {"Variable"}
    found = ungrounded_names(text, set(), {"Variable"}.__contains__)
    assert found.in_graph == ("Variable",)
    assert found.invented == ()


@pytest.mark.parametrize(
    "unit",
    [
        "a new `x` ",
        "rename `a` to ",
        "add a ",
        "`",
        "new new ",
        "be renamed to `q` ",
        "`f()` call ",
    ],
)
def test_scanning_stays_linear(unit: str) -> None:
    assert scans_linearly(proposed_names, unit, 40_000)


def test_a_proposal_proposes_the_last_part_of_a_dotted_name() -> None:
    # "a new `Session.retry_once()` method" claims the class `Session` exists.
    text = "Add a new `{}.retry_once()` method."
    graph = {"Session"}.__contains__
    shown = ungrounded_names(text.format("Session"), {"Session"}, graph)
    assert shown.in_graph == shown.invented == ()
    hidden = ungrounded_names(text.format("Session"), set(), graph)
    assert hidden.in_graph == ("Session",) and hidden.invented == ()
    made_up = ungrounded_names(text.format("PoolPlanner"), set(), graph)
    assert made_up.invented == ("PoolPlanner.retry_once",)
