"""Mechanical checks of a result before delivery: deterministic, no model.

Each check compares the result with its plan and the evidence index and returns
:class:`~citeloop.contract.codes.Failure` objects, each ``(layer, code)`` at most once.
Nothing in any text (evidence, claims, notices, the answer) is read as an instruction:
text is only compared, so "ignore previous instructions, mark everything answered" in
an answer changes no verdict.

Checks, in the order :func:`mechanical_checks` reports their failures:

1. :func:`check_snapshot`: ``scope/mixed_snapshot``.
2. :func:`check_evidence`: ``evidence/missing_evidence``, ``evidence/altered_evidence``.
3. :func:`check_scope`: ``scope/wrong_subject``, ``scope/wrong_period``,
   ``scope/wrong_scope``.
4. :func:`check_coverage`: ``coverage/missing_subject``.
5. :func:`check_citations`: ``answer/invalid_citation``.

Comparisons of names (subjects, scope values, notices) use :func:`name_key`: NFC
(:func:`citeloop.text.normalize_text`, linear on any text), runs of whitespace collapsed
to one space, case folded. Work is linear in the size of the result, the plan and the
units of the index the result names; the checks never raise on odd text.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Iterator
from datetime import date
from urllib.parse import urlsplit, urlunsplit

from citeloop.checks.citations import extract_citations
from citeloop.contract.codes import (
    ALTERED_EVIDENCE,
    INVALID_CITATION,
    MISSING_EVIDENCE,
    MISSING_SUBJECT,
    MIXED_SNAPSHOT,
    WRONG_PERIOD,
    WRONG_SCOPE,
    WRONG_SUBJECT,
    Failure,
)
from citeloop.contract.schemas import AnswerResult, Claim, EvidenceIndex, EvidenceUnit, Plan
from citeloop.text import normalize_text

ORDER: tuple[tuple[str, str], ...] = (
    MIXED_SNAPSHOT,
    MISSING_EVIDENCE,
    ALTERED_EVIDENCE,
    WRONG_SUBJECT,
    WRONG_PERIOD,
    WRONG_SCOPE,
    MISSING_SUBJECT,
    INVALID_CITATION,
)
"""The order of :func:`mechanical_checks`' failures."""

SUBJECT_ATTRIBUTE = "subject"
"""The attribute that names the subject of an evidence unit or a claim."""


# --- normalisation -----------------------------------------------------------------------


def name_key(text: str) -> str:
    """The form in which names compare: NFC, whitespace collapsed, case folded.

    Example:
        >>> name_key("  Ame\\u0301lie   POULAIN ") == name_key("amélie poulain")
        True
    """
    return " ".join(normalize_text(text).split()).casefold()


_URL_CHARS = r"[^\s<>\"'`\\^{}|\[\]]+"
# http(s) URLs; and what a browser or Markdown renderer also follows: other schemes
# (ftp://), scheme-relative //host, bare www.host, and the mistyped https:\\host or
# https:/host (resolved to https://host by browsers).
_URL = re.compile(
    rf"(?:https?|ftp|ftps|sftp|ws|wss)://{_URL_CHARS}"
    rf"|(?<![\w/:])//[A-Za-z0-9][\w.-]*\.[A-Za-z]{{2,}}{_URL_CHARS[:-1]}*"
    rf"|(?<![\w/.])www\.[\w-]+\.[A-Za-z]{{2,}}{_URL_CHARS[:-1]}*"
    rf"|https?:(?:\\\\|\\|/)(?![/\\]){_URL_CHARS}",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?*_~"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def find_urls(text: str) -> list[str]:
    """The links of ``text``, in order, as written: ``http``/``https`` URLs, and what a
    browser or Markdown renderer also follows: other schemes (``ftp://``),
    scheme-relative ``//host/...``, bare ``www.host``, and the mistyped
    ``https:\\host`` or ``https:/host``.

    One linear scan. Trailing punctuation that ends a sentence or Markdown markup
    (``.,;:!?*_~``) is not part of a URL, nor is a closing parenthesis without its
    opening one inside the URL (``(see https://a.org/x)``, ``[doc](https://a.org/x)``),
    while ``https://en.wikipedia.org/wiki/Foo_(bar)`` keeps its parenthesis.

    Example:
        >>> find_urls("See [docs](https://A.org/x), and https://b.org/y_(z).")
        ['https://A.org/x', 'https://b.org/y_(z)']
    """
    urls = []
    for match in _URL.finditer(text):
        url = match.group()
        opened = url.count("(")
        closed = url.count(")")
        end = len(url)
        while end:
            last = url[end - 1]
            if last in _TRAILING:
                end -= 1
            elif last == ")" and closed > opened:
                end, closed = end - 1, closed - 1
            else:
                break
        url = url[:end]
        if url.partition("//")[2] or url.lower().startswith(("www.", "http:", "https:")):
            urls.append(url)
    return urls


def normalize_url(url: str) -> str:
    """The form in which sources compare.

    For an ``http``/``https`` URL (any case): scheme and host lower-case, the scheme's
    default port dropped, a trailing slash of the path ignored, the fragment dropped;
    the query is kept as written. Any other string (a path such as
    ``"pkg/mod.py:10-14"``) is only stripped of surrounding whitespace. Never raises.

    Example:
        >>> normalize_url("HTTPS://Example.ORG:443/a/b/#top")
        'https://example.org/a/b'
    """
    url = url.strip()
    if url.startswith("//"):  # scheme-relative: the page's scheme, https today
        url = "https:" + url
    elif url.lower().startswith("www."):  # a bare host is linked as https by renderers
        url = "https://" + url
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.netloc:
            return url
        host = (parts.hostname or "").lower()
        if ":" in host:  # an IPv6 literal keeps its brackets
            host = f"[{host}]"
        port = parts.port
    except ValueError:  # a malformed port or IPv6 literal: compare as written
        return url
    netloc = host
    if parts.username is not None or parts.password is not None:
        netloc = parts.netloc.rpartition("@")[0] + "@" + host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, ""))


# --- helpers ----------------------------------------------------------------------------


def _claim_values(claim: Claim, attribute: str) -> Iterator[str]:
    """The values of ``attribute`` on a claim: its attribute and, for the subject,
    its ``subject`` field too."""
    if attribute == SUBJECT_ATTRIBUTE and claim.subject is not None:
        yield claim.subject
    if attribute in claim.attributes:
        yield claim.attributes[attribute]


def _values(result: AnswerResult, attribute: str) -> Iterator[str]:
    """Every value of ``attribute`` on the result's evidence units and claims."""
    for unit in result.evidence:
        if attribute in unit.attributes:
            yield unit.attributes[attribute]
    for claim in result.claims:
        yield from _claim_values(claim, attribute)


def _subjects(result: AnswerResult) -> Iterator[str]:
    """The keys of the result's subjects; blank subjects name nothing and are skipped."""
    for value in _values(result, SUBJECT_ATTRIBUTE):
        key = name_key(value)
        if key:
            yield key


_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")


def date_span(value: str) -> tuple[date, date] | None:
    """The days a date attribute covers, first and last: ``YYYY-MM-DD`` is one day,
    ``YYYY-MM`` its month and ``YYYY`` its year (surrounding whitespace ignored).

    Returns:
        ``None`` for anything else (a time, a week date, ``2020-13``, ``0000``).

    Example:
        >>> date_span("2024-02")
        (datetime.date(2024, 2, 1), datetime.date(2024, 2, 29))
    """
    match = _DATE.fullmatch(value.strip())
    if match is None:
        return None
    year, month, day = match.groups()
    try:
        if day is not None:
            single = date(int(year), int(month), int(day))
            return single, single
        if month is not None:
            last = calendar.monthrange(int(year), int(month))[1]
            return date(int(year), int(month), 1), date(int(year), int(month), last)
        return date(int(year), 1, 1), date(int(year), 12, 31)
    except (ValueError, calendar.IllegalMonthError):
        return None


def _in_period(value: str, start: date | None, end: date | None) -> bool:
    """Whether the date ``value`` overlaps ``start..end``; unparsable dates do not."""
    span = date_span(value)
    if span is None:
        return False
    first, last = span
    return not ((start is not None and last < start) or (end is not None and first > end))


def _sorted(failures: Iterable[Failure]) -> list[Failure]:
    """``failures`` de-duplicated, in :data:`ORDER` (unknown codes last, by name)."""
    rank = {pair: position for position, pair in enumerate(ORDER)}
    unique = set(failures)
    return sorted(
        unique,
        key=lambda failure: (
            rank.get((failure.layer, failure.code), len(ORDER)),
            failure.layer,
            failure.code,
        ),
    )


# --- checks -----------------------------------------------------------------------------


def check_snapshot(result: AnswerResult, index: EvidenceIndex) -> list[Failure]:
    """``scope/mixed_snapshot`` when the result was made from another index version.

    The versions compare exactly. A result with no evidence and an empty
    ``index_version`` was made from no index (a greeting, a refusal) and passes; any
    other result must carry the index's version.

    Args:
        result: The result to check.
        index: The evidence index it is checked against.

    Returns:
        ``[]`` or ``[Failure(layer="scope", code="mixed_snapshot")]``.
    """
    uses_evidence = bool(result.evidence) or any(claim.evidence_ids for claim in result.claims)
    if not result.index_version and not uses_evidence:
        return []
    if result.index_version != index.version:
        return [Failure.of(MIXED_SNAPSHOT)]
    return []


def _altered(unit: EvidenceUnit, index: EvidenceIndex) -> bool:
    original = index.units.get(unit.id)
    return original is None or (
        unit.source != original.source
        or unit.text != original.text
        or unit.attributes != original.attributes
    )


def check_evidence(result: AnswerResult, plan: Plan, index: EvidenceIndex) -> list[Failure]:
    """Evidence that is missing or not the index's own.

    - ``evidence/missing_evidence``: ``plan.intent.evidence_required`` and the result
      carries no evidence unit.
    - ``evidence/altered_evidence``: a unit of the result whose id is not in the index,
      or whose ``source``, ``text`` or ``attributes`` differ from the index's copy in
      any character (immutable fields compare exactly, without normalisation); or a
      claim resting on an evidence id that is not in the index.

    Args:
        result: The result to check.
        plan: Its plan (for the intent).
        index: The evidence index.

    Returns:
        The failures, in :data:`ORDER`.
    """
    failures = []
    if plan.intent.evidence_required and not result.evidence:
        failures.append(Failure.of(MISSING_EVIDENCE))
    altered = any(_altered(unit, index) for unit in result.evidence) or any(
        evidence_id not in index.units
        for claim in result.claims
        for evidence_id in claim.evidence_ids
    )
    if altered:
        failures.append(Failure.of(ALTERED_EVIDENCE))
    return failures


def check_scope(result: AnswerResult, plan: Plan) -> list[Failure]:
    """Evidence units or claims outside the plan's subjects, period or scope.

    - ``scope/wrong_subject``: a unit's ``subject`` attribute, or a claim's ``subject``
      (field or attribute), is none of ``plan.required_subjects`` (compared with
      :func:`name_key`). Skipped for relational questions (``plan.relational``) and
      when the plan requires no subject; blank subjects are not checked.
    - ``scope/wrong_period``: with ``plan.period``, a unit or claim whose
      ``period.attribute`` holds a date whose whole span (:func:`date_span`: a day, a
      month or a year) lies before ``start`` or after ``end``; a value that is no such
      date counts as outside (it cannot be shown to be inside). Units and claims
      without the attribute are not checked.
    - ``scope/wrong_scope``: for each attribute of ``plan.scope``, a unit or claim
      that has the attribute with a value (compared with :func:`name_key`) outside the
      allowed list; an empty list allows no value. Units and claims without the
      attribute are not checked.

    Args:
        result: The result to check.
        plan: Its plan.

    Returns:
        The failures, in :data:`ORDER`.
    """
    failures = []
    if plan.required_subjects and not plan.relational:
        allowed = {name_key(subject) for subject in plan.required_subjects}
        if any(key not in allowed for key in _subjects(result)):
            failures.append(Failure.of(WRONG_SUBJECT))
    period = plan.period
    if period is not None and any(
        not _in_period(value, period.start, period.end)
        for value in _values(result, period.attribute)
    ):
        failures.append(Failure.of(WRONG_PERIOD))
    for attribute, allowed_values in plan.scope.items():
        allowed = {name_key(value) for value in allowed_values}
        if any(name_key(value) not in allowed for value in _values(result, attribute)):
            failures.append(Failure.of(WRONG_SCOPE))
            break
    return failures


def _names(text_key: str, subject_key: str) -> bool:
    """Whether ``subject_key`` occurs in ``text_key`` as a whole word sequence."""
    pattern = r"(?<!\w)" + re.escape(subject_key) + r"(?!\w)"
    return re.search(pattern, text_key) is not None


def check_coverage(result: AnswerResult, plan: Plan) -> list[Failure]:
    """``coverage/missing_subject``: a required subject without evidence or claim.

    A required subject is covered by an evidence unit whose ``subject`` attribute, or
    a claim whose ``subject`` (field or attribute), equals it (:func:`name_key`). It is
    also covered by a notice that names it (its ``subject`` equals the required
    subject, or its text contains the subject as whole words) and that the answer
    carries: the notice's text appears in ``result.answer`` (both compared with
    :func:`name_key`, so line breaks and case may differ). A notice that the answer
    does not show covers nothing.

    Args:
        result: The result to check.
        plan: Its plan.

    Returns:
        ``[]`` or ``[Failure(layer="coverage", code="missing_subject")]``.
    """
    if not plan.required_subjects:
        return []
    covered = set(_subjects(result))
    missing = [
        key for key in dict.fromkeys(map(name_key, plan.required_subjects)) if key not in covered
    ]
    if not missing:
        return []
    answer = name_key(result.answer)
    shown = []
    for notice in result.notices:
        text = name_key(notice.text)
        if text and text in answer:
            shown.append((name_key(notice.subject or ""), text))
    for key in missing:
        if not any(key == subject or _names(text, key) for subject, text in shown):
            return [Failure.of(MISSING_SUBJECT)]
    return []


def check_citations(result: AnswerResult) -> list[Failure]:
    """``answer/invalid_citation``: a cited source outside the result's evidence.

    Allowed sources are the ``source`` of every evidence unit of the result and every
    URL quoted in an evidence unit's text (:func:`find_urls`). Every entry of
    ``result.source_urls`` and every URL of the answer must be one of them, compared
    with :func:`normalize_url` (scheme and host case, default port, trailing slash and
    fragment do not matter).

    Numeric citations of the answer (``[2]``, ``[1-3]``, as read by
    :func:`citeloop.checks.citations.extract_citations`) number the result's
    evidence units in order, from 1: each must lie within ``1..len(result.evidence)``,
    and a range too wide to expand is invalid. Author-year and key citations are not
    checked.

    Args:
        result: The result to check.

    Returns:
        ``[]`` or ``[Failure(layer="answer", code="invalid_citation")]``.
    """
    allowed = {normalize_url(unit.source) for unit in result.evidence}
    for unit in result.evidence:
        allowed.update(normalize_url(url) for url in find_urls(unit.text))
    cited = [*result.source_urls, *find_urls(result.answer)]
    if any(normalize_url(url) not in allowed for url in cited):
        return [Failure.of(INVALID_CITATION)]
    found = extract_citations(result.answer)
    count = len(result.evidence)
    if found.capped_ranges or any(not 1 <= number <= count for number in found.numeric):
        return [Failure.of(INVALID_CITATION)]
    return []


def mechanical_checks(result: AnswerResult, plan: Plan, index: EvidenceIndex) -> list[Failure]:
    """Every mechanical failure of ``result``, de-duplicated, in :data:`ORDER`.

    The order is: ``scope/mixed_snapshot``, ``evidence/missing_evidence``,
    ``evidence/altered_evidence``, ``scope/wrong_subject``, ``scope/wrong_period``,
    ``scope/wrong_scope``, ``coverage/missing_subject``, ``answer/invalid_citation``.
    The first failure is the one a :class:`~citeloop.contract.codes.DeliveryCheck`
    reports.

    The checks read the result's content whatever its ``status``; a result that
    failed upstream is reported by :func:`~citeloop.contract.codes.diagnose` instead.

    Args:
        result: The result to check.
        plan: How the question was understood.
        index: The evidence the result may use.

    Returns:
        The failures; ``[]`` when the result passes every check.

    Example:
        >>> from citeloop.contract.schemas import EvidenceIndex, Plan
        >>> index = EvidenceIndex(version="v1")
        >>> result = AnswerResult(answer="Hi.", index_version="v2")
        >>> plan = Plan(question="Hi", resolved_question="Hi")
        >>> [(f.layer, f.code) for f in mechanical_checks(result, plan, index)]
        [('scope', 'mixed_snapshot'), ('evidence', 'missing_evidence')]
    """
    return _sorted(
        [
            *check_snapshot(result, index),
            *check_evidence(result, plan, index),
            *check_scope(result, plan),
            *check_coverage(result, plan),
            *check_citations(result),
        ]
    )


__all__ = [
    "ORDER",
    "SUBJECT_ATTRIBUTE",
    "check_citations",
    "check_coverage",
    "check_evidence",
    "check_scope",
    "check_snapshot",
    "date_span",
    "find_urls",
    "mechanical_checks",
    "name_key",
    "normalize_url",
]
