"""Check that an answer uses and cites the knowledge-graph context of its prompt.

An answer is *grounded* when its body (the text outside the citation section)
references enough of the core entities of the context, and its ``## Entities used``
section cites every core entity and nothing outside the context. Entities whose last
dotted part starts with ``_`` are private: reported, never required. Supporting entities
may be cited, never required. A core entity named by one lower-case word (``process``)
is referenced only where the body writes it as code, as a task's plain word is never
core.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from types import MappingProxyType
from typing import Any

from citeloop.grounding.citation_section import (
    DEFAULT_SECTION_LABELS,
    split_citation_section,
)
from citeloop.grounding.entities import CORE, ContextName, context_names, namesake_choices
from citeloop.grounding.lacking_passages import listed_item_spans
from citeloop.grounding.matching import NameScanner
from citeloop.grounding.mentions import Mention, answer_code
from citeloop.grounding.resolve import (
    check_locations,
    cited_members,
    cited_owners,
    resolve_citation,
    section_rank,
)
from citeloop.grounding.results import GraphValidationResult, ValidationResult
from citeloop.grounding.retry_prompt import build_retry_prompt
from citeloop.grounding.sayings import says_context_insufficient
from citeloop.grounding.substance import GraphNames, only_lists, ungrounded_names
from citeloop.markdown import unescape, visible_text
from citeloop.text import listed, normalize_text, plain_hyphens, without_invisible

INSUFFICIENT_RULE = "insufficient_context"
"""The rule an answer fails, while a retry can widen its context, for saying the context
is not enough (on the last attempt it is reported instead: ``insufficient_context``)."""


def as_read(response: str) -> str:
    """``response`` as :class:`GraphContextValidator` reads it: what a reader sees, with
    no invisible characters inside names, no HTML comments, a hyphen as ``-``
    (``REQ\\u2011002`` is ``REQ-002``). What quotes the answer to explain a verdict
    quotes this text, so that it quotes what was judged."""
    return visible_text(plain_hyphens(without_invisible(normalize_text(response))))


@dataclass(frozen=True, slots=True, eq=False)
class IndexedContext:
    """The entities of a context, parsed, with what the rules read of them: validating
    several answers against one context (a retry's answer, then the next) parses and
    indexes it once. :meth:`GraphContextValidator.report` takes it as its context.

    Attributes:
        entities: The entities (:func:`~citeloop.grounding.entities.context_names`).
        names: Their names.
        scanner: A :class:`NameScanner` of ``names``.
        private: The private names (last dotted part starting with ``_``).
        core: What the core tier requires: its public names, but ``Owner.name`` for
            each core member of a name several classes share
            (:attr:`~citeloop.grounding.entities.ContextName.core_owners`).
        members: Those ``Owner.name`` requirements, each with its name.
        member_scanner: A :class:`NameScanner` of ``members``, or ``None`` when there
            is none.
        owners: The classes the context's members are written under (``Group`` of
            ``Group.invoke``), an answer may name them.
        owners_of: The classes the context's members of each name are written under
            (``fit``: ``LocalOutlierFactor``, ``NearestNeighbors``).
    """

    entities: tuple[ContextName, ...]
    names: frozenset[str]
    scanner: NameScanner
    private: frozenset[str]
    core: frozenset[str]
    members: Mapping[str, str] = field(default_factory=dict)
    member_scanner: NameScanner | None = None
    owners: frozenset[str] = frozenset()
    owners_of: Mapping[str, frozenset[str]] = field(default_factory=dict)


def index_context(context: Any) -> IndexedContext:
    """``context`` (any shape :func:`~citeloop.grounding.entities.context_names`
    accepts) parsed and indexed; an :class:`IndexedContext` is returned as it is.

    Raises:
        TypeError: ``context`` has no accepted shape.
        ValueError: An entity has an empty name, a name without a word character, or
            an unknown tier.
    """
    if type(context) is IndexedContext:
        return context
    if isinstance(context, str):
        return _text_index(context)
    return _index_of(context_names(context))


def _index_of(entities: Sequence[ContextName]) -> IndexedContext:
    names = frozenset(entity.name for entity in entities)
    private = frozenset(entity.name for entity in entities if entity.private)
    core: set[str] = set()
    members: dict[str, str] = {}
    for entity in entities:
        if entity.tier != CORE or entity.name in private:
            continue
        for owner in entity.core_owners:
            if owner:
                members[f"{owner}.{entity.name}"] = entity.name
        if not entity.core_owners or "" in entity.core_owners:
            core.add(entity.name)
    scanner = NameScanner(members) if members else None
    owners_of = {
        entity.name: frozenset(
            {place.owner for place in entity.places if place.owner} | set(entity.core_owners)
        )
        - {""}
        for entity in entities
    }
    owners = set().union(*owners_of.values())
    return IndexedContext(
        tuple(entities),
        names,
        NameScanner(names),
        private,
        frozenset(core | members.keys()),
        MappingProxyType(members),
        scanner,
        frozenset(owners),
        MappingProxyType(owners_of),
    )


@functools.lru_cache(maxsize=16)
def _text_index(text: str) -> IndexedContext:
    # Context text is parsed once for all the answers validated against it (each retry
    # is validated twice; a user may check many answers against one context).
    return _index_of(context_names(text))


def _members_beside_owner(index: IndexedContext, referenced: set[str], body: str) -> set[str]:
    """The core members ``Owner.name`` (:attr:`IndexedContext.members`) that ``body``
    references by ``name`` and ``Owner`` (``fit()`` beside ``LocalOutlierFactor``) and
    no other class the context writes a member of that name under (by its name, an
    entity of the context or not): the body's own text says which ``fit`` it means."""
    found = set()
    for requirement, name in index.members.items():
        owner = requirement[: -len(name) - 1]
        if name not in referenced or owner not in referenced:
            continue
        others = index.owners_of.get(name, frozenset()) - {owner}
        if not any(other in referenced or _names(body, other) for other in others):
            found.add(requirement)
    return found


def _names(body: str, word: str) -> bool:
    """Whether ``body`` writes ``word`` as a whole word (not inside another name)."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", body) is not None


COMPLIANCE_THRESHOLD = 0.5
"""Default share of core entities the body must reference (the source design 000 documents
50%; its code's 1.0 contradicts its own documentation)."""
MAX_VALIDATION_RETRIES = 2
"""Retries after a failed validation in the source design's loop (the default budget of
the ``grounded_answer`` graph's retries)."""


@dataclass(frozen=True, slots=True)
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
    the body does not say the context lacks what it needs
    (:mod:`citeloop.grounding.sayings`: so a graph widens the context instead of
    passing). A context without entities passes (``vacuous``).

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

    Two ways to call it. citeloop's: one validator for any context,
    ``GraphContextValidator().validate(answer, context)`` returning a
    :class:`GraphValidationResult`. The source design 000's: the context given once,
    ``GraphContextValidator(context_text, threshold=0.5, core_entities=None)`` then
    ``validate(response, require_citations=True)`` returning a
    :class:`~citeloop.grounding.results.ValidationResult` (its ``report`` is the full
    result), with the entity properties (:attr:`entity_names`, ...) of that context.

    Args:
        graph_context: The context the validator checks against when ``validate`` is
            given none (text in the documented format or any accepted shape).
        threshold: The source design's name of ``reference_threshold`` (either may be
            given; documented default 50%).
        core_entities: Names the answer must cite, overriding the context's tiers
            (default: the core tier, or every public entity of a context without
            tiers).
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
        ValueError: ``reference_threshold`` is outside [0, 1], ``threshold`` and
            ``reference_threshold`` disagree, ``section_labels`` is empty or holds a
            blank label, or ``min_citations`` is negative.
        TypeError: ``reference_threshold`` is not a number, ``min_citations`` not an
            int, or ``section_labels`` a str (not a list of labels).

    Example:
        >>> validator = GraphContextValidator(reference_threshold=1.0)
        >>> answer = "GraphStore holds it.\\n\\n## Entities used\\n- GraphStore\\n"
        >>> validator.validate(answer, ["GraphStore"]).passed
        True
    """

    graph_context: Any = None
    threshold: float | None = None
    core_entities: Sequence[str] | None = None
    _: KW_ONLY
    reference_threshold: float | None = None
    require_citations: bool = True
    fail_on_cited_not_used: bool = False
    section_labels: tuple[str, ...] = DEFAULT_SECTION_LABELS
    min_citations: int = 1
    fail_on_invented: bool = True
    require_locations: bool = False
    fail_on_insufficient: bool = True

    def __post_init__(self) -> None:
        given = {v for v in (self.threshold, self.reference_threshold) if v is not None}
        if len(given) > 1:
            raise ValueError(
                f"threshold={self.threshold!r} and reference_threshold="
                f"{self.reference_threshold!r} disagree; pass one of them"
            )
        threshold = given.pop() if given else COMPLIANCE_THRESHOLD
        object.__setattr__(self, "threshold", threshold)
        object.__setattr__(self, "reference_threshold", threshold)
        if self.core_entities is not None:
            if isinstance(self.core_entities, str):
                raise TypeError("core_entities must be a list of names, got a str")
            object.__setattr__(self, "core_entities", tuple(self.core_entities))
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise TypeError(f"reference_threshold must be a number in [0, 1], got {threshold!r}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(
                f"reference_threshold must be in [0, 1], got {threshold!r}; "
                "e.g. 0.5 requires half of the core entities in the body"
            )
        if isinstance(self.section_labels, str):
            # Each of its characters had been a label: no answer's section was found.
            raise TypeError(
                f"section_labels must be a list of labels, got the str "
                f"{self.section_labels[:60]!r}; pass ({self.section_labels[:60]!r},)"
            )
        labels = tuple(self.section_labels)
        if not labels:
            raise ValueError("section_labels is empty; pass at least one label")
        if not all(isinstance(label, str) and label.strip() for label in labels):
            raise ValueError(
                f"section_labels must be non-blank strings, got {labels!r}; pass the "
                "words of the heading of the answer's citation list, e.g. 'Entities used'"
            )
        object.__setattr__(self, "section_labels", labels)
        if isinstance(self.min_citations, bool) or not isinstance(self.min_citations, int):
            raise TypeError(f"min_citations must be an int, got {self.min_citations!r}")
        if self.min_citations < 0:
            raise ValueError(f"min_citations must be >= 0, got {self.min_citations}")

    def _section_heading(self) -> str:
        """The heading a reason asks for: ``Entities used``, or the first of the labels
        given (an answer under ``## Entities used`` has no section they accept)."""
        if self.section_labels == DEFAULT_SECTION_LABELS:
            return "Entities used"
        return " ".join(self.section_labels[0].split())

    def validate(
        self,
        response: str,
        context: Any = None,
        *,
        require_citations: bool | None = None,
        prompt: str | Sequence[str] = "",
        graph_names: GraphNames | None = None,
    ) -> Any:
        """Validate ``response`` against ``context``, or against the validator's own
        ``graph_context`` when ``context`` is not given.

        With ``context`` given, returns a :class:`GraphValidationResult` (citeloop's
        call). Without it, returns the source design 000's
        :class:`~citeloop.grounding.results.ValidationResult`, whose ``report`` is the
        full result; a bool as second argument is that design's positional
        ``require_citations``.

        Raises:
            TypeError: No context here nor in the constructor, or see :meth:`report`.
            ValueError: See :meth:`report`.

        Example:
            >>> validator = GraphContextValidator("class GraphStore\\ndef build_index()")
            >>> result = validator.validate("GraphStore is filled by build_index().",
            ...                             require_citations=False)
            >>> result.passed, result.compliance_ratio, result.public_found
            (True, 1.0, ['GraphStore', 'build_index'])
        """
        if isinstance(context, bool):
            context, require_citations = None, context
        if context is not None:
            return self.report(
                response,
                context,
                require_citations=require_citations,
                prompt=prompt,
                graph_names=graph_names,
            )
        if self.graph_context is None:
            raise TypeError(
                "no context to validate against: pass it to validate(response, context) "
                "or to the constructor, GraphContextValidator(context_text)"
            )
        report = self.report(
            response,
            self.graph_context,
            require_citations=require_citations,
            prompt=prompt,
            graph_names=graph_names,
        )
        return ValidationResult.from_report(report)

    def report(
        self,
        response: str,
        context: Any,
        *,
        require_citations: bool | None = None,
        prompt: str | Sequence[str] = "",
        graph_names: GraphNames | None = None,
    ) -> GraphValidationResult:
        """Validate ``response`` against the entities of ``context``: the full result.

        Work is linear in the length of ``response`` and ``prompt`` plus the size of
        ``context`` (no per-entity pass over the answer); odd text (empty, huge,
        binary-ish, broken Markdown) never raises.

        Args:
            response: The answer text.
            context: Context text in the documented format, an object with
                ``.entities`` (``InjectedContext``), a mapping with ``"entities"``, or
                an iterable of names / entity objects / mappings (see
                :func:`citeloop.grounding.entities.context_names`); entities with a
                ``path``, ``line`` and ``end_line`` let locations be checked. An
                :class:`IndexedContext` (:func:`index_context`) is read as it is.
            prompt: The rest of what the model was shown (task, payload; the context
                text when ``context`` neither is text nor holds it, as an
                ``InjectedContext``'s ``text`` or a ``"text"`` key does): the names it
                writes are grounded. Core members of one name the task (the first
                text) writes bare are one requirement
                (:func:`~citeloop.grounding.entities.namesake_choices`).
            graph_names: The knowledge graph's entity names (a collection, or a
                predicate such as a store lookup), to tell names the graph has from
                invented ones; without it every ungrounded name counts as invented.
            require_citations: Overrides the validator's ``require_citations``.

        Returns:
            The validation result.

        Raises:
            TypeError: ``response`` is not a str, ``prompt`` is neither a str nor a
                list of str (``None`` is no prompt), ``context`` has no accepted shape, or
                ``graph_names`` is a str (``in`` would match any part of it) or no
                collection nor predicate.
            ValueError: A context entity has an empty name, a name without any word
                character (``(*)``, ``->``: it could not be told apart from
                punctuation), or an unknown tier.
        """
        if not isinstance(response, str):
            raise TypeError(f"response must be a str, got {type(response).__name__}")
        if prompt is None:  # no prompt, as the default
            prompt = ""
        elif not isinstance(prompt, str) and not (
            isinstance(prompt, Sequence) and all(isinstance(text, str) for text in prompt)
        ):
            raise TypeError(
                f"prompt must be a str or a list of str (the task, the payload), got "
                f"{type(prompt).__name__}"
            )
        index = index_context(context)
        entities, names, scanner = index.entities, index.names, index.scanner
        private, core = index.private, index.core
        # Of several candidate sections the last one citing an entity by name is the
        # list; a later label line of prose ("Citations: StateGraph is the key one.",
        # "Citations: none beyond the list above.") is not.
        shown = as_read(response)
        body, section = split_citation_section(
            shown,
            self.section_labels,
            prefer=lambda candidate: section_rank(candidate, names, scanner),
            is_entity=lambda name: bool(resolve_citation(name, names, scanner)[0]),
        )
        body = unescape(body)
        referenced = scanner.scan(body)
        # A core member whose name other classes share is referenced as `Owner.name`,
        # or by its name beside its class when the body names no other of those classes.
        required = referenced | (index.member_scanner.scan(body) if index.member_scanner else set())
        required |= _members_beside_owner(index, referenced, body)

        cited: set[str] = set()
        invalid: set[str] = set()
        for item in section.items if section else ():
            valid, wrong = resolve_citation(item, names, scanner)
            cited |= valid
            if wrong is not None:
                invalid.add(wrong)
        for label in section.group_labels if section else ():
            # A group label ("Classes:") cites an entity only when it names one.
            cited |= resolve_citation(label, names, scanner)[0]

        public = names - private
        if self.core_entities is not None:
            unknown = sorted(set(self.core_entities) - names - index.core)
            if unknown:
                raise ValueError(
                    f"core_entities not in the context: {listed(unknown)}; "
                    "pass names the context holds"
                )
            core = set(self.core_entities)
        members_cited = cited_members(section, index.members, entities, names, scanner)
        # A core member the body writes by its name alone, which the citation section
        # cites under its class (`NearestCentroid.decision_function (path:line)`): the
        # answer's own list says which one it means, beside another class of that name.
        required |= {member for member in members_cited if index.members[member] in referenced}
        code = answer_code(body)  # the body's code names, read once
        required -= _only_in_prose(core & required, code[0])
        core_referenced = core & required
        missing_core_citations = core - cited - members_cited
        if missing_core_citations:  # a class cited through a member written under it
            missing_core_citations -= cited_owners(section, entities, names, scanner)
        entities_missing = core - required
        # Namesakes the task's one bare name chose among (`fit`: three classes' `fit`),
        # with that name, are one requirement: any entity of the name the context holds
        # referenced, or cited, meets it.
        alternatives = namesake_choices(core, index.members, prompt)
        grouped = frozenset().union(*alternatives)
        units = len(core - grouped) + len(alternatives)
        hits = len(core_referenced - grouped) + sum(1 for g in alternatives if g & required)
        for group in alternatives:
            if group & required:
                entities_missing -= group
            if group & (cited | members_cited):  # one of them cited
                missing_core_citations -= group
        ratio = hits / units if units else 1.0
        cited_not_used = cited - referenced
        vacuous = not entities

        texts = [prompt] if isinstance(prompt, str) else list(prompt)
        texts.append(_shown_text(context))
        ungrounded = ungrounded_names(
            body, names | index.owners, graph_names, prompt=texts, code=code
        )
        invented, asked_for = ungrounded.invented, ()
        if invented and (spans := listed_item_spans(body)):
            # A name written only in the answer's list of what the context lacks is
            # asked for, not claimed: a played answer listed the `on_change` it needed,
            # of a dependency the graph does not hold, and its retry was told to remove
            # it. Its prose, even beside a saying, still claims.
            said = set(
                ungrounded_names(
                    _blanked(body, spans), names | index.owners, graph_names, prompt=texts
                ).invented
            )
            asked_for = tuple(name for name in invented if name not in said)
            invented = tuple(name for name in invented if name in said)
        located, wrong_places, unlocated, absent = check_locations(
            section, entities, names, scanner, cited, require=self.require_locations
        )
        require = self.require_citations if require_citations is None else require_citations
        if require:  # `StateGraph.validate (state.py:1129)` with only Pregel's shown
            invalid |= {name for name, _ in absent}
        else:
            wrong_places += tuple(location for _, location in absent)
        insufficient = says_context_insufficient(body)
        no_prose = only_lists(body, names)

        rules: list[tuple[str, str]] = []
        if ratio < self.reference_threshold:
            rules.append(
                (
                    "references",
                    f"the body references {hits} of {units} core "
                    f"entities ({ratio:.0%}), below the required {self.reference_threshold:.0%}",
                )
            )
        if require:
            if section is None and core:
                heading = self._section_heading()
                rules.append(("citation_section", f"no citation section ('## {heading}')"))
            if missing_core_citations:
                missing = listed(sorted(missing_core_citations))
                rules.append(("core_citations", f"core entities not cited: {missing}"))
            if invalid:
                wrong = listed(sorted(invalid))
                rules.append(("invalid_citations", f"citations not in the context: {wrong}"))
            if not core and entities and len(cited) < self.min_citations:
                rules.append(
                    (
                        "min_citations",
                        f"the task names no code of the context: cite at least "
                        f"{self.min_citations} of "
                        f"the context's entities the answer uses under "
                        f"'## {self._section_heading()}' "
                        f"({len(cited)} cited)",
                    )
                )
        if self.fail_on_cited_not_used and cited_not_used:
            unused = listed(sorted(cited_not_used))
            rules.append(("cited_not_used", f"cited but not used in the body: {unused}"))
        if self.fail_on_invented and invented:
            rules.append(
                (
                    "invented_names",
                    "the body names code that is in neither the context nor the "
                    f"knowledge graph: {listed(invented)}"
                    if graph_names is not None
                    else "the body names code the context does not have (only the "
                    f"context was searched): {listed(invented)}",
                )
            )
        if wrong_places or unlocated:
            parts = [f"outside the cited entity: {listed(wrong_places)}"] if wrong_places else []
            if unlocated:
                parts.append(f"without a location: {listed(unlocated)}")
            rules.append(("locations", "citation locations " + "; ".join(parts)))
        if self.fail_on_insufficient and insufficient:
            rules.append((INSUFFICIENT_RULE, "the answer says the context is not enough"))
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
            entities_found=tuple(sorted(required)),
            entities_missing=tuple(sorted(entities_missing)),
            has_citation_section=section is not None,
            reasons=tuple(reason for _, reason in rules),
            failed_rules=tuple(rule for rule, _ in rules),
            invented_names=invented,
            lacking_not_in_graph=asked_for if graph_names is not None else (),
            ungrounded_in_graph=ungrounded.in_graph,
            cited_locations=located,
            invalid_locations=wrong_places,
            missing_locations=unlocated,
            insufficient_context=insufficient,
            graph_searched=graph_names is not None,
            context_located=any(entity.places for entity in entities),
        )

    @staticmethod
    def build_retry_prompt(
        task: str,
        result: GraphValidationResult | ValidationResult,
        extra_problems: Sequence[str] = (),
        *,
        previous_answer: str = "",
        payload: str = "",
        widened: bool = False,
        origins: Mapping[str, str] | None = None,
    ) -> str:
        """Same as the module function :func:`citeloop.grounding.build_retry_prompt`;
        ``result`` may also be the source design's
        :class:`~citeloop.grounding.results.ValidationResult`
        (``validator.build_retry_prompt(original_prompt, validation)``)."""
        report = result.to_report() if isinstance(result, ValidationResult) else result
        return build_retry_prompt(
            task,
            report,
            extra_problems,
            previous_answer=previous_answer,
            payload=payload,
            widened=widened,
            origins=origins,
        )

    def _own_entities(self) -> tuple[list[str], list[str]]:
        """(public, private) names of the validator's own context, sorted."""
        if self.graph_context is None:
            return [], []
        entities = context_names(self.graph_context)
        public = sorted({entity.name for entity in entities if not entity.private})
        private = sorted({entity.name for entity in entities if entity.private})
        return public, private

    @property
    def has_entities(self) -> bool:
        """Whether the validator's own context has a public entity."""
        return bool(self._own_entities()[0])

    @property
    def entity_names(self) -> list[str]:
        """Every entity name of the validator's own context: public, then private."""
        public, private = self._own_entities()
        return public + private

    @property
    def public_entity_names(self) -> list[str]:
        """Public entity names of the validator's own context (what is enforced)."""
        return self._own_entities()[0]

    @property
    def private_entity_names(self) -> list[str]:
        """Private (``_``-prefixed) entity names of the validator's own context
        (reported, never required)."""
        return self._own_entities()[1]


def _shown_text(context: Any) -> str:
    """The text of ``context`` the model was shown: the context itself when it is text,
    an ``InjectedContext``'s ``text`` or a mapping's ``"text"`` (``citeloop context
    --json``), else ``""``. The names its lines show (a source excerpt's code) are
    grounded."""
    if isinstance(context, str):
        return context
    text = context.get("text") if isinstance(context, Mapping) else getattr(context, "text", None)
    return text if isinstance(text, str) else ""


def _blanked(body: str, spans: list[tuple[int, int]]) -> str:
    """``body`` with the text of ``spans`` made spaces (lines and offsets stay)."""
    parts, at = [], 0
    for start, end in spans:
        parts += [body[at:start], re.sub(r"[^\n]", " ", body[start:end])]
        at = end
    return "".join([*parts, body[at:]])


def _only_in_prose(names: set[str], mentions: Sequence[Mention]) -> set[str]:
    """Of ``names`` (core names the body references), those that are one lower-case
    English-looking word the body never writes as code (``mentions``, the body's
    :func:`~citeloop.grounding.mentions.answer_code`: in backticks, called, or dotted
    onto another name): "we process the order" references no core ``process``, as a
    task's plain word makes none core."""
    plain = {name for name in names if name.isalpha() and name.islower()}
    if not plain:
        return set()
    return plain - {mention.name.rpartition(".")[2] for mention in mentions}
