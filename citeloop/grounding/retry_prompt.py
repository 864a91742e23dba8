"""The prompt that asks again after a failed validation: true, specific, and a revision.

Built from a :class:`~citeloop.grounding.GraphValidationResult` of the previous answer
*against the context the retry shows* (a graph re-validates after widening, so no line
contradicts the context beside it). The prompt names the rules that failed, says for
each missing core entity how the task (or payload) named it, shows the previous answer
(bounded) and asks for a revision of it rather than a new answer. It claims no more
than was searched: code is said to be missing from the code base's knowledge graph only
when that graph was searched for it (it holds the indexed modules' definitions: not
local variables, other packages' code or files the indexer skipped).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from citeloop.grounding.citation_section import find_citation_section
from citeloop.grounding.cited_items import item_names
from citeloop.grounding.lacking_passages import listed_spans
from citeloop.grounding.mentions import code_mentions
from citeloop.markdown import line_start
from citeloop.prompts import EXCERPT_MIDDLE_NOTE
from citeloop.text import (
    MAX_DRAFT_CHARS,
    MAX_LISTED_NAME_CHARS,
    break_before,
    clipped,
    excerpt,
    in_data_block,
    listed,
)

if TYPE_CHECKING:
    from citeloop.grounding.results import GraphValidationResult

RETRY_PROMPT_HEADER = "Your previous answer was rejected:"
"""How the rejection part of a retry prompt starts (also where a nested prompt is cut)."""

CHECKS_RETRY_HEADER = "Your previous answer was rejected: it did not pass these checks."
"""The header when the answer used and cited the context, and only the extra problems
(of output checks) failed it."""

WIDENED_HEADER = (
    "Your previous answer said the context lacks code it needs, so the context above has "
    "been widened."
)
"""The header when the answer's one problem is that it said the context is not enough
and the context was widened since: saying so is what the system prompt asks, not a
fault, so the retry does not call the answer rejected (a model told so learns to claim
the context is enough)."""

SAID_LACKING_HEADER = "Your previous answer said the context lacks code it needs."
""":data:`WIDENED_HEADER` for a context that was not widened (the validator's own,
fixed context, or a widening that found no more code): nothing is said of a widening
that did not happen."""

RULE_SUMMARIES: dict[str, str] = {
    "references": "its text does not use enough of the core entities",
    "citation_section": "it has no '## Entities used' section",
    "core_citations": "it does not cite every core entity",
    "invalid_citations": "it cites names that are not entities of the context",
    "min_citations": "it cites fewer of the context's entities than required",
    "cited_not_used": "it cites entities its text does not use",
    "invented_names": "it names code that is in neither the context nor the code base's graph",
    "locations": "some citation locations are wrong or missing",
    "insufficient_context": "it says the context is not enough",
    "no_prose": "it has no answer text, only names and lists of names",
    "empty_context": "the context is empty, so nothing grounds it",
}
"""A phrase per rule id of ``GraphValidationResult.failed_rules``, for the header."""
CONTEXT_ONLY_SUMMARIES: dict[str, str] = {
    "invented_names": "it names code the context does not have",
}
"""The phrases of :data:`RULE_SUMMARIES` that differ when no knowledge graph was
searched (``GraphValidationResult.graph_searched`` false): what the context does not
have may still be in the code base."""


RETRY_PROMPT_TEMPLATE = """{task}

{header}
{problems}
{previous}
{revise} Use the context entities in the body of your answer and cite only those entities.
{section}"""
"""Retry prompt: ``{task}`` (the original task), ``{header}``, ``{problems}``,
``{previous}`` (the previous answer's block, or nothing), ``{revise}``
(:data:`REVISE_SHOWN`, or :data:`REVISE_UNSHOWN` when the previous answer is not shown:
it may not be before the model) and ``{section}``
(:data:`LOCATED_SECTION`, or :data:`NAMES_SECTION` for a context that gives no
locations)."""

LOCATED_SECTION = """\
End your answer with this section, one entity per line, each with its location (the
file heading above it in the context and the line where it is defined, the start of its
`# L<start>-<end>`):

## Entities used
- <entity name> (<path>:<line>)
"""
"""How a retry asks for the citation section when the context gives locations."""

NAMES_SECTION = """End your answer with this section, one entity per line:

## Entities used
- <entity name>
"""
"""How a retry asks for the citation section when no entity of the context has a
location (a plain-text context without file headings or ``# L`` marks)."""

NAME_PROBLEMS: tuple[tuple[str, str], ...] = (
    ("missing_core_citations", "- Cite these core entities (they were missing): {names}"),
    (
        "entities_missing",
        "- Reference these core entities in the body of the answer, written as code "
        "(`name`): {names}",
    ),
    (
        "invalid_citations",
        "- Do not cite these names, they are not entities of the context (a name only "
        "written in a signature or a source line has no line of its own): {names}",
    ),
    (
        "invented_names",
        "- These names are in neither the context nor the code base's knowledge graph (its "
        "modules' classes, functions and attributes); remove them or use "
        "what the context shows instead (code you propose to add, call new: "
        '"a new `name`"; a standard-library name, write with its module: '
        "`http.cookiejar.CookieJar`): {names}",
    ),
    (
        "ungrounded_in_graph",
        "- These names exist in the code base but not in the context, so the answer cannot "
        "support what it says of them; rely on the context's entities: {names}",
    ),
    (
        "lacking_not_in_graph",
        "- These names you said the context lacks are not in the code base's knowledge graph "
        "either (code outside the indexed source, such as a dependency's, or a name "
        "guessed): say that the code base does not define them rather than ask for them "
        "again: {names}",
    ),
    (
        "invalid_locations",
        "- These locations are not inside the cited entity's lines; take the path from the "
        "file heading and the lines from `# L<start>-<end>`: {names}",
    ),
    ("missing_locations", "- Give a location (path:line) for these citations: {names}"),
)
"""A problem line per name list of the result (field, template with ``{names}``), in
the order a retry prompt lists them; core entities carry how the task (or payload)
named them."""
CONTEXT_ONLY_PROBLEMS: dict[str, str] = {
    "invented_names": "- These names are not in the context (only the context was searched, "
    "not the code base); remove them or use what the context shows instead (code you "
    'propose to add, call new: "a new `name`"): {names}',
}
"""The templates of :data:`NAME_PROBLEMS` that differ when no knowledge graph was
searched."""
_CORE_FIELDS = frozenset({"missing_core_citations", "entities_missing"})

NO_SECTION_PROBLEM = "- Your answer had no '## Entities used' section."
INSUFFICIENT_PROBLEM = (
    "- Your answer said the context lacks code it needs; the context above has been "
    "widened: use what it now shows of that code, keep what is right, and still name "
    "precisely what is missing, if anything."
)
SAID_LACKING_PROBLEM = (
    "- Your answer said the context lacks code it needs: answer from what the context "
    "shows, keep what is right, and still name precisely what is missing, if anything."
)
""":data:`INSUFFICIENT_PROBLEM` for a context that was not widened."""
IMPORTED_PROBLEM = (
    "- These names in your list of what is lacking are what the code base imports from "
    "outside the indexed source, whose code no context shows; say what the code shown does "
    "with them instead of asking for them: {names}"
)
"""The line that says what the code base imports under names an answer listed as
lacking, from outside the graph (``_ProxyError is urllib3.exceptions.ProxyError``)."""
NOW_SHOWN_LINE = "- Of what you said the context lacks, the widened context now shows {shown}."
"""The line that says what a widening brought of the code an answer said its context
lacks (``the source of f; lines of g (L3-9); more lines of h (L12-30); the line of
k``): played models
had searched the widened context for it, and asked again for some it held."""
ALSO_SHOWN_LINE = "- It also shows source lines of {names} (none shown before)."
"""The line that says which other functions, methods and classes a widening showed
source of (``Pytester.run, wrap_session and 3 more``): played models had compared two
prompts to find them."""
ALSO_SHOWN_MOST = 8
"""Most names :data:`ALSO_SHOWN_LINE` writes (then how many more)."""
SOURCE = "source"
"""A name whose source the widened context shows whole, and the one before did not."""
PART = "part"
"""A name whose source the widened context shows some lines of, and the one before did
not."""
MORE = "more"
"""A name whose source the widened context shows more lines of."""
LINE = "line"
"""A name the widened context holds without its source, and the one before did not."""
NOW_SHOWN_PARTS = {
    SOURCE: "the source of {names}",
    PART: "lines of {names}",
    MORE: "more lines of {names}",
    LINE: "the line of {names}",
}
"""The parts of :data:`NOW_SHOWN_LINE`, by what is now shown of the names (the kinds of
:func:`citeloop.nodes.widened_news.now_shown`)."""
MIN_CITATIONS_PROBLEM = "- Cite, under '## Entities used', the context entities your answer uses."
UNSEEN_PROBLEM = (
    "- Your answer cited only code the context did not show you. The context above now "
    "shows what the code base has of it: answer the task from the context."
)
"""The problem line when an answer would pass only on what the widening brought in of
the names it used: it cited nothing it had been shown."""

LACKING_ASK = (
    "Use what it now shows of that code, keep what is right, and still name precisely "
    "what is missing, if anything."
)
"""What a retry asks under :data:`WIDENED_HEADER` when saying the context lacks code is
the answer's one problem (no list of problems to repeat it in)."""
SAID_LACKING_ASK = (
    "Answer from what the context shows, keep what is right, and still name precisely "
    "what is missing, if anything."
)
""":data:`LACKING_ASK` under :data:`SAID_LACKING_HEADER` (no widening)."""
REVISE_AS_ASKED = {
    True: "Revise your previous answer accordingly.",
    False: "Answer again accordingly.",
}
"""The request to revise after :data:`LACKING_ASK`, by whether the previous answer is
shown."""

REVISE_SHOWN = """\
Revise your previous answer: keep what is right and change only what the problems above
need."""
REVISE_UNSHOWN = """\
Answer again: keep what was right in your previous answer and change only what the
problems above need."""

PREVIOUS_ANSWER_BLOCK = """
Your previous answer:
<previous_answer>
{answer}
</previous_answer>
"""


def shown_answer(answer: str) -> str:
    """The previous answer as a retry shows it: whole up to
    :data:`~citeloop.text.MAX_DRAFT_CHARS` characters; longer, its beginning, the
    sections a heading says are what the context lacks (:func:`~citeloop.grounding.
    lacking_passages.listed_spans`: its own list of what it needs, at most a third of the room)
    and its citation section (at most a third), what is cut between them replaced by a
    note (:data:`~citeloop.prompts.EXCERPT_MIDDLE_NOTE`), so the model sees what it
    asked for and what it cited; or its beginning when it has neither."""
    if len(answer) <= MAX_DRAFT_CHARS:
        return answer
    section = find_citation_section(answer)
    body_end = len(answer) if section is None else line_start(answer, section.start)
    tail = (body_end, min(len(answer), body_end + MAX_DRAFT_CHARS // 3))
    kept = _within(listed_spans(answer[:body_end]), MAX_DRAFT_CHARS // 3)
    if section is None and not kept:
        return excerpt(answer)
    # The beginning takes the rest of the room; a listed section it reaches is shown
    # from where it ends (the room it frees goes to the beginning).
    while True:
        shown = sum(end - start for start, end in [*kept, tail])
        head_end = MAX_DRAFT_CHARS - shown
        if not kept or kept[0][0] >= head_end:
            break
        kept = [(max(start, head_end), end) for start, end in kept if end > head_end]
    # Each piece ends with a line or a word (break_before), never mid-word.
    head_end = break_before(answer, head_end)
    pieces, shown_to = [answer[:head_end]], head_end
    for start, end in [*kept, tail]:
        if start > shown_to:
            note = EXCERPT_MIDDLE_NOTE.format(left_out=start - shown_to, total=len(answer))
            pieces.append(note)
        end = break_before(answer, end, max(start, shown_to))
        pieces.append(answer[max(start, shown_to) : end])  # not twice what came before
        shown_to = max(shown_to, end)
    if shown_to < len(answer):  # a citation section longer than its room
        left_out = len(answer) - shown_to
        pieces.append(EXCERPT_MIDDLE_NOTE.format(left_out=left_out, total=len(answer)).rstrip())
    return "".join(pieces)


def _within(spans: list[tuple[int, int]], room: int) -> list[tuple[int, int]]:
    """The first ``room`` characters of ``spans`` (the last one cut)."""
    kept = []
    for start, end in spans:
        if room <= 0:
            break
        kept.append((start, min(end, start + room)))
        room -= kept[-1][1] - start
    return kept


def _written_as(name: str, mentions: Sequence[tuple[str, dict[str, str]]]) -> tuple[str, str]:
    """``(where, how)`` the task or the payload writes a core entity (``("task",
    "StateGraph.compile")``), or ``("", "")`` when neither does."""
    for where, written_names in mentions:
        for written in written_names:
            if name == written or written.endswith("." + name) or written.startswith(name + "."):
                return where, written
    return "", ""


def _why(name: str, mentions: Sequence[tuple[str, dict[str, str]]], place: str = "") -> str:
    """`` (how the task named it)`` for a core entity (``" (the task writes
    `StateGraph.compile`)"``), or the payload; ``""`` when neither writes it (its core
    tier came from the context: every entity of a text context is core, and the model
    was shown no tiers, so nothing true is said of how); with the ``place`` of the one
    meant when the context holds namesakes (``" (the task writes `Meta.fields`; the
    one at tests/forms.py:1034)"``)."""
    said = _said(*_written_as(name, mentions))
    if not place:
        return said
    at = f"the one at {clipped(place)}"
    return f"{said[:-1]}; {at})" if said else f" ({at})"


def _said(where: str, written: str) -> str:
    """`` (the task writes `written`)``, or ``""`` when ``where`` is."""
    return f" (the {where} writes `{clipped(written)}`)" if where else ""


def core_places(names: Iterable[str], entities: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The ``path:line`` of the core entity each of ``names`` means, for the names of
    which ``entities`` (a context's entities as a graph's state holds them: ``name``,
    ``id``, ``tier``, ``path``, ``line``; anything else is skipped) hold several and one
    core entity with a place (``{"fields": "tests/forms.py:1034"}``); a dotted name
    means those whose id ends with it (``Meta.fields``). The ``places`` of
    :func:`build_retry_prompt`."""
    by_last: dict[str, list[str]] = {}
    for name in names:
        if isinstance(name, str) and name:
            by_last.setdefault(name.rpartition(".")[2], []).append(name)
    count: dict[str, int] = {}
    core: dict[str, list[str]] = {}
    for entity in entities:
        if not isinstance(entity, Mapping) or not isinstance(last := entity.get("name"), str):
            continue
        entity_id = entity.get("id") if isinstance(entity.get("id"), str) else last
        for name in by_last.get(last, ()):
            if name != last and not f".{entity_id}".endswith(f".{name}"):
                continue
            count[name] = count.get(name, 0) + 1
            path, line = entity.get("path"), entity.get("line")
            if entity.get("tier") == "core" and path and line:
                core.setdefault(name, []).append(f"{path}:{line}")
    return {name: at[0] for name, at in core.items() if len(at) == 1 and count[name] > 1}


def _with_reasons(
    names: Sequence[str],
    mentions: Sequence[tuple[str, dict[str, str]]],
    places: Mapping[str, str] = MappingProxyType({}),
) -> str:
    # Each name cut on its own, not inside the backticks of what the task writes.
    return listed(
        (f"{clipped(name)}{_why(name, mentions, places.get(name, ''))}" for name in names),
        "; ",
        cut=False,
    )


def _written(task: str, payload: str) -> list[tuple[str, dict[str, str]]]:
    """The code names the task and the payload write, by where (for :func:`_why`)."""
    return [
        (where, {mention.name: mention.form for mention in code_mentions(text)})
        for where, text in (("task", task), ("payload", payload))
        if text
    ]


def as_written(names: Sequence[str], task: str, payload: str = "") -> list[str]:
    """Those of ``names`` (core entities) that the task or the payload writes otherwise,
    each with how, as a retry prompt lists them: ``"forward (the task writes
    `Context.forward`)"``."""
    mentions = _written(task, payload)
    found = [(name, _written_as(name, mentions)) for name in names]
    return [f"{clipped(name)}{_said(*how)}" for name, how in found if how[1] not in ("", name)]


def _location_item(text: str) -> str:
    """An invalid location as the answer wrote it, or, when longer than
    :data:`~citeloop.text.MAX_LISTED_NAME_CHARS`, its name and its path each cut on its
    own and its lines whole (```Name` (path:12-40)``): cut as one item, a long one had
    ended inside its line numbers (``state.py:123…`` for ``state.py:1234-1300``), which
    the model is asked to correct."""
    if len(text) <= MAX_LISTED_NAME_CHARS:
        return text
    locations = item_names(text, None)[2]
    if len(locations) != 1 or not locations[0].start:
        return clipped(text)
    found = locations[0]
    path = found.path
    if len(path) > MAX_LISTED_NAME_CHARS:  # its file name, at the end, kept
        path = "…" + path[len(path) - MAX_LISTED_NAME_CHARS + 1 :]
    lines = f"{found.start}" if found.end == found.start else f"{found.start}-{found.end}"
    if not found.name:
        return f"{path}:{lines}"
    return f"`{clipped(found.name)}` ({path}:{lines})"


def _imported_line(origins: Mapping[str, str]) -> list[str]:
    """:data:`IMPORTED_PROBLEM` for ``origins`` (none without them)."""
    if not origins:
        return []
    # Each name cut on its own: a pair cut as one had ended mid-name ("memo_compo…").
    pairs = (f"{clipped(name)} is {clipped(target)}" for name, target in origins.items())
    return [IMPORTED_PROBLEM.format(names=listed(pairs, "; ", cut=False))]


def _now_shown_line(shown: Mapping[str, Mapping[str, str]], also: Sequence[str] = ()) -> list[str]:
    """:data:`NOW_SHOWN_LINE` for ``shown`` (``{name: {"what": "source", "part", "more"
    or "line", "lines": "L12-30", "as": "Owner.name"}}``, each written as its ``as``
    when it has one; none without them), then :data:`ALSO_SHOWN_LINE` for the names
    ``also`` (at most :data:`ALSO_SHOWN_MOST`; none without them)."""
    also_line = [ALSO_SHOWN_LINE.format(names=listed(also, most=ALSO_SHOWN_MOST))] if also else []
    parts = []
    for kind, part in NOW_SHOWN_PARTS.items():
        names = [
            f"{clipped(written)} ({news['lines']})" if news.get("lines") else clipped(written)
            for name, news in shown.items()
            if news.get("what") == kind
            for written in [news.get("as") or name]
        ]
        if names:
            parts.append(part.format(names=listed(names, cut=False)))
    return ([NOW_SHOWN_LINE.format(shown="; ".join(parts))] if parts else []) + also_line


def _problem_lines(
    result: GraphValidationResult,
    task: str,
    payload: str,
    widened: bool,
    origins: Mapping[str, str],
    now: Mapping[str, Mapping[str, str]],
    places: Mapping[str, str],
    also: Sequence[str] = (),
) -> list[str]:
    mentions = _written(task, payload)
    lines: list[str] = []
    if not result.has_citation_section and result.core_entities:
        lines.append(NO_SECTION_PROBLEM)
    for field, template in NAME_PROBLEMS:
        names: tuple[str, ...] = getattr(result, field)
        if not result.graph_searched:
            template = CONTEXT_ONLY_PROBLEMS.get(field, template)
        if names:
            if field in _CORE_FIELDS:
                shown = _with_reasons(names, mentions, places)
            elif field == "invalid_locations":
                shown = listed(map(_location_item, names), "; ", cut=False)
            else:
                shown = listed(names)
            lines.append(template.format(names=shown))
    lines += _imported_line(origins)
    if result.insufficient_context:
        lines.append(INSUFFICIENT_PROBLEM if widened else SAID_LACKING_PROBLEM)
        lines += _now_shown_line(now, also) if widened else []
    if "min_citations" in result.failed_rules:
        lines.append(MIN_CITATIONS_PROBLEM)
    return lines or [f"- {reason}" for reason in result.reasons]


def _faults(result: GraphValidationResult) -> list[str]:
    """The failed rules but saying the context is not enough, which is no fault (the
    system prompt asks for it): its problem line asks for the revision."""
    return [rule for rule in result.failed_rules if rule != "insufficient_context"]


def _header(result: GraphValidationResult, widened: bool, checks_failed: bool) -> str:
    if result.passed:
        return CHECKS_RETRY_HEADER
    faults = _faults(result)
    if not faults and result.insufficient_context:
        if checks_failed:  # a check's problem is a fault: the saying is one line of the list
            return CHECKS_RETRY_HEADER
        return WIDENED_HEADER if widened else SAID_LACKING_HEADER
    summaries = (
        RULE_SUMMARIES if result.graph_searched else {**RULE_SUMMARIES, **CONTEXT_ONLY_SUMMARIES}
    )
    rules = [summaries.get(rule, rule) for rule in faults]
    return f"{RETRY_PROMPT_HEADER} {'; '.join(rules) or 'it did not use and cite the context'}."


def _original(task: str) -> str:
    """``task`` without the retry part of a prompt this module built (from the first of
    its headers on)."""
    headers = (RETRY_PROMPT_HEADER, WIDENED_HEADER, SAID_LACKING_HEADER)
    cut = min((at for header in headers if (at := task.find(header)) >= 0), default=len(task))
    return task[:cut].rstrip()


def build_retry_prompt(
    task: str,
    result: GraphValidationResult,
    extra_problems: Sequence[str] = (),
    *,
    previous_answer: str = "",
    payload: str = "",
    widened: bool = False,
    origins: Mapping[str, str] | None = None,
    shown: Mapping[str, Mapping[str, str]] | None = None,
    places: Mapping[str, str] | None = None,
    also: Sequence[str] = (),
) -> str:
    """Build the prompt that asks again after a failed validation.

    The prompt is always built on the *original* task, so retries never nest: pass
    the task of the first attempt. If ``task`` is itself a prompt built by this
    function, its previous rejection part is dropped first.

    Args:
        task: The original task.
        result: The failed validation result, computed against the context the retry
            prompt will show.
        extra_problems: More problem lines (e.g. from output checks), listed after the
            context problems.
        previous_answer: The answer being revised; shown (:func:`shown_answer`: past
            :data:`citeloop.text.MAX_DRAFT_CHARS` characters, cut in its middle, its
            citation section kept; ``""``: not shown).
        payload: The payload the model was shown with the task, if any: a core entity
            it writes is said to be written there. Not repeated in the prompt.
        widened: The context the retry shows was widened since the previous answer (the
            ``grounded_answer`` graph's retries): an answer that said the context lacks
            code is told so (:data:`WIDENED_HEADER`); otherwise nothing is said of a
            widening (:data:`SAID_LACKING_HEADER`).
        origins: What the code base imports from outside the graph under names the
            answer listed as lacking, by name (``{"_ProxyError":
            "urllib3.exceptions.ProxyError"}``): one line (:data:`IMPORTED_PROBLEM`)
            says so, and they are left out of the names said not to be in the graph.
        shown: Of the names the answer said the context lacks, those the widened
            context shows more of, by name: ``{"what": "source"}`` (their source whole,
            new to it), ``{"what": "part", "lines": "L3-9"}`` (some of it, new to it),
            ``{"what": "more", "lines": "L12-30"}`` (more lines of their source) or
            ``{"what": "line"}`` (their line, new to it), as
            :func:`citeloop.nodes.widened_news.now_shown` gives them; with ``widened``
            and a said-insufficient context, one line (:data:`NOW_SHOWN_LINE`) says so.
        places: The ``path:line`` of the core entity a name means, by name, for the
            core names whose context holds namesakes (``{"fields":
            "tests/forms.py:1034"}``): a core entity the answer did not cite or use is
            named with it (a played answer asked to cite `fields` had fifteen
            `Meta.fields` to choose from).
        also: With ``shown``'s line, the names of the other functions, methods and
            classes whose source the widened context shows lines of that the one
            before did not (:func:`citeloop.nodes.widened_news.also_shown`): one line
            (:data:`ALSO_SHOWN_LINE`) names them.

    Returns:
        ``RETRY_PROMPT_TEMPLATE`` filled with the task; a header naming the failed
        rules (:data:`RULE_SUMMARIES`; saying the context is not enough is not
        named a fault, its problem line asks for the revision), :data:`WIDENED_HEADER`
        (or :data:`SAID_LACKING_HEADER`) when that saying is the one failed rule and no
        extra problem is given (then one line asks, :data:`LACKING_ASK` or
        :data:`SAID_LACKING_ASK`, instead of a list, and :data:`REVISE_AS_ASKED`
        closes it), or ``CHECKS_RETRY_HEADER`` when only ``extra_problems`` are faults
        (``result`` passed, or failed only for that saying); one line per problem (core
        entities
        not cited or not referenced, each with how the task or payload named it;
        invalid citations; invented names, said to be missing from the code base's
        knowledge graph only when ``result.graph_searched``; names only the graph has; wrong or
        missing locations; a said-insufficient context), then the extra problems;
        the previous answer; the request to revise it (:data:`REVISE_SHOWN`, or
        :data:`REVISE_UNSHOWN` when it is not shown); and the citation section to
        end with (:data:`LOCATED_SECTION`, or :data:`NAMES_SECTION` when
        ``result.context_located`` is false).

    Example:
        >>> from citeloop.grounding import GraphContextValidator
        >>> result = GraphContextValidator().validate("No idea.", ["GraphStore"])
        >>> prompt = build_retry_prompt("Explain `GraphStore`.", result)
        >>> "GraphStore (the task writes `GraphStore`)" in prompt
        True
    """
    original = _original(task)
    origins = dict(origins or {})
    if origins:  # what the code base imports from outside: a line of their own
        outside = tuple(name for name in result.lacking_not_in_graph if name not in origins)
        result = replace(result, lacking_not_in_graph=outside)
    shown = shown or {}
    lines = (
        []
        if result.passed
        else _problem_lines(result, original, payload, widened, origins, shown, places or {}, also)
    )
    lines += extra_problems
    previous = (
        PREVIOUS_ANSWER_BLOCK.format(
            answer=in_data_block(shown_answer(previous_answer), "previous_answer")
        )
        if previous_answer.strip()
        else ""
    )
    revise = REVISE_SHOWN if previous else REVISE_UNSHOWN
    said_lacking_only = not result.passed and result.insufficient_context and not _faults(result)
    if said_lacking_only and not extra_problems:
        # Said lacking, nothing else: the header says so, one line asks, no list repeats it.
        lines = [LACKING_ASK if widened else SAID_LACKING_ASK]
        lines += _now_shown_line(shown, also) if widened else []
        # What no widening can bring: code the graph does not have, and what the code
        # base imports from outside it.
        if result.lacking_not_in_graph:
            template = dict(NAME_PROBLEMS)["lacking_not_in_graph"]
            lines.append(template.format(names=listed(result.lacking_not_in_graph)))
        lines += _imported_line(origins)
        revise = REVISE_AS_ASKED[bool(previous)]
    return RETRY_PROMPT_TEMPLATE.format(
        revise=revise,
        section=LOCATED_SECTION if result.context_located else NAMES_SECTION,
        task=original,
        header=_header(result, widened, bool(extra_problems)),
        problems="\n".join(lines),
        previous=previous,
    )
