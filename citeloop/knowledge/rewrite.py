"""Query rewriting into code names: what a chat model is shown, and what its reply means.

A task that paraphrases code ("the method that merges configuration values in the
spacing configuration dataclass") may share no word with the names it is about
(``BlockConfig.incorporate``). Query rewriting (Ma et al., "Query Rewriting for
Retrieval-Augmented Large Language Models", EMNLP 2023) lets a model turn the task into
what the retriever matches best; here, into the names of the code.
:class:`citeloop.retrievers.QueryRewriteRetriever` asks a chat model with
:func:`rewrite_prompt` and seeds a context with the entities :func:`named_entities`
finds for its reply. This module reads the graph only (no LangChain).

The prompt grounds the model's guess in the graph: an **outline** of the files that
hold the task's best lexical hits, each with its hits (:func:`outline`), so the model
picks real names and may add names it knows the code base has.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from citeloop.errors import ConfigurationError
from citeloop.grounding.mentions import first_name, query_words
from citeloop.knowledge.finding import about_tests
from citeloop.knowledge.model import Entity, EntityKind, is_test_path
from citeloop.knowledge.seeds import MAX_PER_NAME, RANK, entities_by_name, named_groups, owner_id
from citeloop.knowledge.store import GraphStore, SearchableGraphStore, batched
from citeloop.prompts import REWRITE_NO_OUTLINE, REWRITE_PROMPT, REWRITE_SYSTEM_PROMPT
from citeloop.text import data_line, in_data_block, normalize_text, without_invisible

OUTLINE_HITS = 250
"""Lexical hits whose files the outline may show, best first."""

NAMES_PER_FILE = 8
"""Names one outline line shows at most: the file's best hits."""

MAX_NAME_CHARS = 200
"""Characters of a reply line read for its names."""

MAX_QUESTION_CHARS = 2_000
"""Characters of the task (and a payload that comes with it) the prompt shows."""


def outline(
    store: GraphStore, text: str, max_tokens: int, count_tokens: Callable[[str], int]
) -> tuple[str, frozenset[str]]:
    """The outline of ``text``'s best lexical hits, and the files it shows.

    One line per file, in the order of the file's best hit:
    ``path: Name, Class.method, ...`` (the file's hits, best first, at most
    :data:`NAMES_PER_FILE`), each made one line of data (:func:`~citeloop.text.data_line`:
    a file name is indexed text), while the lines fit ``max_tokens`` as ``count_tokens``
    counts them. Test files are left out unless the text speaks of
    tests. Empty when the store has no full-text search or the text no search word.

    Args:
        store: The graph.
        text: The task.
        max_tokens: Tokens the outline may take, >= 0.
        count_tokens: Counts the tokens of a line.

    Raises:
        ConfigurationError: If ``count_tokens`` returns anything but an int >= 0.
    """
    words = query_words(text)
    if max_tokens <= 0 or not words or not isinstance(store, SearchableGraphStore):
        return "", frozenset()
    reads = batched(store)
    ids = [entity_id for entity_id, _ in store.search(words, OUTLINE_HITS)]
    hits = reads.get_entities(ids)
    tests = about_tests(text)
    files: dict[str, list[Entity]] = {}
    for entity in (hits[entity_id] for entity_id in ids if entity_id in hits):
        if entity.path and entity.kind in RANK and (tests or not is_test_path(entity.path)):
            files.setdefault(entity.path, []).append(entity)
    lines: list[str] = []
    used = 0
    for path, found in files.items():
        names = list(dict.fromkeys(_qualified(entity) for entity in found))
        line = data_line(f"{path}: {', '.join(names[:NAMES_PER_FILE])}")  # indexed text
        cost = count_tokens(line + "\n")
        if not isinstance(cost, int) or cost < 0:
            raise ConfigurationError(
                f"count_tokens must return a token count >= 0, got {cost!r} "
                f"({type(cost).__name__}) for an outline line"
            )
        if used + cost > max_tokens:
            break
        lines.append(line)
        used += cost
    return "\n".join(lines), frozenset(list(files)[: len(lines)])


def _qualified(entity: Entity) -> str:
    """An entity as the outline names it: ``Class.method`` for a method, its class for
    an attribute of one, else its name."""
    owner = owner_id(entity.id).rpartition(".")[2]
    if entity.kind is EntityKind.METHOD and owner:
        return f"{owner}.{entity.name}"
    if entity.kind is EntityKind.ATTRIBUTE and owner[:1].isupper():
        return owner
    return entity.name


def rewrite_prompt(text: str, outline_text: str, max_names: int) -> tuple[str, str]:
    """The ``(system, human)`` messages that ask for ``text``'s code names: the outline,
    then the question (its first :data:`MAX_QUESTION_CHARS` characters) in a
    ``<question>`` data block, since a payload the task refers to comes with it."""
    question = in_data_block(text.strip()[:MAX_QUESTION_CHARS], "question")
    human = REWRITE_PROMPT.format(outline=outline_text or REWRITE_NO_OUTLINE, question=question)
    return REWRITE_SYSTEM_PROMPT.format(max_names=max_names), human


def reply_names(reply: str, max_names: int) -> list[str]:
    """The names of a reply, in order, each once, at most ``max_names``: of each line
    (after a list marker: ``-``, ``*``, ``1.``), the names it lists (``A, B``; after a
    label, ``Names: A, B`` or ``path.py: A``), else its first name, as
    :func:`~citeloop.grounding.mentions.first_name` reads it (``- `Foo.bar()` does X``
    -> ``Foo.bar``; an id such as ``REQ-1`` whole). Framing is skipped: a code fence's line,
    and a line ending in ``:`` (``Here are the names:``). Reads each line's first
    :data:`MAX_NAME_CHARS` characters, up to its last comma when it is longer (a linear
    scan)."""
    names: dict[str, None] = {}
    for line in without_invisible(normalize_text(reply)).splitlines():
        line = _LIST_MARKER.sub("", line.strip(), count=1)
        if len(line) > MAX_NAME_CHARS:
            head = line[:MAX_NAME_CHARS]
            line = head[: head.rfind(",")] if "," in head else head
        if line.startswith(("```", "~~~")) or line.endswith(":"):
            continue
        for name in _line_names(line):
            names.setdefault(name, None)
            if len(names) >= max_names:
                return list(names)
    return list(names)


_LIST_MARKER = re.compile(r"^(?:[-*+>\u2022]|\d{1,3}[.)])\s+")
"""A list marker at the start of a reply line (no nested repetition: linear)."""


def _line_names(line: str) -> list[str]:
    """The names of one reply line: those it lists after a label, or the two or more it
    lists, else its first name."""
    _, colon, rest = line.partition(":")
    if colon and (listed := _bare_names(_LIST_MARKER.sub("", rest.strip(), count=1))):
        return listed
    listed = _bare_names(line)
    if len(listed) > 1:
        return listed
    first = first_name(line)
    return [first] if first else []


def _bare_names(text: str) -> list[str]:
    """The comma-separated names ``text`` is made of (each a name as
    :func:`~citeloop.grounding.mentions.first_name` reads it, in
    backticks or bold, ``()`` allowed), or ``[]`` when it holds anything else."""
    items = [item.strip(" `*").removesuffix("()") for item in text.split(",")]
    if all(item and first_name(item) == item for item in items):
        return items
    return []


def named_entities(store: GraphStore, names: Sequence[str], shown: frozenset[str]) -> list[Entity]:
    """The entities ``names`` stand for, in the names' order, each once.

    A name is looked up as a task's mention is
    (:func:`~citeloop.knowledge.seeds.named_groups`: ``Class.method`` names the method
    and its class). A name that stands for more than
    :data:`~citeloop.knowledge.seeds.MAX_PER_NAME` entities
    counts only in the files the outline showed (``shown``), and not at all when there
    are still too many. Only entities a context may hold count (resolved, of a ranked
    kind).
    """
    named = entities_by_name(batched(store), names)
    chosen: dict[str, Entity] = {}
    for name in names:
        for group in named_groups(name, named):
            if len(group) > MAX_PER_NAME:
                group = [entity for entity in group if entity.path in shown]
            if len(group) <= MAX_PER_NAME:
                for entity in sorted(group, key=lambda entity: entity.id):
                    chosen.setdefault(entity.id, entity)
    return list(chosen.values())
