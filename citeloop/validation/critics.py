"""Critics of a verbalised retrieval path, and the boundary-aware fact-id scan they use.

A critic is any callable ``(narrative, path) -> Critique``. The ``verbalize`` graph runs
:class:`FactIdCritic` first and then the caller's critics; the narrative passes only when
every critic passes, and the feedback of those that fail is combined into the prompt
that asks for a refinement.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citeloop.text import normalize_text

if TYPE_CHECKING:
    from citeloop.knowledge.paths import RetrievalPath


def _is_id_char(char: str) -> bool:
    """Letters, digits, ``_``, ``-``, and combining marks (which belong to the
    character before them: ``f-1\u0301`` is not ``f-1``)."""
    return char.isalnum() or char in "_-" or unicodedata.category(char)[0] == "M"


def mentions_fact_id(text: str, fact_id: str) -> bool:
    """Whether ``text`` mentions ``fact_id`` verbatim, as a whole token.

    A mention is an occurrence whose neighbours on both sides are not identifier
    characters (letters, digits, ``_``, ``-``): ``fact-1`` is not mentioned by
    ``fact-10`` or ``prefact-1``, but is by ``[fact-1]`` or ``(fact-1).``. The id is
    matched as plain text, so ids with regex metacharacters (``f(1)+[x]``) work.
    Both sides are NFC-normalized first. Time is linear in ``len(text)`` for ids of
    bounded length (at worst ``len(text) * len(fact_id)``, on text that repeats the id's
    own prefix, which is why paths cap ids at ``MAX_FACT_ID_CHARS``).

    Example:
        >>> mentions_fact_id("see [fact-10]", "fact-1"), mentions_fact_id("fact-1.", "fact-1")
        (False, True)
    """
    return _mentions(normalize_text(text), normalize_text(fact_id))


def _mentions(text: str, fact_id: str) -> bool:
    if not fact_id:
        return False
    start = text.find(fact_id)
    while start != -1:
        end = start + len(fact_id)
        before_ok = start == 0 or not _is_id_char(text[start - 1])
        after_ok = end == len(text) or not _is_id_char(text[end])
        if before_ok and after_ok:
            return True
        start = text.find(fact_id, start + 1)
    return False


def missing_fact_ids(text: str, fact_ids: Iterable[str]) -> list[str]:
    """The ``fact_ids`` that ``text`` does not mention (see :func:`mentions_fact_id`),
    in their given order, each once."""
    normalized = normalize_text(text)
    return [
        fact_id
        for fact_id in dict.fromkeys(fact_ids)
        if not _mentions(normalized, normalize_text(fact_id))
    ]


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
        missing = missing_fact_ids(narrative, path.fact_ids)
        if not missing:
            return Critique(True)
        return Critique(
            False,
            f"Mention every fact id of the path verbatim; missing: {', '.join(missing)}.",
        )


def critic_name(critic: Critic) -> str:
    """The label of a critic's feedback: its ``name``, function name, or class name."""
    name = getattr(critic, "name", None) or getattr(critic, "__name__", None)
    return name if isinstance(name, str) else type(critic).__name__


def run_critics(critics: Sequence[Critic], narrative: str, path: RetrievalPath) -> tuple[bool, str]:
    """Run every critic; (all passed, the failing critics' feedback, one line each).

    Raises:
        TypeError: A critic returned something other than a :class:`Critique`.
    """
    lines = []
    for critic in critics:
        critique = critic(narrative, path)
        if not isinstance(critique, Critique):
            raise TypeError(
                f"critic {critic_name(critic)!r} returned {type(critique).__name__}; "
                "a critic must return citeloop.validation.Critique(passed, feedback)"
            )
        if not critique.passed:
            lines.append(f"- {critic_name(critic)}: {critique.feedback or 'failed'}")
    return not lines, "\n".join(lines)
