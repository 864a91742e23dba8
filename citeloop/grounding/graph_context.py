"""Check that an answer uses and cites the knowledge-graph context of its prompt.

An answer is *grounded* when its body (the text outside the citation section)
references enough of the core entities of the context, and its ``## Entities used``
section cites every core entity and nothing outside the context. Entities whose last
dotted part starts with ``_`` are private: reported, never required. Supporting entities
may be cited, never required.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from citeloop.grounding.citation_section import (
    DEFAULT_SECTION_LABELS,
    CitationSection,
    split_citation_section,
)
from citeloop.grounding.entities import CORE, ContextName, context_names
from citeloop.grounding.matching import NameScanner, without_underscore_emphasis
from citeloop.grounding.retry_prompt import build_retry_prompt
from citeloop.grounding.substance import (
    GraphNames,
    location_valid,
    only_lists,
    says_context_insufficient,
    ungrounded_names,
)
from citeloop.markdown import unescape, visible_text
from citeloop.text import INVISIBLE, normalize_text


@dataclass(frozen=True, slots=True)
class GraphValidationResult:
    """The outcome of :meth:`GraphContextValidator.validate`. All name lists are sorted.

    Attributes:
        passed: The verdict.
        vacuous: The context had no entities at all, so the answer passes trivially.
        public_entities: Entities whose name does not start with ``_``.
        private_entities: Entities whose name starts with ``_`` (never required).
        core_entities: Public entities of tier ``core``: those the answer must reference
            and cite.
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
        entities_found: Entities (public and private) referenced in the body.
        entities_missing: Core entities not referenced in the body.
        has_citation_section: The answer has a citation section.
        reasons: Short human-readable reasons for a failed verdict (empty when passed).
        failed_rules: The rules that failed, by id, in the order of ``reasons``:
            ``references``, ``citation_section``, ``core_citations``,
            ``invalid_citations``, ``min_citations``, ``cited_not_used``,
            ``invented_names``, ``locations``, ``insufficient_context``.
        invented_names: Code names of the body that nothing grounds: not the context,
            the prompt, Python, or the knowledge graph (see
            :mod:`citeloop.grounding.substance`), as written.
        ungrounded_in_graph: Code names of the body outside the context and prompt
            that the knowledge graph has (reported; widening brings them in).
        cited_locations: Valid locations of the citation section, as written.
        invalid_locations: Locations of the citation section outside the cited
            entity's file or line span, as written.
        missing_locations: Cited names without a location (reported only when
            locations are required).
        insufficient_context: The body says the context lacks what it needs.
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
    cited_locations: tuple[str, ...] = ()
    invalid_locations: tuple[str, ...] = ()
    missing_locations: tuple[str, ...] = ()
    insufficient_context: bool = False

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


def _resolve_name(
    item: str, names: Collection[str], scanner: NameScanner
) -> tuple[set[str], str | None]:
    if item in names:
        return {item}, None
    if not any(char.isspace() for char in item):
        # `pkg.mod.Name` and `Class.method` cite the entity named by their last part.
        last = item.rsplit(".", 1)[-1] or item
        return ({last}, None) if last in names else (set(), last)
    # A phrase ("the GraphStore protocol") cites the entities it mentions.
    mentioned = scanner.scan(item)
    return (set(mentioned), None) if mentioned else (set(), item)


def _resolve_citation(
    item: str, names: Collection[str], scanner: NameScanner
) -> tuple[set[str], str | None]:
    """Entities cited by one citation item, or the invalid name it cites (as written)."""
    cited, wrong = _resolve_name(item, names, scanner)
    plain = without_underscore_emphasis(item) if wrong is not None else None
    if plain is not None:
        # `__GraphStore__` is bold GraphStore unless the context names `__GraphStore__`.
        emphasized, _ = _resolve_name(plain, names, scanner)
        if emphasized:
            return emphasized, None
    return cited, wrong


def _section_rank(section: CitationSection, names: Collection[str], scanner: NameScanner) -> int:
    """2: cites a context entity by name; 1: only mentions one in prose; 0: neither."""
    rank = 0
    for item in section.items + section.group_labels:
        if _resolve_citation(item, names, scanner)[0]:
            if not any(char.isspace() for char in item):
                return 2
            rank = 1
    return rank


@dataclass(frozen=True, slots=True, kw_only=True)
class GraphContextValidator:
    """Validates that an answer uses and cites its knowledge-graph context.

    Verdict: at least ``reference_threshold`` of the core entities are referenced in
    the body; with ``require_citations``, the answer has a citation section (when
    there is any core entity) that cites every core entity and no name outside the
    context, and, when the context has entities but none is core (the task names no
    code), cites at least ``min_citations`` of them; with ``fail_on_cited_not_used``,
    every cited entity is also referenced in the body. Then the substance of the body
    (:mod:`citeloop.grounding.substance`): with ``fail_on_invented``, no code name of
    the body is invented (grounded by nothing: context, prompt, Python or the knowledge
    graph); every location a citation gives (``Name (path:line)``,
    ``path:start-end``) lies inside the cited entity's span, and with
    ``require_locations`` every cited name has one; with ``fail_on_insufficient``,
    the body does not say the context lacks what it needs (so a graph widens the
    context instead of passing). A context without entities passes (``vacuous``).

    Reading the answer: it is normalized (Stream-Safe, then NFC); when it has several
    citation sections, the last one that cites a context entity by name is used, else
    the last one whose prose mentions one (``Citations: StateGraph is the key one.``),
    else the last one, so wrong citations are still reported; backslash escapes are
    removed from the body (``build\\_index`` references ``build_index``); an item in
    underscore emphasis (``__GraphStore__``) cites the entity it emphasizes unless the
    context has the name as written; an item ``Label: a, b`` is the group label
    ``Label`` and its items unless ``Label`` is a context entity and none of the names
    is (``- build_index: entry`` describes build_index). Name matching follows
    :class:`citeloop.grounding.NameScanner`.

    ``fail_on_cited_not_used`` defaults to ``False``: a citation the body does not use
    is already penalised through the reference threshold when it is a core entity, and
    citing a supporting entity that informed the answer without being named is honest.

    Args:
        reference_threshold: Minimum share of core entities the body must reference,
            in [0, 1].
        require_citations: Require a complete, valid citation section.
        fail_on_cited_not_used: Fail when a cited entity is not referenced in the body.
        section_labels: Accepted labels of the citation section (case-insensitive).
        min_citations: Valid citations required when the context has no core entity
            (0 lets such an answer pass without citing).
        fail_on_invented: Fail when the body names code that nothing grounds.
        require_locations: Require a valid ``path:line`` location on every citation.
        fail_on_insufficient: Fail when the body says the context is not enough.

    Raises:
        ValueError: ``reference_threshold`` is outside [0, 1], ``section_labels`` is
            empty, or ``min_citations`` is negative.
        TypeError: ``reference_threshold`` is not a number, or ``min_citations`` not an int.

    Example:
        >>> validator = GraphContextValidator(reference_threshold=1.0)
        >>> answer = "GraphStore holds it.\\n\\n## Entities used\\n- GraphStore\\n"
        >>> validator.validate(answer, ["GraphStore"]).passed
        True
    """

    reference_threshold: float = 0.5
    require_citations: bool = True
    fail_on_cited_not_used: bool = False
    section_labels: tuple[str, ...] = DEFAULT_SECTION_LABELS
    min_citations: int = 1
    fail_on_invented: bool = True
    require_locations: bool = False
    fail_on_insufficient: bool = True

    def __post_init__(self) -> None:
        threshold = self.reference_threshold
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise TypeError(f"reference_threshold must be a number in [0, 1], got {threshold!r}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(
                f"reference_threshold must be in [0, 1], got {threshold!r}; "
                "e.g. 0.5 requires half of the core entities in the body"
            )
        if not self.section_labels:
            raise ValueError("section_labels is empty; pass at least one label")
        if isinstance(self.min_citations, bool) or not isinstance(self.min_citations, int):
            raise TypeError(f"min_citations must be an int, got {self.min_citations!r}")
        if self.min_citations < 0:
            raise ValueError(f"min_citations must be >= 0, got {self.min_citations}")

    def validate(
        self,
        response: str,
        context: Any,
        *,
        prompt: str | Sequence[str] = "",
        graph_names: GraphNames | None = None,
    ) -> GraphValidationResult:
        """Validate ``response`` against the entities of ``context``.

        Work is linear in the length of ``response`` and ``prompt`` plus the size of
        ``context`` (no per-entity pass over the answer); odd text (empty, huge,
        binary-ish, broken Markdown) never raises.

        Args:
            response: The answer text.
            context: Context text in the documented format, an object with
                ``.entities`` (``InjectedContext``), a mapping with ``"entities"``, or
                an iterable of names / entity objects / mappings (see
                :func:`citeloop.grounding.entities.context_names`); entities with a
                ``path``, ``line`` and ``end_line`` let locations be checked.
            prompt: The rest of what the model was shown (task, payload; the context
                text when ``context`` is not text): the names it writes are grounded.
            graph_names: The knowledge graph's entity names (a collection, or a
                predicate such as a store lookup), to tell names the graph has from
                invented ones; without it every ungrounded name counts as invented.

        Returns:
            The validation result.

        Raises:
            TypeError: ``response`` is not a str, or ``context`` has no accepted shape.
            ValueError: A context entity has an empty name, a name without any word
                character (``(*)``, ``->``: it could not be told apart from
                punctuation), or an unknown tier.
        """
        if not isinstance(response, str):
            raise TypeError(f"response must be a str, got {type(response).__name__}")
        entities = context_names(context)
        names = {entity.name for entity in entities}
        scanner = NameScanner(names)
        # Of several candidate sections the last one citing an entity by name is the
        # list; a later label line of prose ("Citations: StateGraph is the key one.",
        # "Citations: none beyond the list above.") is not.
        # What a reader sees: no invisible characters inside names, no HTML comments.
        shown = visible_text(normalize_text(response).translate(INVISIBLE))
        body, section = split_citation_section(
            shown,
            self.section_labels,
            prefer=lambda candidate: _section_rank(candidate, names, scanner),
            is_entity=lambda name: bool(_resolve_citation(name, names, scanner)[0]),
        )
        body = unescape(body)
        referenced = scanner.scan(body)

        cited: set[str] = set()
        invalid: set[str] = set()
        for item in section.items if section else ():
            valid, wrong = _resolve_citation(item, names, scanner)
            cited |= valid
            if wrong is not None:
                invalid.add(wrong)
        for label in section.group_labels if section else ():
            # A group label ("Classes:") cites an entity only when it names one.
            cited |= _resolve_citation(label, names, scanner)[0]

        private = {e.name for e in entities if e.private}
        public = names - private
        core = {e.name for e in entities if e.tier == CORE} - private
        core_referenced = core & referenced
        ratio = len(core_referenced) / len(core) if core else 1.0
        cited_not_used = cited - referenced
        missing_core_citations = core - cited
        vacuous = not entities

        texts = [prompt] if isinstance(prompt, str) else list(prompt)
        if isinstance(context, str):
            texts.append(context)
        ungrounded = ungrounded_names(body, names, graph_names, prompt=texts)
        located, wrong_places, unlocated = self._check_locations(
            section, entities, names, scanner, cited
        )
        insufficient = says_context_insufficient(body)
        no_prose = only_lists(body, names)

        rules: list[tuple[str, str]] = []
        if ratio < self.reference_threshold:
            rules.append(
                (
                    "references",
                    f"the body references {len(core_referenced)} of {len(core)} core "
                    f"entities ({ratio:.0%}), below the required {self.reference_threshold:.0%}",
                )
            )
        if self.require_citations:
            if section is None and core:
                rules.append(("citation_section", "no citation section ('## Entities used')"))
            if missing_core_citations:
                missing = ", ".join(sorted(missing_core_citations))
                rules.append(("core_citations", f"core entities not cited: {missing}"))
            if invalid:
                wrong = ", ".join(sorted(invalid))
                rules.append(("invalid_citations", f"citations not in the context: {wrong}"))
            if not core and entities and len(cited) < self.min_citations:
                rules.append(
                    (
                        "min_citations",
                        f"the task names no code: cite at least {self.min_citations} of "
                        f"the context's entities the answer uses under '## Entities used' "
                        f"({len(cited)} cited)",
                    )
                )
        if self.fail_on_cited_not_used and cited_not_used:
            unused = ", ".join(sorted(cited_not_used))
            rules.append(("cited_not_used", f"cited but not used in the body: {unused}"))
        if self.fail_on_invented and ungrounded.invented:
            rules.append(
                (
                    "invented_names",
                    "the body names code that is in neither the context nor the code "
                    f"base: {', '.join(ungrounded.invented)}",
                )
            )
        if wrong_places or unlocated:
            parts = [f"outside the cited entity: {', '.join(wrong_places)}"] if wrong_places else []
            if unlocated:
                parts.append(f"without a location: {', '.join(unlocated)}")
            rules.append(("locations", "citation locations " + "; ".join(parts)))
        if self.fail_on_insufficient and insufficient:
            rules.append(("insufficient_context", "the answer says the context is not enough"))
        if no_prose:
            rules.append(("no_prose", "the answer is lists of names, with no text that answers"))
        if vacuous:
            rules.clear()

        return GraphValidationResult(
            passed=not rules,
            vacuous=vacuous,
            public_entities=tuple(sorted(public)),
            private_entities=tuple(sorted(private)),
            core_entities=tuple(sorted(core)),
            public_found=tuple(sorted(public & referenced)),
            public_missing=tuple(sorted(public - referenced)),
            private_found=tuple(sorted(private & referenced)),
            private_missing=tuple(sorted(private - referenced)),
            citations=tuple(sorted(cited)),
            invalid_citations=tuple(sorted(invalid)),
            missing_core_citations=tuple(sorted(missing_core_citations)),
            cited_not_used=tuple(sorted(cited_not_used)),
            compliance_ratio=ratio,
            entities_found=tuple(sorted(referenced)),
            entities_missing=tuple(sorted(core - referenced)),
            has_citation_section=section is not None,
            reasons=tuple(reason for _, reason in rules),
            failed_rules=tuple(rule for rule, _ in rules),
            invented_names=ungrounded.invented,
            ungrounded_in_graph=ungrounded.in_graph,
            cited_locations=located,
            invalid_locations=wrong_places,
            missing_locations=unlocated,
            insufficient_context=insufficient,
        )

    def _check_locations(
        self,
        section: CitationSection | None,
        entities: Sequence[ContextName],
        names: Collection[str],
        scanner: NameScanner,
        cited: Collection[str],
    ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        """(valid locations, invalid locations, cited names without one when required)."""
        if section is None or not (section.locations or self.require_locations):
            return (), (), tuple(sorted(cited)) if section and self.require_locations else ()
        places = {entity.name: entity.places for entity in entities}
        every_place = [place for found in places.values() for place in found]
        valid: list[str] = []
        wrong: list[str] = []
        located: set[str] = set()
        for location in section.locations:
            if location.name is None:
                candidates = every_place
            else:
                targets, _ = _resolve_citation(location.name, names, scanner)
                if not targets:
                    continue  # an invalid citation already; its place cannot be judged
                if not any(places[target] for target in targets):
                    continue  # the context gives no place to check it against
                candidates = [place for target in targets for place in places[target]]
                located |= targets
            ok = location_valid(location.path, location.start, location.end, candidates)
            (valid if ok else wrong).append(location.text)
        unlocated = sorted(set(cited) - located) if self.require_locations else []
        return tuple(valid), tuple(wrong), tuple(unlocated)

    @staticmethod
    def build_retry_prompt(
        task: str,
        result: GraphValidationResult,
        extra_problems: Sequence[str] = (),
        *,
        previous_answer: str = "",
    ) -> str:
        """Same as the module function :func:`citeloop.grounding.build_retry_prompt`."""
        return build_retry_prompt(task, result, extra_problems, previous_answer=previous_answer)
