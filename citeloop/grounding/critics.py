"""Critics of a verbalised retrieval path, and the boundary-aware fact-id scan they use.

A critic is any callable ``(narrative, path) -> Critique``. The ``verbalize`` graph runs
:class:`FactIdCritic` first and then the caller's critics; the narrative passes only when
every critic passes, and the feedback of those that fail is combined into the prompt
that asks for a refinement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citeloop.markdown import visible_text
from citeloop.text import normalize_text

if TYPE_CHECKING:
    from citeloop.knowledge.paths import RetrievalPath


MAX_FEEDBACK_CHARS = 2_000
"""Characters of one critic's feedback passed on to the refinement prompt."""


# Identifier characters: word characters (letters, digits, ``_``), ``-``, and the
# combining marks of the Unicode combining blocks, which belong to the character before
# them (``f-1\u0301`` is not ``f-1``).
_ID_CLASS = r"\w\-\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_ID_RUN = re.compile(f"[{_ID_CLASS}]+")
_ID_CHAR = re.compile(f"[{_ID_CLASS}]")


def _is_id_char(char: str) -> bool:
    return _ID_CHAR.match(char) is not None


class _Mentions:
    """One text, scanned once: the whole-token mentions of any number of fact ids.

    An id made of identifier characters only (every id the graph makes) is mentioned
    exactly when it is one of the text's maximal identifier runs: a set lookup. Other
    ids (``f(1)+[x]``) are found with ``str.find`` and a boundary test at each
    occurrence.
    """

    def __init__(self, text: str) -> None:
        # What a reader sees: an id inside an HTML comment is mentioned to no one.
        self.text = normalize_text(visible_text(text))
        self._runs: set[str] | None = None

    def runs(self) -> set[str]:
        """The text's maximal identifier runs (each a candidate id)."""
        if self._runs is None:
            self._runs = set(_ID_RUN.findall(self.text))
        return self._runs

    def __contains__(self, fact_id: str) -> bool:
        fact_id = normalize_text(fact_id)
        if not fact_id:
            return False
        if _ID_RUN.fullmatch(fact_id):
            return fact_id in self.runs()
        text = self.text
        start = text.find(fact_id)
        while start != -1:
            end = start + len(fact_id)
            before_ok = start == 0 or not _is_id_char(text[start - 1])
            after_ok = end == len(text) or not _is_id_char(text[end])
            if before_ok and after_ok:
                return True
            start = text.find(fact_id, start + 1)
        return False


def mentions_fact_id(text: str, fact_id: str) -> bool:
    """Whether ``text`` mentions ``fact_id`` verbatim, as a whole token.

    A mention is an occurrence whose neighbours on both sides are not identifier
    characters (letters, digits, ``_``, ``-``, combining marks): ``fact-1`` is not
    mentioned by ``fact-10``, ``prefact-1`` or ``fact-1\u0301``, but is by ``[fact-1]``
    or ``(fact-1).``. The id is matched as plain text, so ids with regex metacharacters
    (``f(1)+[x]``) work. Both sides are NFC-normalized first, and the text is read as a
    reader sees it: an HTML comment mentions nothing. Linear in ``len(text)``
    for an id of identifier characters; for other ids at worst ``len(text) *
    len(fact_id)`` (text that repeats the id's own prefix), which is why paths cap ids
    at ``MAX_FACT_ID_CHARS``.

    Example:
        >>> mentions_fact_id("see [fact-10]", "fact-1"), mentions_fact_id("fact-1.", "fact-1")
        (False, True)
    """
    return fact_id in _Mentions(text)


def missing_fact_ids(text: str, fact_ids: Iterable[str]) -> list[str]:
    """The ``fact_ids`` that ``text`` does not mention (see :func:`mentions_fact_id`),
    in their given order, each once. The text is scanned once for all of them."""
    return _missing(_Mentions(text), fact_ids)


def _missing(mentions: _Mentions, fact_ids: Iterable[str]) -> list[str]:
    return [fact_id for fact_id in dict.fromkeys(fact_ids) if fact_id not in mentions]


_GRAPH_FACT_ID = re.compile(r"f-[0-9a-f]{16}")
"""The knowledge graph's fact ids (:func:`citeloop.knowledge.model.make_fact_id`)."""


def foreign_fact_ids(text: str, fact_ids: Iterable[str]) -> list[str]:
    """The fact ids ``text`` mentions that are not ``fact_ids``, sorted: identifier runs
    in the graph's id format (``f-`` and 16 hex digits) or, for ids of another format,
    of the same prefix (``fact-``) and of the length of one of ``fact_ids`` (``fact-12``
    beside ``fact-1`` and ``fact-2`` is none: lengths differ). A narrative that cites a
    fact the path does not hold claims what no fact of it says."""
    return _foreign(_Mentions(text), fact_ids)


def _foreign(mentions: _Mentions, fact_ids: Iterable[str]) -> list[str]:
    known = set(fact_ids)
    shapes = {(fact_id.partition("-")[0], len(fact_id)) for fact_id in known if "-" in fact_id}
    found = {
        run
        for run in mentions.runs()
        if run not in known
        and (
            _GRAPH_FACT_ID.fullmatch(run)
            or ("-" in run and (run.partition("-")[0], len(run)) in shapes)
        )
    }
    return sorted(found)


@dataclass(frozen=True, slots=True)
class Critique:
    """A critic's verdict on a narrative.

    Attributes:
        passed: Whether the narrative is acceptable to this critic.
        feedback: What to change (shown to the model on refinement); ``""`` when passed.
    """

    passed: bool
    feedback: str = ""


Critic = Callable[[str, "RetrievalPath"], Critique]
"""A critic: ``(narrative, path) -> Critique``. Its ``name`` attribute (or function
name) labels its feedback."""


@dataclass(frozen=True, slots=True)
class FactIdCritic:
    """The default critic: every fact id of the path is mentioned (boundary-aware).

    Example:
        >>> from citeloop.knowledge import EntityRef, PathHop, RetrievalPath
        >>> hop = PathHop(EntityRef("class", "B"), "f-1")
        >>> path = RetrievalPath(EntityRef("class", "A"), (hop,))
        >>> FactIdCritic()("A relates to B [f-10].", path)
        Critique(passed=False, feedback='Mention every fact id of the path verbatim; missing: f-1.')
    """

    name: str = "fact_ids"

    def __call__(self, narrative: str, path: RetrievalPath) -> Critique:
        mentions = _Mentions(narrative)  # read once for both
        missing, foreign = _missing(mentions, path.fact_ids), _foreign(mentions, path.fact_ids)
        if not missing and not foreign:
            return Critique(True)
        said = []
        if missing:
            said.append(
                f"Mention every fact id of the path verbatim; missing: {', '.join(missing)}."
            )
        if foreign:
            said.append(
                "Mention only the path's fact ids, and say only what its facts say; not in "
                f"the path: {', '.join(foreign)}."
            )
        return Critique(False, " ".join(said))


def critic_name(critic: Critic) -> str:
    """The label of a critic's feedback: its ``name``, function name, or class name."""
    name = getattr(critic, "name", None) or getattr(critic, "__name__", None)
    return name if isinstance(name, str) else type(critic).__name__


def run_critics(critics: Sequence[Critic], narrative: str, path: RetrievalPath) -> tuple[bool, str]:
    """Run every critic; (all passed, the failing critics' feedback, one line each, each
    cut after :data:`MAX_FEEDBACK_CHARS` so that a critic quoting the narrative cannot
    grow the refinement prompt).

    Raises:
        TypeError: A critic returned something other than a :class:`Critique`.
    """
    lines = []
    for critic in critics:
        critique = critic(narrative, path)
        if not isinstance(critique, Critique) or not isinstance(critique.passed, bool):
            raise TypeError(
                f"critic {critic_name(critic)!r} returned {critique!r}; a critic must "
                "return citeloop.grounding.Critique(passed: bool, feedback: str)"
            )
        if not critique.passed:
            feedback = str(critique.feedback or "failed")
            if len(feedback) > MAX_FEEDBACK_CHARS:
                feedback = f"{feedback[:MAX_FEEDBACK_CHARS]} [cut: {len(feedback)} characters]"
            lines.append(f"- {critic_name(critic)}: {feedback}")
    return not lines, "\n".join(lines)
