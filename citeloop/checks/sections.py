"""Required sections of a Markdown answer, read with a CommonMark parser.

Sections are read by :func:`citeloop.checks.section_parser.extract_sections`
(CommonMark headings, bold pseudo-headings with ``flexible=True``; its docstring says
what a heading, a section and an empty section are). A title and a required name match
when their normalized forms (:attr:`Section.normalized`) are equal, so ``## 11. Risks``,
``**RISKS**`` and ``# Risks:`` all satisfy ``"Risks"``.

What is checked (:func:`response_structure_result`, :func:`section_completeness_result`)
concerns the *required* sections only, named as the caller spelled them: ``missing``
(no section matches), ``empty`` (the first matching section has no content, unless
``allow_empty``), ``duplicates`` (more than one section matches: which one answers?)
and, with ``ordered=True``, ``out_of_order``. The answer's other sections are its own
business: a repeated ``### Pros`` under two options is a normal outline, and a closing
``**Good luck!**`` line is not an empty section anyone asked for.

Work is linear in the length of the text; the bounds are those of the parser.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed, require_text
from citeloop.checks.section_parser import (
    ATX_MARKER,
    BOLD_LEVEL,
    DEFAULT_LEVEL,
    Section,
    normalize_title,
    parse_sections,
    plain_text,
    require_bool,
)
from citeloop.errors import ConfigurationError

__all__ = [
    "SectionReport",
    "response_structure_result",
    "section_completeness_result",
    "sections_check",
]


@dataclass(frozen=True, slots=True)
class SectionReport:
    """What a section check found; every name is a required name as the caller wrote it.

    Attributes:
        sections: Every section of the answer, in order (:func:`extract_sections`).
        required: The required names, in the order given.
        present: Required names that some section matches, in required order.
        missing: Required names that no section matches.
        empty: Required names whose (first) matching section has no content; always
            ``()`` when empty sections were allowed.
        duplicates: Required names that more than one section matches.
        out_of_order: Required names whose sections break the required order (the
            fewest such names: those outside a longest in-order run); ``()`` unless
            the order was checked.
        min_sections: The least number of sections asked for (0: no minimum).
    """

    sections: tuple[Section, ...]
    required: tuple[str, ...]
    present: tuple[str, ...]
    missing: tuple[str, ...]
    empty: tuple[str, ...]
    duplicates: tuple[str, ...]
    out_of_order: tuple[str, ...] = ()
    min_sections: int = 0

    @property
    def too_few_sections(self) -> bool:
        """Whether the answer has fewer sections than :attr:`min_sections`."""
        return len(self.sections) < self.min_sections

    @property
    def passed(self) -> bool:
        """No required section missing, empty, duplicated or out of order, and enough
        sections."""
        problems = self.missing or self.empty or self.duplicates or self.out_of_order
        return not problems and not self.too_few_sections

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "passed": self.passed,
            "required": list(self.required),
            "present": list(self.present),
            "missing": list(self.missing),
            "empty": list(self.empty),
            "duplicates": list(self.duplicates),
            "out_of_order": list(self.out_of_order),
            "min_sections": self.min_sections,
            "too_few_sections": self.too_few_sections,
            "sections": [section.to_dict() for section in self.sections],
        }


# --- checks ---------------------------------------------------------------------------


def _required_key(name: str) -> str:
    """The matching key of a required name; a leading ``##`` marker is dropped."""
    name = name.strip()
    marker = ATX_MARKER.match(name)
    return normalize_title(plain_text(name[marker.end() :] if marker else name))


def _required_keys(required_headers: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(names as given, their matching keys); raises ConfigurationError on bad names."""
    if isinstance(required_headers, str) or not isinstance(required_headers, list | tuple):
        raise ConfigurationError(
            "required_headers must be a list of section names, e.g. ['Overview', 'Risks']; "
            f"got {type(required_headers).__name__} {required_headers!r:.80}"
        )
    keys: dict[str, str] = {}
    for name in required_headers:
        if not isinstance(name, str):
            raise ConfigurationError(
                f"required_headers must hold only strings; got {type(name).__name__} {name!r:.80}"
            )
        key = _required_key(name)
        if not key:
            raise ConfigurationError(
                f"required_headers holds an empty section name ({name!r}); "
                "give each required section a title, e.g. 'Risks'"
            )
        if key in keys:
            raise ConfigurationError(
                f"required_headers names the same section twice: {keys[key]!r} and {name!r} "
                f"(both match {key!r}); list it once"
            )
        keys[key] = name
    return tuple(keys.values()), tuple(keys)


def _out_of_order(positions: list[tuple[str, int]]) -> tuple[str, ...]:
    """Names outside a longest run of sections in the required order.

    Of the longest runs, the one that keeps the earliest required names is chosen, so
    a section moved ahead of its place is the one reported. ``O(k log k)`` in the
    number of names.
    """
    # Right to left, patience sorting on negated positions: starts[i] is the length of
    # the longest in-order run that begins with name i.
    starts = [0] * len(positions)
    tails: list[int] = []
    for index in range(len(positions) - 1, -1, -1):
        value = -positions[index][1]
        slot = bisect_left(tails, value)
        if slot == len(tails):
            tails.append(value)
        else:
            tails[slot] = value
        starts[index] = slot + 1
    kept: set[int] = set()
    needed, last = len(tails), -1
    for index, (_, position) in enumerate(positions):
        if needed and starts[index] == needed and position > last:
            kept.add(index)
            needed, last = needed - 1, position
    return tuple(name for index, (name, _) in enumerate(positions) if index not in kept)


def _report(
    text: str,
    required_headers: object,
    *,
    flexible: bool,
    ordered: bool,
    min_sections: int,
    allow_empty: bool,
) -> SectionReport:
    require_text(text)
    names, keys = _required_keys(required_headers)
    for name, value in (("flexible", flexible), ("ordered", ordered), ("allow_empty", allow_empty)):
        require_bool(name, value)
    if isinstance(min_sections, bool) or not isinstance(min_sections, int) or min_sections < 0:
        raise ConfigurationError(
            f"min_sections must be a whole number >= 0 (0: no minimum), got {min_sections!r}"
        )
    sections = parse_sections(text, flexible)
    matches: dict[str, list[int]] = {key: [] for key in keys}
    for index, section in enumerate(sections):
        found = matches.get(section.normalized)
        if found is not None:
            found.append(index)
    present = tuple(name for name, key in zip(names, keys, strict=True) if matches[key])
    first = [(name, matches[key][0]) for name, key in zip(names, keys, strict=True) if matches[key]]
    return SectionReport(
        sections=sections,
        required=names,
        present=present,
        missing=tuple(name for name, key in zip(names, keys, strict=True) if not matches[key]),
        empty=() if allow_empty else tuple(name for name, index in first if sections[index].empty),
        duplicates=tuple(
            name for name, key in zip(names, keys, strict=True) if len(matches[key]) > 1
        ),
        out_of_order=_out_of_order(first) if ordered else (),
        min_sections=min_sections,
    )


def section_completeness_result(
    text: str, required_headers: Sequence[str], flexible: bool = True
) -> SectionReport:
    """Check that every required section is there, once, with content.

    A signal check: any text gives a report. Matching is level- and number-agnostic
    (``## 11. Risks`` satisfies ``"Risks"``; see the module docstring).

    Args:
        text: The answer, Markdown (CommonMark); any text is accepted.
        required_headers: The section names that must be present, e.g.
            ``["Overview", "Risks"]`` (a list or tuple of non-empty strings; markup and
            a leading ``##`` are ignored).
        flexible: Accept bold pseudo-headings (``**Risks:**``) as sections.

    Returns:
        A :class:`SectionReport` with ``present``, ``missing``, ``empty`` and
        ``duplicates``; ``passed`` when all three are empty.

    Raises:
        ConfigurationError: ``required_headers`` is not a list of strings, holds an
            empty name or the same name twice; ``text`` is not a ``str``; ``flexible``
            is not a ``bool``.

    Example:
        >>> report = section_completeness_result(
        ...     "## Overview\\n## 3) Results\\nData.\\n", ["Overview", "Results", "Risks"])
        >>> report.present, report.missing, report.empty, report.passed
        (('Overview', 'Results'), ('Risks',), ('Overview',), False)
    """
    return _report(
        text,
        required_headers,
        flexible=flexible,
        ordered=False,
        min_sections=0,
        allow_empty=False,
    )


def response_structure_result(
    text: str,
    required_headers: Sequence[str] = (),
    *,
    flexible: bool = True,
    ordered: bool = False,
    min_sections: int = 0,
    allow_empty: bool = False,
) -> SectionReport:
    """Check the outline of an answer: required sections, their order, their number.

    With the defaults this is :func:`section_completeness_result`.

    Args:
        text: The answer, Markdown (CommonMark); any text is accepted.
        required_headers: Section names that must be present (see
            :func:`section_completeness_result`); none by default.
        flexible: Accept bold pseudo-headings (``**Risks:**``) as sections.
        ordered: The required sections must come in the given order (by the first
            section matching each); those that do not are reported in
            ``out_of_order``. Missing ones are ignored here (they are ``missing``).
        min_sections: The least number of sections the answer must have (every
            section counts, sub-sections and, when ``flexible``, bold pseudo-headings
            included).
        allow_empty: Accept required sections without content (presence is enough).

    Returns:
        A :class:`SectionReport`.

    Raises:
        ConfigurationError: Bad ``required_headers`` (see
            :func:`section_completeness_result`), a ``min_sections`` that is not a
            whole number >= 0, or a flag that is not a ``bool``.

    Example:
        >>> text = "## Risks\\nLate data.\\n## Overview\\nA plan.\\n"
        >>> response_structure_result(text, ["Overview", "Risks"]).passed
        True
        >>> response_structure_result(text, ["Overview", "Risks"], ordered=True).out_of_order
        ('Risks',)
    """
    return _report(
        text,
        required_headers,
        flexible=flexible,
        ordered=ordered,
        min_sections=min_sections,
        allow_empty=allow_empty,
    )


# --- the Check ------------------------------------------------------------------------


def _display(name: str) -> str:
    """A required name without a leading ``##`` marker, for headings in messages."""
    name = name.strip()
    marker = ATX_MARKER.match(name)
    return name[marker.end() :] if marker else name


def _problems(report: SectionReport) -> list[Problem]:
    by_key: dict[str, list[Section]] = {}
    for section in report.sections:
        by_key.setdefault(section.normalized, []).append(section)

    def found(name: str) -> list[Section]:
        return by_key.get(_required_key(name), [])

    # Headings in the level the answer uses for its required sections, else 2.
    levels = (section.level for name in report.present for section in found(name)[:1])
    marks = "#" * next((level for level in levels if level < BOLD_LEVEL), DEFAULT_LEVEL)
    outline = "\n".join(f"{marks} {_display(name)}" for name in report.required)
    problems: list[Problem] = []
    many = len(report.required) > 1
    for name in report.missing:
        heading = f"{marks} {_display(name)}"
        problems.append(
            Problem(
                f"the answer has no {_display(name)!r} section",
                heading,
                f"Add a section headed '{heading}' with its content"
                + (f"; the sections go in this order:\n{outline}" if many else "."),
                {"reason": "missing", "section": name},
            )
        )
    for name in report.empty:
        section = found(name)[0]
        written = f" (heading {section.title!r})" if section.title != _display(name) else ""
        problems.append(
            Problem(
                f"the {_display(name)!r} section{written} has no content",
                f"{marks} {_display(name)}, followed by its content",
                f"Write the content of the {_display(name)!r} section under its heading, "
                "before the next heading.",
                {"reason": "empty", "section": name, "line_range": list(section.line_range)},
            )
        )
    for name in report.duplicates:
        sections = found(name)
        headings = ", ".join(repr(section.title) for section in sections)
        problems.append(
            Problem(
                f"the {_display(name)!r} section appears {len(sections)} times ({headings})",
                f"one {marks} {_display(name)} section",
                f"Keep a single '{marks} {_display(name)}' section: merge the others into it.",
                {
                    "reason": "duplicate",
                    "section": name,
                    "line_ranges": [list(section.line_range) for section in sections],
                },
            )
        )
    for name in report.out_of_order:
        problems.append(
            Problem(
                f"the {_display(name)!r} section is out of order",
                outline,
                "Put the sections in this order: "
                + ", ".join(map(_display, report.required))
                + ".",
                {"reason": "out_of_order", "section": name},
            )
        )
    if report.too_few_sections:
        problems.append(
            Problem(
                f"the answer has {len(report.sections)} sections, fewer than {report.min_sections}",
                f"at least {report.min_sections} sections, each under a Markdown heading",
                "Organise the answer into sections, each under a Markdown heading.",
                {"reason": "too_few_sections", "count": len(report.sections)},
            )
        )
    return problems


def sections_check(
    required_headers: Sequence[str],
    *,
    flexible: bool = True,
    ordered: bool = False,
    on_fail: OnFail | str = "reask",
) -> Check:
    """A :class:`~citeloop.checks.check.Check` named ``"sections"``.

    Its outcome has one :class:`~citeloop.checks.check.Problem` per missing,
    empty, duplicated or (with ``ordered``) misplaced required section, each naming
    the section, giving its heading (``"## Risks"``, at the level the answer uses for
    its required sections, else 2) or the whole required outline as the expected shape,
    and saying how to fix it. It has no ``fixed`` text (content cannot be invented);
    ``value`` is the :class:`SectionReport`.

    Args:
        required_headers: Section names that must be present (see
            :func:`section_completeness_result`).
        flexible: Accept bold pseudo-headings as sections.
        ordered: The required sections must come in the given order.
        on_fail: The failure policy (:class:`~citeloop.checks.check.OnFail`).

    Raises:
        ConfigurationError: Bad ``required_headers``, a flag that is not a ``bool``, or
            an unknown ``on_fail`` (raised here, before any model call).

    Example:
        >>> check = sections_check(["Overview", "Risks"])
        >>> outcome = check("## Overview\\nA plan.\\n")
        >>> outcome.passed, outcome.problems[0].expected
        (False, '## Risks')
    """
    names, _ = _required_keys(required_headers)
    require_bool("flexible", flexible)
    require_bool("ordered", ordered)

    def run(text: str) -> CheckOutcome:
        report = response_structure_result(text, names, flexible=flexible, ordered=ordered)
        if report.passed:
            return CheckOutcome("sections", True, value=report)
        return failed("sections", _problems(report), value=report)

    return Check("sections", run, on_fail=on_fail)
