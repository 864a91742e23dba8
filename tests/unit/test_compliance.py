"""Precision tests of the format-compliance checks: refusals, self-identification,
greetings, fillers, on-topic signals, the fix and the Check (offline)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.checks.check import OnFail
from citeloop.checks.compliance import (
    ComplianceResult,
    compliance_result,
    has_on_topic_signals,
    is_off_topic,
)
from citeloop.checks.compliance_problems import compliance_check
from citeloop.checks.phrase_patterns import DEFAULT_PATTERNS, PhraseMatch, PhrasePatterns
from citeloop.checks.phrase_scan import find_conversational_phrases
from citeloop.errors import ConfigurationError


def categories(text: str, patterns: PhrasePatterns | None = None) -> list[str]:
    return [match.category for match in find_conversational_phrases(text, patterns)]


def found(text: str, category: str) -> list[str]:
    return [m.text for m in find_conversational_phrases(text) if m.category == category]


LONG_BODY = "Python is a language. It has classes. It has modules. It has packages. It has types. "

# --- refusals --------------------------------------------------------------------------

REFUSALS = {
    "cannot-help": ("I cannot help with that.", "I cannot help"),
    "curly-apostrophe": ("I can’t help with that.", "I can’t help"),
    "can-not": ("I can not provide that.", "I can not provide"),
    "unable-to-provide": ("I'm unable to provide that information.", "I'm unable to provide"),
    "am-unable": ("I am unable to answer this question.", "I am unable to answer"),
    "ai-language-model": (
        "As an AI language model, I can't do that.",
        "As an AI language model, I can't",
    ),
    "ai-any-verb": ("As an AI, I can't have opinions on this.", "As an AI, I can't"),
    "sorry-but": ("I'm sorry, but I can't help with that.", "I can't help"),
    "sorry-comma": ("Sorry, I can't do that.", "I can't do that"),
    "really-sorry": ("I'm really sorry, but I cannot comply.", "I cannot comply"),
    "apologize": (
        "I apologize, but I am unable to fulfill this request.",
        "I am unable to fulfill",
    ),
    "my-apologies": ("My apologies, but I can't share that.", "I can't share"),
    "afraid": ("I'm afraid I can't help you with this.", "I can't help"),
    "unfortunately": ("Unfortunately, I cannot assist with this request.", "I cannot assist"),
    "unfortunately-no-comma": ("Unfortunately I cannot assist with this.", "I cannot assist"),
    "wont-be-able": ("I won't be able to assist with that request.", "I won't be able to assist"),
    "must-decline": ("I must decline.", "I must decline"),
    "not-comfortable": ("I'm not comfortable providing that.", "I'm not comfortable providing"),
    "not-something": (
        "That's not something I can help with.",
        "That's not something I can help with",
    ),
    "adverb": ("I can't really help with this one.", "I can't really help"),
    "after-greeting": ("Hello! I'm sorry, but I can't help with that.", "I can't help"),
    "after-greeting-same-sentence": ("Hi, I cannot help with that.", "I cannot help"),
    "second-sentence": ("Thanks for the question. I cannot answer it.", "I cannot answer"),
    "in-short-answer-anywhere": (
        "Nice topic. Lots to say. Many views. But I cannot discuss it.",
        "I cannot discuss",
    ),
    "bold": ("**I cannot help with that.**", "I cannot help"),
}


@pytest.mark.parametrize(("text", "match"), REFUSALS.values(), ids=REFUSALS.keys())
def test_refusals(text: str, match: str) -> None:
    assert found(text, "refusal") == [match]
    assert is_off_topic(text)


NOT_REFUSALS = {
    "sorry-to-hear": "I'm sorry to hear that. The fix is to restart the service.",
    "quoted-story-line": '"I cannot let you pass," said the guard.',
    "quoted-refusal-in-story": '"I cannot help you," said the clerk, and closed the window.',
    "curly-quoted": "“I cannot help you,” said the clerk.",
    "single-quoted": "‘I cannot help you,’ said the clerk.",
    "guillemets": "«I cannot help you», dit-il.",
    "multi-sentence-quote": '"Stop. I cannot help you." The clerk left.',
    "not-sentence-initial": "She told him that I cannot help you.",
    "unquoted-not-a-help-verb": "The guard raised his hand. I cannot let you pass, he said.",
    "cannot-help-but": "I can't help but notice the bug in line 3.",
    "cannot-help-thinking": "I cannot help thinking this is a race condition.",
    "cannot-stress": "I cannot stress this enough: back up your data.",
    "cannot-wait": "I can't wait to see it.",
    "cannot-reproduce": "I cannot reproduce the bug, but the fix is to pin the version.",
    "third-person": "The function can't help with parsing; use a parser.",
    "we-cannot": "We cannot provide guarantees for this API.",
    "blockquote": "> I cannot help with that.\n\nThe answer is 4.",
    "inline-code": "Print `I cannot help with that` to stderr.",
    "fenced-code": '```\nprint("I cannot help with that.")\n```\nThat prints a message.',
    "late-in-long-answer": LONG_BODY + "I cannot help with that.",
    "mid-sentence": "The model said it cannot help with that, which is a bug.",
    "helpful-prefix": "I can help with that. The answer is 4.",
}


@pytest.mark.parametrize("text", NOT_REFUSALS.values(), ids=NOT_REFUSALS.keys())
def test_not_refusals(text: str) -> None:
    assert found(text, "refusal") == []


# A refusal phrase with a contrast clause that carries content is a hedge, an answer.
HEDGES = {
    "likely-cause": (
        "I cannot answer definitively without the logs, but the likely cause is a timeout "
        "in the DB pool.",
        ["timeout"],
    ),
    "approximate-number": (
        "I can't give you an exact number, but the population of Paris is about 2.1 million.",
        None,
    ),
    "approximate-number-signal": (
        "I can't give you an exact number, but the population of Paris is about 2.1 million.",
        ["Paris"],
    ),
    "diagnosis": (
        "I cannot provide a definitive diagnosis, but these symptoms commonly indicate a migraine.",
        ["migraine"],
    ),
    "semicolon-however": (
        "I cannot provide a definite answer; however, the function returns None when the "
        "key is missing.",
        ["None"],
    ),
    "dash-but": ("I cannot give exact figures - but revenue roughly doubled in 2023.", None),
    "em-dash-but": ("I can't give exact figures—but revenue roughly doubled.", ["revenue"]),
    "after-preface": (
        "I'm sorry, but I can't give an exact date, but the release was in spring 2021.",
        ["release"],
    ),
}


@pytest.mark.parametrize(("text", "signals"), HEDGES.values(), ids=HEDGES.keys())
def test_hedges_are_not_refusals(text: str, signals: list[str] | None) -> None:
    result = compliance_result(text, signals)
    assert result.refusals == ()
    assert not result.off_topic and result.off_topic_reasons == ()
    assert result.compliant
    assert is_off_topic(text, signals) is False


def test_hedge_removes_only_its_phrase() -> None:
    # Signals after the phrase, in the same sentence, count; the phrase itself is chatter.
    text = "I cannot provide a definitive diagnosis, but these symptoms indicate a migraine."
    result = compliance_result(text, ["provide", "diagnosis", "migraine"])
    assert result.signals_found == ("diagnosis", "migraine")


# The contrast clause offers other help, is too short, or the contrast is elsewhere.
STILL_REFUSALS = {
    "redirect-other-help": "I can't help with that, but I can help with something else.",
    "redirect-consult": "I cannot provide medical advice, but you should consult a doctor.",
    "redirect-conditional": "I can't help without details, but if you share the logs I will.",
    "short-clause": "I can't help with that, but thanks.",
    "clause-refuses-again": "I cannot help with that, but I cannot help with this either.",
    "clause-is-filler": "I can't help with that, but feel free to ask something else.",
    "clause-is-preface-and-refusal": "I can't help, but sadly, I cannot assist with it at all.",
    "no-comma": "I can't help with that but you could try again tomorrow morning.",
    "next-sentence": "I cannot provide medical advice. But ibuprofen is commonly used.",
}


@pytest.mark.parametrize("text", STILL_REFUSALS.values(), ids=STILL_REFUSALS.keys())
def test_contrast_without_content_stays_a_refusal(text: str) -> None:
    assert found(text, "refusal")
    assert is_off_topic(text)


def test_refusal_sentence_mentioning_the_topic_stays_off_topic() -> None:
    result = compliance_result("I cannot help with your migraine question.", ["migraine"])
    assert result.off_topic_reasons == ("no_substance",)


# --- self-identification ---------------------------------------------------------------

SELF_IDENTIFICATION = {
    "as-an-ai": ("As an AI, I have no opinions.", "As an AI"),
    "as-an-ai-language-model": ("As an AI language model, I think so.", "As an AI language model"),
    "as-a-large-language-model": (
        "As a large language model, I lack views.",
        "As a large language model",
    ),
    "i-am-llm": ("I am a large language model trained by OpenAI.", "I am a large language model"),
    "im-chatgpt": ("I'm ChatGPT, made by OpenAI.", "I'm ChatGPT"),
    "im-claude": ("I'm Claude.", "I'm Claude"),
    "im-claude-assistant": ("I'm Claude, an AI assistant.", "I'm Claude"),
    "im-an-assistant": ("I'm an assistant, so I answer questions.", "I'm an assistant"),
    "im-an-ai-assistant": ("I'm an AI assistant here to answer.", "I'm an AI assistant"),
    "i-am-an-ai-and": ("I am an AI and cannot feel.", "I am an AI"),
    "i-am-an-ai-developed": ("I am an AI developed by a lab.", "I am an AI"),
    "no-personal-opinions": (
        "I don't have personal opinions on that.",
        "I don't have personal opinions",
    ),
    "knowledge-cutoff": ("As of my last update, the API was stable.", "As of my last update"),
    "training-data": ("My training data ends in 2023.", "My training data"),
    "after-preface": ("Note that as an AI, I cannot browse.", "as an AI"),
    "later-sentence": ("The answer is 4. As an AI, I may be wrong.", "As an AI"),
}


@pytest.mark.parametrize(
    ("text", "match"), SELF_IDENTIFICATION.values(), ids=SELF_IDENTIFICATION.keys()
)
def test_self_identification(text: str, match: str) -> None:
    assert found(text, "self_identification")[:1] == [match]


NOT_SELF_IDENTIFICATION = {
    # "AI" modifies a human role here: decided not self-identification.
    "as-an-ai-researcher": "As an AI researcher, I study models.",
    "as-an-ai-engineer": "As an AI engineer would, profile first.",
    "im-an-ai-ethicist": "I'm an AI ethicist by training.",
    "assistant-professor": "I'm an assistant professor at MIT.",
    "claude-monet": "I'm Claude Monet's biographer.",
    "quoted": '"As an AI, I cannot," the robot said.',
    "about-ai": "An AI model can summarise text.",
    "mid-sentence": "The bot says it is an AI, which is true.",
    "code": "`I am an AI` is the bot's first line.",
}


@pytest.mark.parametrize(
    "text", NOT_SELF_IDENTIFICATION.values(), ids=NOT_SELF_IDENTIFICATION.keys()
)
def test_not_self_identification(text: str) -> None:
    assert found(text, "self_identification") == []


def test_self_identification_with_substance_is_not_off_topic() -> None:
    text = "As an AI, I think Python suits data science best because pandas and numpy are mature."
    result = compliance_result(text)
    assert [m.category for m in result.matches] == ["self_identification"]
    assert not result.off_topic
    assert not result.compliant
    assert result.fixed is None


# --- greetings -------------------------------------------------------------------------

GREETINGS = {
    "hello-bang": ("Hello! Here is the code.", "Hello"),
    "hi-there": ("Hi there, the answer is 42.", "Hi there"),
    "hi-alone": ("Hi.", "Hi"),
    "hey-emoji": ("Hey there 👋\n\nHere it is.", "Hey there"),
    "dear-sir": ("Dear Sir,\n\nThe report is attached.", "Dear Sir"),
    "dear-sir-or-madam": ("Dear Sir or Madam,\nThe invoice is attached.", "Dear Sir or Madam"),
    "greetings-comma": ("Greetings, traveler. The road is long.", "Greetings"),
    "good-morning": ("Good morning! Here is the plan.", "Good morning"),
    "to-whom": ("To whom it may concern:\n\nThe answer.", "To whom it may concern"),
    "heading": ("# Hello!\n\nContent here.", "Hello"),
    "end-of-line": ("Hello\nThe answer is 4.", "Hello"),
}


@pytest.mark.parametrize(("text", "match"), GREETINGS.values(), ids=GREETINGS.keys())
def test_greetings(text: str, match: str) -> None:
    assert found(text, "greeting") == [match]


NOT_GREETINGS = {
    "hello-world-program": "Hello World program in C is short.",
    "hello-world-output": "Hello, World! is what the program prints.",
    "technical-answer": "Write a Hello World program: it prints one line.",
    "not-at-start": "The server responds with Hello! to every client.",
    "second-sentence": "The answer is 4. Hello! again.",
    "hi-fi": "Hi-fi audio is great.",
    "good-morning-routine": "Good morning routines matter.",
    "dear-diary": "Dear diary entries are personal.",
    "quoted": '"Hello!" is the greeting the bot prints.',
    "code": "`Hello!` is printed first.",
    "hey-jude": "Hey Jude is a song by the Beatles.",
}


@pytest.mark.parametrize("text", NOT_GREETINGS.values(), ids=NOT_GREETINGS.keys())
def test_not_greetings(text: str) -> None:
    assert found(text, "greeting") == []


# --- fillers ---------------------------------------------------------------------------

FILLERS = {
    "certainly-bang": ("Certainly! Here is the summary.", ["Certainly"]),
    "sure-comma": ("Sure, here's the summary: it works.", ["Sure"]),
    "of-course-alone": ("Of course!", ["Of course"]),
    "great-question": ("Great question! Python is great.", ["Great question"]),
    "absolutely": ("Absolutely! Here it is.", ["Absolutely"]),
    "bold-sure": ("**Sure!** Here it is.", ["Sure"]),
    "hope-this-helps": ("It works. I hope this helps!", ["I hope this helps"]),
    "let-me-know": (
        "It works.\n\nLet me know if you have any other questions.",
        ["Let me know if you have"],
    ),
    "feel-free-to-ask": ("It works. Feel free to ask more.", ["Feel free to ask"]),
    "happy-to-help-sentence": (
        "I'd be happy to help you with that! The answer is 4.",
        ["I'd be happy to help"],
    ),
    "chain": (
        "Hi! Sure, I'd be happy to help. The answer is 4. I hope this helps! Happy coding!",
        ["Sure", "I'd be happy to help", "I hope this helps", "Happy coding"],
    ),
    "how-can-i-help": ("Hello! How can I help you today?", ["How can I help you"]),
}


@pytest.mark.parametrize(("text", "matches"), FILLERS.values(), ids=FILLERS.keys())
def test_fillers(text: str, matches: list[str]) -> None:
    assert found(text, "filler") == matches


NOT_FILLERS = {
    "certainly-mid-sentence": "The result is certainly correct.",
    "certainly-without-punctuation": "Certainly the result is correct in most cases.",
    "sure-enough": "Sure enough, it failed.",
    "of-course-mid-sentence": "The function, of course, returns None.",
    "of-course-later-sentence": "Run it. Of course, it may fail.",
    "feel-free-to-adjust": "Feel free to adjust the parameters.",
    "great-britain": "Great Britain is an island.",
    "perfect-squares": "Perfect squares are integers.",
    "okay-mid": "The status is okay.",
    "hope-mid-sentence": "We hope this helps the users, said the team.",
    "quoted": '"I hope this helps!" is a cliché.',
    "code": "```\nprint('I hope this helps!')\n```",
    "blockquote": "> Certainly! Here it is.\n\nThat is what the bot said.",
}


@pytest.mark.parametrize("text", NOT_FILLERS.values(), ids=NOT_FILLERS.keys())
def test_not_fillers(text: str) -> None:
    assert found(text, "filler") == []


# --- matches ---------------------------------------------------------------------------


def test_matches_carry_category_phrase_and_offsets() -> None:
    text = "Hi! As an AI, I can't help with that."
    matches = find_conversational_phrases(text)
    assert matches == [
        PhraseMatch("greeting", "hi", 0, 2, "Hi"),
        PhraseMatch("self_identification", "as an ai,", 4, 12, "As an AI"),
        PhraseMatch("refusal", "as an ai, i can't", 4, 21, "As an AI, I can't"),
    ]
    for match in matches:
        assert text[match.start : match.end] == match.text
    assert matches[0].to_dict() == {
        "category": "greeting",
        "phrase": "hi",
        "start": 0,
        "end": 2,
        "text": "Hi",
    }


def test_offsets_point_into_decomposed_unicode_text() -> None:
    text = "Cafe\u0301 time. I hope this helps!"
    (match,) = find_conversational_phrases(text)
    assert text[match.start : match.end] == "I hope this helps"


# --- patterns --------------------------------------------------------------------------


def test_extend_adds_phrases() -> None:
    patterns = DEFAULT_PATTERNS.extend(greetings=["ahoy"], filler_sentences=("cheers mate",))
    assert categories("Ahoy! The answer. Cheers mate!", patterns) == ["greeting", "filler"]
    assert categories("Ahoy! The answer. Cheers mate!") == []
    assert len(patterns.greetings) == len(DEFAULT_PATTERNS.greetings) + 1


def test_replace_a_group() -> None:
    patterns = dataclasses.replace(DEFAULT_PATTERNS, greetings=())
    assert categories("Hello! The answer is 4.", patterns) == []
    assert categories("Hello! The answer is 4.") == ["greeting"]


def test_custom_refusal_with_lookahead_marker() -> None:
    patterns = PhrasePatterns(refusals=("nope | ,",))
    (match,) = find_conversational_phrases("Nope, not doing it.", patterns)
    assert (match.category, match.text, match.phrase) == ("refusal", "Nope", "nope | ,")
    assert find_conversational_phrases("Nope.", patterns) == []


def test_custom_prefaces_apply_to_refusals() -> None:
    patterns = DEFAULT_PATTERNS.extend(prefaces=["alas ,"])
    assert categories("Alas, I cannot help with that.", patterns) == ["refusal"]
    assert categories("Alas, I cannot help with that.") == []


def test_patterns_are_frozen_hashable_and_repr_is_short() -> None:
    assert hash(DEFAULT_PATTERNS) == hash(PhrasePatterns())
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_PATTERNS.greetings = ()  # type: ignore[misc]
    assert repr(DEFAULT_PATTERNS).startswith("PhrasePatterns(refusals=")
    assert len(repr(DEFAULT_PATTERNS)) < 200


def test_patterns_lists_become_tuples() -> None:
    assert PhrasePatterns(greetings=["ahoy"]).greetings == ("ahoy",)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: PhrasePatterns(greetings="hello"), "greetings"),
        (lambda: PhrasePatterns(greetings=("",)), "not a phrase"),
        (lambda: PhrasePatterns(greetings=("   ",)), "not a phrase"),
        (lambda: PhrasePatterns(greetings=("| x",)), "not a phrase"),
        (lambda: PhrasePatterns(fillers=(3,)), "not a phrase"),  # type: ignore[arg-type]
        (lambda: PhrasePatterns(refusals=None), "refusals"),  # type: ignore[arg-type]
        (lambda: DEFAULT_PATTERNS.extend(salutations=["yo"]), "unknown phrase group"),
        (lambda: DEFAULT_PATTERNS.extend(greetings="yo"), "greetings"),
        (lambda: find_conversational_phrases("x", patterns={"greetings": ()}), "patterns"),  # type: ignore[arg-type]
    ],
)
def test_bad_patterns(make: Callable[[], object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        make()


# --- on-topic signals ------------------------------------------------------------------

SIGNALS = {
    "word": ("The graph has nodes.", ["graph"], True),
    "case-insensitive": ("The GRAPH has nodes.", ["Graph"], True),
    "whole-word-only": ("A paragraph of text.", ["graph"], False),
    "plural-is-another-word": ("The graphs grow.", ["graph"], False),
    "phrase": ("A knowledge graph stores facts.", ["knowledge graph"], True),
    "phrase-across-newline": ("A knowledge\ngraph stores facts.", ["knowledge graph"], True),
    "phrase-partial": ("A knowledge base.", ["knowledge graph"], False),
    "punctuation-ends": ("Written in C++17 mostly.", ["C++"], True),
    "punctuation-not-bare": ("Written in C mostly.", ["C++"], False),
    "unicode-casefold": ("STRASSE und Weg.", ["Straße"], True),
    "decomposed": ("Un cafe\u0301 noir.", ["café"], True),
    "any-of": ("Cats and dogs.", ["birds", "dogs"], True),
    "none-given": ("Cats and dogs.", [], False),
    "hyphen-boundary": ("A graph-based index.", ["graph"], True),
}


@pytest.mark.parametrize(("text", "signals", "expected"), SIGNALS.values(), ids=SIGNALS.keys())
def test_has_on_topic_signals(text: str, signals: list[str], expected: bool) -> None:
    assert has_on_topic_signals(text, signals) is expected


@pytest.mark.parametrize(
    ("signals", "message"),
    [
        ("graph", "list of words"),
        (3, "list of words"),
        (["graph", ""], "not a word or phrase"),
        (["  "], "not a word or phrase"),
        ([b"graph"], "not a word or phrase"),
    ],
)
def test_bad_signals(signals: object, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        has_on_topic_signals("text", signals)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="on_topic_signals"):
        is_off_topic("text", signals)  # type: ignore[arg-type]


def test_no_signals_are_never_found() -> None:
    assert has_on_topic_signals("graph", None) is False  # type: ignore[arg-type]
    assert has_on_topic_signals("graph", ()) is False


# --- off-topic -------------------------------------------------------------------------

OFF_TOPIC = {
    "empty": ("", None, True, ("empty",)),
    "whitespace": (" \n\t", None, True, ("empty",)),
    "punctuation-only": ("...!?", None, True, ("empty",)),
    "refusal": ("I'm sorry, but I can't help with that.", None, True, ("no_substance",)),
    "refusal-with-alternative": (
        "I can't help with Python. Try asking about Java.",
        ["python"],
        True,
        ("refusal", "no_on_topic_signal"),
    ),
    "refusal-without-signals": (
        "I cannot provide medical advice. Ibuprofen is commonly used for pain.",
        None,
        True,
        ("refusal",),
    ),
    "disclaimer-then-answer": (
        "I cannot provide medical advice. Ibuprofen is commonly used for pain.",
        ["ibuprofen"],
        False,
        (),
    ),
    "self-identification-only": ("As an AI, I have no opinions.", None, True, ("no_substance",)),
    "greeting-only": ("Hello! How can I help you today?", None, True, ("no_substance",)),
    "filler-only": ("Sure!", None, True, ("no_substance",)),
    "signals-missing": ("Cats are great pets.", ["graph"], True, ("no_on_topic_signal",)),
    "signal-only-in-filler": (
        "Let me know if you have graph questions. Cats are great.",
        ["graph"],
        True,
        ("no_on_topic_signal",),
    ),
    "on-topic": ("The graph has 3 nodes.", ["graph", "node"], False, ()),
    "on-topic-with-filler": ("Sure! The graph has 3 nodes.", ["graph"], False, ()),
    "no-signals-plain-answer": ("The graph has 3 nodes.", None, False, ()),
    "empty-signals-are-none": ("The graph has 3 nodes.", [], False, ()),
    "code-only": ("```python\nprint(1)\n```", ["print"], False, ()),
    "sorry-to-hear": ("I'm sorry to hear that. Restart the service.", None, False, ()),
}


@pytest.mark.parametrize(
    ("text", "signals", "expected", "reasons"), OFF_TOPIC.values(), ids=OFF_TOPIC.keys()
)
def test_is_off_topic(
    text: str, signals: list[str] | None, expected: bool, reasons: tuple[str, ...]
) -> None:
    assert is_off_topic(text, signals) is expected
    assert compliance_result(text, signals).off_topic_reasons == reasons


def test_signals_found_are_reported_in_given_order() -> None:
    result = compliance_result("Nodes and a Graph.", ["graph", "edge", "nodes"])
    assert result.signals_given == ("graph", "edge", "nodes")
    assert result.signals_found == ("graph", "nodes")


# --- the result and its fix -------------------------------------------------------------

FIXES = {
    "leading-filler": ("Certainly! Here is the summary.", "Here is the summary."),
    "leading-filler-comma": (
        "Sure, here's the summary: it works.",
        "Here's the summary: it works.",
    ),
    "greeting-and-filler": ("Hi there! Sure, the answer is 4.", "The answer is 4."),
    "greeting-vocative": ("Greetings, traveler. The road is long.", "The road is long."),
    "letter-opener": ("Dear Sir,\n\nThe report is attached.", "The report is attached."),
    "bold-filler": ("**Sure!** Here it is.", "Here it is."),
    "emphasis-kept": ("**Sure, the key** is X.", "**The key** is X."),
    "filler-sentence-first": ("I'd be happy to help! The answer is 4.", "The answer is 4."),
    "trailing": ("It is 4. I hope this helps! Happy coding!", "It is 4."),
    "trailing-after-rule": (
        "It works.\n\n---\n\nLet me know if you have questions! 😊",
        "It works.",
    ),
    "both-ends": (
        "Sure! I'd be happy to help with that. The answer is 4. Let me know if you need more.",
        "The answer is 4.",
    ),
    "keeps-code-and-newline": (
        "Here is the code:\n\n```python\nx = 1\n```\n\nI hope this helps!\n",
        "Here is the code:\n\n```python\nx = 1\n```\n",
    ),
}


@pytest.mark.parametrize(("text", "fixed"), FIXES.values(), ids=FIXES.keys())
def test_fixed_strips_opening_and_closing_chatter(text: str, fixed: str) -> None:
    result = compliance_result(text)
    assert not result.compliant
    assert result.fixed == fixed
    # The fix is itself compliant.
    assert compliance_result(fixed).compliant


NO_FIX = {
    "filler-in-the-middle": ("It is 4. Feel free to ask if unclear. Also X is 5.", None),
    "refusal": ("Sure! I cannot help with that.", None),
    "self-identification": ("Sure! As an AI, I think it is 4 because two and two is four.", None),
    "only-chatter": ("Hello! I hope this helps!", None),
    "off-topic-signals": ("Sure! Cats are great.", ["graph"]),
    "nothing-to-fix": ("The answer is 4.", None),
    "allowed": ("Sure! The answer is 4.", "allow"),
}


@pytest.mark.parametrize(("text", "signals"), NO_FIX.values(), ids=NO_FIX.keys())
def test_no_fix(text: str, signals: list[str] | str | None) -> None:
    if signals == "allow":
        assert compliance_result(text, allow_fillers=True).fixed is None
    else:
        assert compliance_result(text, signals).fixed is None


def test_long_opening_run_is_stripped_at_once() -> None:
    result = compliance_result("Hello! " * 2_000 + "Sure, the answer is 4.")
    assert len(result.greetings) == 2_000
    assert result.fixed == "The answer is 4."


@pytest.mark.parametrize("unit", ["Sure! ", "Hello! ", "Hi there! Of course! "])
def test_an_answer_of_only_greetings_and_fillers_has_no_substance(unit: str) -> None:
    assert is_off_topic(unit * 1_000)
    assert compliance_result(unit * 1_000).off_topic_reasons == ("no_substance",)


def test_fix_that_exposes_another_opener_is_fixed_again() -> None:
    result = compliance_result("I hope this helps! Okay. The answer is 4.")
    assert result.fixed == "The answer is 4."


def test_allow_fillers_accepts_chatter_but_reports_it() -> None:
    result = compliance_result("Sure! The answer is 4.", allow_fillers=True)
    assert result.compliant
    assert [m.category for m in result.fillers] == ["filler"]
    assert result.fixed is None


def test_result_properties_and_dict() -> None:
    result = compliance_result("Hello! As an AI, I can't help. Sorry!", ["graph"])
    assert isinstance(result, ComplianceResult)
    assert [m.text for m in result.greetings] == ["Hello"]
    assert [m.text for m in result.self_identifications] == ["As an AI"]
    assert [m.text for m in result.refusals] == ["As an AI, I can't"]
    assert result.of("filler") == result.fillers
    data = result.to_dict()
    assert data["compliant"] is False and data["off_topic"] is True
    assert data["signals_given"] == ["graph"] and data["signals_found"] == []
    assert [match["category"] for match in data["matches"]] == [
        "greeting",
        "self_identification",
        "refusal",
    ]


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_allow_fillers_must_be_bool(value: object) -> None:
    with pytest.raises(ConfigurationError, match="allow_fillers"):
        compliance_result("x", allow_fillers=value)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="allow_fillers"):
        compliance_check(allow_fillers=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", [None, b"hello", 3])
def test_non_str_text_is_a_configuration_error(text: object) -> None:
    with pytest.raises(ConfigurationError, match="text must be a str"):
        find_conversational_phrases(text)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="text must be a str"):
        is_off_topic(text)  # type: ignore[arg-type]


# --- the check -------------------------------------------------------------------------


def test_check_passes_a_plain_answer() -> None:
    outcome = compliance_check(["graph"])("The graph has 3 nodes.")
    assert outcome.passed and outcome.problems == () and outcome.fixed is None
    assert isinstance(outcome.value, ComplianceResult)


def test_check_offers_a_fix_for_fillers_only() -> None:
    outcome = compliance_check(["graph"])("Certainly! The graph has 3 nodes. I hope this helps!")
    assert not outcome.passed
    assert outcome.fixed == "The graph has 3 nodes."
    (problem,) = outcome.problems
    assert "'Certainly'" in problem.message and "'I hope this helps'" in problem.message
    assert problem.expected and problem.fix
    assert problem.details["reason"] == "filler"


@pytest.mark.parametrize(
    ("text", "reasons"),
    [
        ("I'm sorry, but I can't help with that.", ["no_substance", "refusal"]),
        (
            "As an AI, I think the graph is fine because it has many well-connected nodes.",
            ["self_identification"],
        ),
        ("Cats are great pets.", ["no_on_topic_signal"]),
        ("", ["empty"]),
        ("I can't discuss graphs. Cats are great pets.", ["refusal", "no_on_topic_signal"]),
    ],
)
def test_check_problems_name_the_reason_and_have_no_fix(text: str, reasons: list[str]) -> None:
    outcome = compliance_check(["graph"])(text)
    assert not outcome.passed
    assert outcome.fixed is None
    assert [problem.details["reason"] for problem in outcome.problems] == reasons
    for problem in outcome.problems:
        assert problem.message and problem.expected and problem.fix


def test_check_allow_fillers_and_policy() -> None:
    check = compliance_check(allow_fillers=True, on_fail="fix")
    assert check.name == "compliance" and check.on_fail is OnFail.FIX
    assert check("Sure! The answer is 4.").passed


def test_check_with_custom_patterns() -> None:
    check = compliance_check(patterns=DEFAULT_PATTERNS.extend(greetings=["ahoy"]))
    assert check("Ahoy! The answer is 4.").fixed == "The answer is 4."


@pytest.mark.parametrize(
    ("settings_", "argument"),
    [
        ({"on_topic_signals": "graph"}, "on_topic_signals"),
        ({"on_topic_signals": [""]}, "on_topic_signals"),
        ({"on_fail": "retry"}, "on_fail"),
        ({"patterns": ("hello",)}, "patterns"),
    ],
)
def test_check_bad_settings(settings_: dict[str, object], argument: str) -> None:
    with pytest.raises(ConfigurationError, match=argument):
        compliance_check(**settings_)  # type: ignore[arg-type]


# --- odd input, never raises, linear time ----------------------------------------------

ODD = {
    "empty": "",
    "whitespace": " \n\t ",
    "binary": "\x00\xff Hello!\x00 I cannot help\x00.",
    "surrogate": "\ud800 Hello! \ud800 I hope this helps!",
    "rtl": "مرحبا! الجواب هو 4.",
    "cjk": "你好！答案是4。",
    "only-quotes": '"""“”«»',
    "only-markers": "> # - * _ 1. ",
    "unbalanced-fence": "```\nHello!",
}


@pytest.mark.parametrize("text", ODD.values(), ids=ODD.keys())
def test_odd_text_never_raises(text: str) -> None:
    result = compliance_result(text, ["answer"])
    for match in result.matches:
        assert text[match.start : match.end] == match.text
    compliance_check(["answer"])(text)


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_never_raises_on_generated_text(text: str) -> None:
    result = compliance_result(text, ["graph"])
    for match in result.matches:
        assert 0 <= match.start < match.end <= len(text)
        assert text[match.start : match.end] == match.text
    assert is_off_topic(text) in (True, False)
    compliance_check()(text)


CHATTY = st.lists(
    st.sampled_from(
        [
            "Hello",
            "Sure",
            "I cannot help",
            "As an AI",
            "I hope this helps",
            "the answer is 4",
            "“",
            '"',
            ",",
            "!",
            ".",
            "\n",
            "> ",
            "`",
            "**",
            " ",
        ]
    ),
    max_size=30,
).map("".join)


@settings(deadline=None, max_examples=200)
@given(text=CHATTY)
def test_fix_passes_the_same_check(text: str) -> None:
    result = compliance_result(text, ["answer"])
    if result.fixed is not None:
        assert len(result.fixed) < len(text)
        assert compliance_result(result.fixed, ["answer"]).compliant


PATHOLOGICAL: dict[str, Callable[[int], str]] = {
    "sentences": lambda n: "I cannot help. " * (n // 15),
    "dots": lambda n: ". " * (n // 2),
    "quotes": lambda n: '"' * n,
    "closing-quotes": lambda n: '."' * (n // 2),
    "greetings": lambda n: "Hi! " * (n // 4),
    "fillers": lambda n: "I hope this helps! " * (n // 19),
    "prefaces": lambda n: "Sorry, but " * (n // 11),
    "spaces-after-greeting": lambda n: "Hello" + " " * n + "x",
    "one-word": lambda n: "a" * n,
    "marks": lambda n: "a" + "\u0301" * n,
    "newlines": lambda n: "\n" * n,
    "blockquotes": lambda n: ">" * n,
    "hashes": lambda n: "#" * n,
    "bullets": lambda n: "- " * (n // 2),
    "apostrophes": lambda n: "a'" * (n // 2),
    "backticks": lambda n: "` ``" * (n // 4),
    "binaryish": lambda n: bytes(range(256)).decode("latin-1") * (n // 256),
}


def _seconds(text: str) -> float:
    started = time.perf_counter()
    compliance_result(text, ["graph", "knowledge graph"])
    return time.perf_counter() - started


@pytest.mark.parametrize("make", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_text_takes_linear_time(make: Callable[[int], str]) -> None:
    # 4x the text must take about 4x the time; a quadratic path would take 16x.
    size = 60_000
    _seconds(make(100))  # build the phrase tries outside the timing
    short, long = _seconds(make(size)), _seconds(make(4 * size))
    assert long < 10 * short + 1.0


OPENING_RUNS = {
    "hello": "Hello! ",
    "sure": "Sure! ",
    "hope-this-helps": "I hope this helps. ",
    "hedges": "I can't give an exact number, but it is about 2 million. ",
}


def _seconds_without_signals(text: str) -> float:
    # Without signals the fix path runs (with signals it is cut short as off-topic).
    started = time.perf_counter()
    compliance_result(text)
    is_off_topic(text)
    return time.perf_counter() - started


@pytest.mark.parametrize("unit", OPENING_RUNS.values(), ids=OPENING_RUNS.keys())
def test_repeated_chatter_takes_linear_time(unit: str) -> None:
    # A run of openers used to be stripped 16 at a time and re-checked recursively:
    # quadratic, then RecursionError. n vs 4n with a generous factor.
    count = 3_000
    _seconds_without_signals(unit * 10)
    short = _seconds_without_signals(unit * count)
    long = _seconds_without_signals(unit * 4 * count)
    assert long < 10 * short + 1.0
