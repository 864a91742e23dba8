"""The results of graph-context validation: :class:`GraphValidationResult` (citeloop's
full report) and :class:`ValidationResult` (the source design 000's result: list fields,
counts and the documented properties), with the conversion between them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class GraphValidationResult:
    """The outcome of :meth:`GraphContextValidator.validate`. All name lists are sorted.

    Attributes:
        passed: The verdict.
        vacuous: The context had no entities at all, so the answer passes trivially.
        public_entities: Entities whose name does not start with ``_``.
        private_entities: Entities whose name starts with ``_`` (never required).
        core_entities: Public entities of tier ``core``: those the answer must reference
            and cite (``Owner.name`` for a core member of a name several classes of
            the context share).
        public_found: Public entities referenced in the body.
        public_missing: Public entities not referenced in the body.
        private_found: Private entities referenced in the body.
        private_missing: Private entities not referenced in the body.
        citations: Cited names that are entities of the context.
        invalid_citations: Cited names that are not, as written after reducing a dotted
            name to its last part.
        missing_core_citations: Core entities the citation section does not cite.
        cited_not_used: Cited entities the body never references.
        compliance_ratio: Core entities referenced in the body / core entities, in
            [0, 1]; 1.0 when there are no core entities.
        entities_found: Entities (public and private) referenced in the body, and the
            ``Owner.name`` core entities it references.
        entities_missing: Core entities not referenced in the body.
        has_citation_section: The answer has a citation section.
        reasons: Short human-readable reasons for a failed verdict (empty when passed).
        failed_rules: The rules that failed, by id, in the order of ``reasons``:
            ``references``, ``citation_section``, ``core_citations``,
            ``invalid_citations``, ``min_citations``, ``cited_not_used``,
            ``invented_names``, ``locations``, ``insufficient_context``, ``no_prose``
            (the ``grounded_answer`` graph adds ``empty_context`` to its report when
            the context is empty).
        invented_names: Code names of the body that nothing grounds: not the context,
            the prompt, Python, or the knowledge graph (see
            :mod:`citeloop.grounding.substance`), as written.
        ungrounded_in_graph: Code names of the body outside the context and prompt
            that the knowledge graph has (reported; widening brings them in).
        lacking_not_in_graph: Code names the body writes only in its list of what the
            context lacks (:func:`~citeloop.grounding.lacking_passages.listed_item_spans`) that
            the knowledge graph has not either: asked for, not claimed, so not
            ``invented_names`` (code outside the indexed source, such as a
            dependency's, or a guess); empty when no graph was searched.
        cited_locations: Valid locations of the citation section, as written.
        invalid_locations: Locations of the citation section outside the cited
            entity's file or line span, as written.
        missing_locations: Cited names without a location (reported only when
            locations are required).
        insufficient_context: The body says the context lacks what it needs.
        graph_searched: The knowledge graph's names were searched (``graph_names``
            given): an invented name is in neither the context nor the graph.
            ``False``: only the context and the prompt were, so an invented name is
            only one the context does not have (a report kept before this field
            existed reads as ``False``: the weaker claim).
        context_located: Some entity of the context has a location (a path and a
            line): a retry prompt asks for ``- Name (path:line)`` citations, otherwise
            for names alone.
        total_entities: Number of entities in the context (derived).
        public_count: Number of public entities (derived).
        private_count: Number of private entities (derived).
        found_count: Number of entities referenced in the body (derived).
        core_count: Number of core entities (derived).
    """

    passed: bool
    vacuous: bool
    public_entities: tuple[str, ...]
    private_entities: tuple[str, ...]
    core_entities: tuple[str, ...]
    public_found: tuple[str, ...]
    public_missing: tuple[str, ...]
    private_found: tuple[str, ...]
    private_missing: tuple[str, ...]
    citations: tuple[str, ...]
    invalid_citations: tuple[str, ...]
    missing_core_citations: tuple[str, ...]
    cited_not_used: tuple[str, ...]
    compliance_ratio: float
    entities_found: tuple[str, ...]
    entities_missing: tuple[str, ...]
    has_citation_section: bool
    reasons: tuple[str, ...]
    failed_rules: tuple[str, ...] = ()
    invented_names: tuple[str, ...] = ()
    ungrounded_in_graph: tuple[str, ...] = ()
    lacking_not_in_graph: tuple[str, ...] = ()
    cited_locations: tuple[str, ...] = ()
    invalid_locations: tuple[str, ...] = ()
    missing_locations: tuple[str, ...] = ()
    insufficient_context: bool = False
    graph_searched: bool = False
    context_located: bool = True

    total_entities: int = field(init=False)
    public_count: int = field(init=False)
    private_count: int = field(init=False)
    found_count: int = field(init=False)
    core_count: int = field(init=False)

    def __post_init__(self) -> None:
        # Counts are fields derived from the lists, so `dataclasses.asdict` has them too.
        counts = {
            "total_entities": len(self.public_entities) + len(self.private_entities),
            "public_count": len(self.public_entities),
            "private_count": len(self.private_entities),
            "found_count": len(self.entities_found),
            "core_count": len(self.core_entities),
        }
        for name, value in counts.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GraphValidationResult:
        """Rebuild a result from :meth:`to_dict` output (e.g. a report kept in graph state).

        A field with a default may be missing (a report kept before it existed).

        Raises:
            KeyError: A field without a default is missing from ``data``.
        """
        values = {
            item.name: tuple(data[item.name])
            if isinstance(data[item.name], list)
            else data[item.name]
            for item in fields(cls)
            if item.init and (item.name in data or item.default is MISSING)
        }
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-serialisable data.

        Returns:
            Every field by name (the keys of ``dataclasses.asdict``), name lists as lists.
        """
        data: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            data[item.name] = list(value) if isinstance(value, tuple) else value
        return data


@dataclass
class ValidationResult:
    """The result of graph-context validation in the shape the source design 000
    documents: name lists (sorted), counts, and the derived properties.

    :meth:`GraphContextValidator.validate <citeloop.grounding.GraphContextValidator.validate>`
    returns one when it validates against the validator's own context
    (``GraphContextValidator(context_text).validate(response)``); ``report`` then holds
    citeloop's full :class:`GraphValidationResult` (reasons, failed rules, invented
    names, locations).

    Attributes:
        passed: The verdict.
        public_found: Public entities referenced in the answer's body.
        public_missing: Public entities not referenced.
        private_found: Private (``_``-prefixed) entities referenced.
        private_missing: Private entities not referenced.
        public_count: Number of public entities.
        public_referenced: Number of public entities referenced.
        total_count: Number of entities, public and private.
        total_referenced: Number of entities referenced, public and private.
        citations: Names the ``Entities used`` section cites (valid or not).
        invalid_citations: Cited names that are not entities of the context.
        missing_core_citations: Core entities the section does not cite.
        report: citeloop's full report, when the result came from a validation.
    """

    passed: bool = False
    public_found: list[str] = field(default_factory=list)
    public_missing: list[str] = field(default_factory=list)
    private_found: list[str] = field(default_factory=list)
    private_missing: list[str] = field(default_factory=list)
    public_count: int = 0
    public_referenced: int = 0
    total_count: int = 0
    total_referenced: int = 0
    citations: list[str] = field(default_factory=list)
    invalid_citations: list[str] = field(default_factory=list)
    missing_core_citations: list[str] = field(default_factory=list)
    report: GraphValidationResult | None = field(default=None, repr=False, compare=False)

    @property
    def compliance_ratio(self) -> float:
        """Public entities referenced / public entities, in [0, 1]; 1.0 without any."""
        return self.public_referenced / self.public_count if self.public_count else 1.0

    @property
    def entities_found(self) -> list[str]:
        """Referenced entities: public ones, then private ones."""
        return self.public_found + self.private_found

    @property
    def entities_missing(self) -> list[str]:
        """Entities not referenced: public ones, then private ones."""
        return self.public_missing + self.private_missing

    @property
    def entity_count(self) -> int:
        """Number of entities, public and private (``total_count``)."""
        return self.total_count

    @property
    def reference_count(self) -> int:
        """Number of entities referenced, public and private (``total_referenced``)."""
        return self.total_referenced

    @classmethod
    def from_report(cls, report: GraphValidationResult) -> ValidationResult:
        """The documented view of a :class:`GraphValidationResult`."""
        return cls(
            passed=report.passed,
            public_found=list(report.public_found),
            public_missing=list(report.public_missing),
            private_found=list(report.private_found),
            private_missing=list(report.private_missing),
            public_count=report.public_count,
            public_referenced=len(report.public_found),
            total_count=report.total_entities,
            total_referenced=len(report.public_found) + len(report.private_found),
            citations=sorted({*report.citations, *report.invalid_citations}),
            invalid_citations=list(report.invalid_citations),
            missing_core_citations=list(report.missing_core_citations),
            report=report,
        )

    def to_report(self) -> GraphValidationResult:
        """``report``, or a :class:`GraphValidationResult` built from these fields (for a
        result made by hand): every public entity core, reasons from the lists."""
        if self.report is not None:
            return self.report
        public = sorted({*self.public_found, *self.public_missing})
        reasons = []
        if self.public_missing:
            reasons.append(f"public entities not referenced: {', '.join(self.public_missing)}")
        if self.missing_core_citations:
            missing = ", ".join(self.missing_core_citations)
            reasons.append(f"core entities not cited: {missing}")
        if self.invalid_citations:
            wrong = ", ".join(self.invalid_citations)
            reasons.append(f"citations not in the context: {wrong}")
        valid = sorted(set(self.citations) - set(self.invalid_citations))
        return GraphValidationResult(
            passed=self.passed,
            vacuous=not self.total_count,
            public_entities=tuple(public),
            private_entities=tuple(sorted({*self.private_found, *self.private_missing})),
            core_entities=tuple(public),
            public_found=tuple(self.public_found),
            public_missing=tuple(self.public_missing),
            private_found=tuple(self.private_found),
            private_missing=tuple(self.private_missing),
            citations=tuple(valid),
            invalid_citations=tuple(self.invalid_citations),
            missing_core_citations=tuple(self.missing_core_citations),
            cited_not_used=(),
            compliance_ratio=self.compliance_ratio,
            entities_found=tuple(self.entities_found),
            entities_missing=tuple(self.public_missing),
            has_citation_section=bool(self.citations),
            reasons=tuple(reasons),
        )
