"""Context recall on SWE-QA: does the injected context hold the code a question is about?

Run: ``python benchmarks/bench_context.py [--repos pytest,xarray] [--show N]``. The first
run downloads four sdists and indexes them (minutes); later runs reuse the cache. Exits 1,
after printing everything, when a target is missed; 2 when the questions are missing, a
source cannot be fetched or the plain-word data no longer fits the graphs.

Questions: ``../shared/bench/swe-qa/<repo>.jsonl`` beside the repository root (env
``CITELOOP_SWEQA_DIR`` overrides), real repository questions with reference answers; see
its README. Sources: the sdist that README names for each repository, downloaded from
the package index as a file, never built (:mod:`_sdist`), into
``~/.cache/citeloop-bench/swe-qa`` (env ``CITELOOP_BENCH_CACHE``), unpacked once and
indexed whole into ``<cache>/<repo>.db`` (incremental on later runs).

Reference entities of a question, by the README's rule: the identifiers its reference
answer writes as code (inside backticks, string literals left out; or bare but
code-shaped: CamelCase with two capitals, snake_case, ``name()``), a dotted name taken by
its last part, that name a class, function or method of the graph; paths and names under
MIN_NAME characters are left out. Questions without reference entities do not count.

Recall of a question: the share of its reference names among the entity names of
``ContextInjector(store).inject(question)`` (read-only store), macro-averaged per
repository; its source recall (reported, not judged): the share of its reference names
whose lines an excerpt of the context shows. Baseline in the same run: BM25 (the bm25s
library, English stop words and stemming) over the graph's classes, functions and
methods (name, its words, docstring, parameter names), query = the question, top
BM25_TOP entities.

Plain words (``benchmarks/data/plain_words.json``): tasks with plain English words that
equal entity names of the graph but do not name code (click: "run a command"). None may
be core in the task's context. click is indexed from the installed package.

With ``--embeddings MODEL`` (env ``CITELOOP_BENCH_EMBEDDINGS``; a sentence-transformers
model folder, needs that package, nothing is downloaded), a further column measures
``ContextInjector(store, retriever=...)`` with a dense retriever over the graph's entity
documents (:mod:`_dense`); it is reported, not judged (the targets are the default's).

The ``+rewrite`` column (reported, not judged) measures ``ContextInjector(store,
retriever=QueryRewriteRetriever(...))``: a chat model names the code each question is
about, from the question and an outline of its lexical hits. The model's replies to the
exact prompts are recorded in ``data/rewrites.jsonl`` and replayed (:mod:`_rewrites`).

Targets per repository: recall >= RECALL_TARGET, >= MARGIN_TARGET points above BM25,
median context <= TOKENS_TARGET tokens (ceil(chars / 4)), no empty context; and no plain
word core.
"""

from __future__ import annotations

import argparse
import builtins
import json
import math
import os
import re
import statistics
import string
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
import click
import Stemmer
from _common import report_result
from _rewrites import Replay, recorded, rewrite_retriever
from _sdist import SdistError, download_sdist, unpack

from citeloop.knowledge import ContextInjector, EntityKind, SqliteGraphStore, index_tree

RECALL_TARGET = 0.75
MARGIN_TARGET = 15.0
"""Points (percent) of recall above the BM25 baseline."""
TOKENS_TARGET = 2_000
BM25_TOP = 40
MIN_NAME = 3
CODE_KINDS = frozenset({EntityKind.CLASS, EntityKind.FUNCTION, EntityKind.METHOD})
SEED_KINDS = CODE_KINDS | {EntityKind.TEST}
CLICK = "click"
"""Indexed from the installed package, for the plain-word tasks only."""

HERE = Path(__file__).resolve().parent
PLAIN_WORDS = HERE / "data" / "plain_words.json"
IDENT_START = frozenset(string.ascii_letters + "_")
IDENT_CHARS = IDENT_START | frozenset(string.digits)
PATH_SEPARATORS = frozenset("/\\")
FILE_SUFFIXES = frozenset(
    {"py", "pyi", "pyx", "rst", "md", "txt", "cfg", "toml", "ini", "json", "yaml", "yml"}
)
WORD = re.compile(r"[A-Za-z0-9_]+")
BUILTIN_NAMES = frozenset(dir(builtins))


class BenchSetupError(Exception):
    """The benchmark cannot run: data missing or a source not fetched (exit 2)."""


# -- questions, sources and graphs ---------------------------------------------------------


def sweqa_dir() -> Path:
    folder = Path(os.environ.get("CITELOOP_SWEQA_DIR") or HERE.parents[1] / "shared/bench/swe-qa")
    if not (folder / "README.md").is_file():
        raise BenchSetupError(
            f"SWE-QA questions not found: {folder} has no README.md; put the folder at "
            "../shared/bench/swe-qa beside the repository or set CITELOOP_SWEQA_DIR"
        )
    return folder


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "citeloop-bench" / "swe-qa"
    return Path(os.environ.get("CITELOOP_BENCH_CACHE") or default)


def sdists(readme: Path) -> dict[str, tuple[str, str]]:
    """``{repo: (project, version)}`` from the README's table rows
    ``| repo.jsonl | project version | ... |``."""
    found = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].endswith(".jsonl") and len(cells[1].split()) == 2:
            project, version = cells[1].split()
            found[cells[0].removesuffix(".jsonl")] = (project, version)
    if not found:
        raise BenchSetupError(f"{readme} names no sdist (rows '| repo.jsonl | project version |')")
    return found


def load_questions(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise BenchSetupError(f"{path} is missing")
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def source_tree(cache: Path, project: str, version: str) -> Path:
    """The unpacked sdist of ``project==version``: downloaded and unpacked on first use
    (:mod:`_sdist`)."""
    tree = cache / "src" / f"{project}-{version}"
    if tree.is_dir():
        return tree
    try:
        return unpack(download_sdist(project, version, cache / "sdist" / tree.name), tree)
    except SdistError as error:
        raise BenchSetupError(str(error)) from error


def build_graph(tree: Path, db: Path) -> str:
    """Index ``tree`` into ``db`` (incremental when it exists); a one-line summary."""
    started = time.perf_counter()
    with SqliteGraphStore(db) as store:
        report = index_tree(tree, store)
    return (
        f"{report.files_seen} files ({report.files_indexed} indexed, {len(report.skipped)} "
        f"skipped), {report.entities} entities, {time.perf_counter() - started:.1f} s"
    )


# -- reference entities ---------------------------------------------------------------------


def segments(text: str) -> Iterator[tuple[int, str]]:
    """``(backticks, piece)`` of Markdown text in order, 0 backticks for prose: a backtick
    run pairs with the next run of the same length, as CommonMark code spans (and fences)
    do; an unpaired run stays prose. Linear: each length's pointer only moves forward."""
    runs: list[tuple[int, int]] = []
    position = text.find("`")
    while position >= 0:
        end = position
        while end < len(text) and text[end] == "`":
            end += 1
        runs.append((position, end - position))
        position = text.find("`", end)
    by_length: dict[int, list[int]] = defaultdict(list)
    for index, (_, length) in enumerate(runs):
        by_length[length].append(index)
    pointer: Counter[int] = Counter()
    prose_start = index = 0
    while index < len(runs):
        start, length = runs[index]
        same = by_length[length]
        while pointer[length] < len(same) and same[pointer[length]] <= index:
            pointer[length] += 1
        if pointer[length] == len(same):
            index += 1
            continue
        close = same[pointer[length]]
        yield 0, text[prose_start:start]
        yield length, text[start + length : runs[close][0]]
        prose_start = runs[close][0] + length
        index = close + 1
    yield 0, text[prose_start:]


def without_strings(code: str) -> str:
    """``code`` with its quoted string literals blanked; an unclosed quote and what follows
    it are kept."""
    pieces, start, position = [], 0, 0
    while position < len(code):
        if code[position] in "'\"":
            end = code.find(code[position], position + 1)
            if end < 0:
                break
            pieces += [code[start:position], " "]
            start = position = end + 1
        else:
            position += 1
    pieces.append(code[start:])
    return "".join(pieces)


def chains(text: str) -> Iterator[tuple[list[str], int, int]]:
    """``(parts, start, end)`` of each dotted identifier chain (``a.b.c``) of ``text``;
    a number with the letters glued to it (``3rd``, ``1e5``) is skipped."""
    position = 0
    while position < len(text):
        if text[position] in IDENT_START:
            start, parts = position, []
            while True:
                end = position + 1
                while end < len(text) and text[end] in IDENT_CHARS:
                    end += 1
                parts.append(text[position:end])
                position = end
                if text[position : position + 1] == "." and text[position + 1 : position + 2] in (
                    IDENT_START
                ):
                    position += 1
                    continue
                break
            yield parts, start, position
        elif text[position] in IDENT_CHARS:
            while position < len(text) and text[position] in IDENT_CHARS:
                position += 1
        else:
            position += 1


def code_shaped(name: str) -> bool:
    """snake_case (an underscore), or CamelCase with at least two capitals."""
    capitals = sum(char.isupper() for char in name)
    return "_" in name or (capitals >= 2 and capitals < len(name) and name[0].isalpha())


def code_names(answer: str) -> list[str]:
    """The names ``answer`` writes as code (before the graph filter), in order, unique."""
    names = []
    for backticks, piece in segments(answer):
        is_code = backticks > 0
        if backticks >= 3 and "\n" in piece and piece.split("\n", 1)[0].strip().isalnum():
            piece = piece.split("\n", 1)[1]  # a fence's info string ("python")
        text = without_strings(piece) if is_code else piece
        for parts, start, end in chains(text):
            called = text.startswith("()", end)
            path = (
                text[start - 1 : start] in PATH_SEPARATORS
                or text[end : end + 1] in PATH_SEPARATORS
                or (len(parts) > 1 and parts[-1].lower() in FILE_SUFFIXES and not called)
            )
            if not path and (is_code or called or code_shaped(parts[-1])):
                names.append(parts[-1])
    return [name for name in dict.fromkeys(names) if len(name) >= MIN_NAME]


def reference_entities(answer: str, store: SqliteGraphStore) -> dict[str, int]:
    """``{name: classes, functions and methods so named}`` for the answer's code names
    that name at least one."""
    found = {}
    for name in code_names(answer):
        count = sum(e.resolved and e.kind in CODE_KINDS for e in store.entities_named(name))
        if count:
            found[name] = count
    return found


# -- the BM25 baseline ----------------------------------------------------------------------


def name_words(name: str) -> list[str]:
    """``name`` split on ``_`` and CamelCase boundaries (``HTTPServer_error`` -> HTTP,
    Server, error)."""
    words = []
    for piece in name.split("_"):
        start = 0
        for i in range(1, len(piece)):
            before, char, after = piece[i - 1], piece[i], piece[i + 1 : i + 2]
            if char.isupper() and (not before.isupper() or after.islower()):
                words.append(piece[start:i])
                start = i
        words.append(piece[start:])
    return [word for word in words if word]


def tokens(text: str) -> list[str]:
    """Each word of ``text`` lowercased, followed by its words when it splits."""
    out = []
    for word in WORD.findall(text):
        out.append(word.lower())
        parts = name_words(word)
        if len(parts) > 1:
            out += [part.lower() for part in parts]
    return out


def leading_identifier(text: str) -> str:
    end = 0
    while end < len(text) and text[end] in IDENT_CHARS:
        end += 1
    return text[:end]


def parameter_names(signature: str) -> list[str]:
    """Names of the top-level parameters of ``"(self, a: int = 1, *rest) -> T"``, without
    ``self``/``cls`` and the ``/``/``*`` markers."""
    start = signature.find("(")
    if start < 0:
        return []
    names: list[str] = []
    piece: list[str] = []
    depth, quote = 0, ""
    for char in signature[start:]:
        if quote or char in "'\"":  # a string default: skipped whole
            quote = "" if char == quote else quote or char
            continue
        if char in "([{":
            depth += 1
            if depth == 1:
                continue
        elif char in ")]}":
            depth -= 1
        if depth == 0 or (depth == 1 and char == ","):
            name = leading_identifier("".join(piece).strip().lstrip("*"))
            if name and name not in ("self", "cls"):
                names.append(name)
            piece = []
            if depth == 0:
                break
        else:
            piece.append(char)
    return names


class Bm25Baseline:
    """THE BASELINE, not citeloop: Okapi BM25 from the bm25s library (its defaults, English
    stop words, the Snowball English stemmer of PyStemmer) over every class, function and
    method of a graph. A document is the entity's name and its words, its docstring and
    its parameter names; the query is the question, its identifiers split the same way."""

    def __init__(self, store: SqliteGraphStore) -> None:
        entities = sorted(
            (e for e in store.all_entities() if e.resolved and e.kind in CODE_KINDS),
            key=lambda e: e.id,
        )
        self.names = [entity.name for entity in entities]
        documents = []
        for entity in entities:
            params = parameter_names(entity.signature) if entity.kind != EntityKind.CLASS else []
            words = tokens(entity.name) + tokens(entity.docstring) + tokens(" ".join(params))
            documents.append(" ".join(words))
        self.stemmer = Stemmer.Stemmer("english")
        self.retriever = bm25s.BM25()
        self.retriever.index(self._tokenize(documents), show_progress=False)

    def _tokenize(self, texts: list[str]) -> Any:
        return bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False)

    def top_names(self, query: str, size: int = BM25_TOP) -> set[str]:
        size = min(size, len(self.names))
        found, scores = self.retriever.retrieve(
            self._tokenize([" ".join(tokens(query))]), k=size, show_progress=False
        )
        return {self.names[i] for i, score in zip(found[0], scores[0], strict=True) if score > 0}


# -- measuring ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    question: str
    references: dict[str, int]
    missed: list[str]
    recall: float
    source_recall: float
    bm25_recall: float
    tokens: int
    empty: bool
    seconds: float
    core: list[str]
    dense_recall: float | None
    rewrite_recall: float | None


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def share(references: Collection[str], names: Collection[str | None]) -> float:
    """The share of ``references`` (not empty) among ``names``: a question's recall."""
    return sum(name in names for name in references) / len(references)


def measure(
    db: Path, questions: list[dict[str, str]], embeddings: str | None = None, repo: str = ""
) -> tuple[list[Outcome], int, Replay | None]:
    """The counted questions' outcomes, the graph's class/function/method count and the
    replayed rewrite model (``None`` when ``repo`` has no recorded rewrites)."""
    with SqliteGraphStore(db, read_only=True) as store:
        baseline = Bm25Baseline(store)
        injector = ContextInjector(store, reuse_contexts=0)  # each inject timed as built
        dense = None
        if embeddings:
            from _dense import dense_retriever

            dense = ContextInjector(store, retriever=dense_retriever(store, embeddings, db.parent))
        rewrite, replay = None, None
        if replies := recorded(repo):
            retriever, replay = rewrite_retriever(store, replies)
            rewrite = ContextInjector(store, retriever=retriever)
        counted = [
            (item["question"], refs)
            for item in questions
            if (refs := reference_entities(item["answer"], store))
        ]
        if counted:
            injector.inject(counted[0][0])  # warm-up: the name set and caches load once
        outcomes = []
        for question, refs in counted:
            started = time.perf_counter()
            context = injector.inject(question)
            seconds = time.perf_counter() - started
            names = {entity.name for entity in context.entities}
            by_id = {entity.id: entity.name for entity in context.entities}
            with_source = {by_id.get(entity_id) for entity_id, lines in context.excerpts if lines}
            bm25 = baseline.top_names(question)
            dense_names = {e.name for e in dense.inject(question).entities} if dense else None
            rewritten = {e.name for e in rewrite.inject(question).entities} if rewrite else None
            outcomes.append(
                Outcome(
                    question=question,
                    references=refs,
                    missed=[name for name in refs if name not in names],
                    recall=share(refs, names),
                    source_recall=share(refs, with_source),
                    bm25_recall=share(refs, bm25),
                    tokens=math.ceil(len(context.text) / 4),
                    empty=not context.entities,
                    seconds=seconds,
                    core=[entity.name for entity in context.core],
                    dense_recall=None if dense_names is None else share(refs, dense_names),
                    rewrite_recall=None if rewritten is None else share(refs, rewritten),
                )
            )
    return outcomes, len(baseline.names), replay


def describe(repo: str, outcomes: list[Outcome], total: int, entities: int) -> None:
    refs = [len(o.references) for o in outcomes]
    names = Counter(name for o in outcomes for name in o.references)
    ambiguous = {name for o in outcomes for name, count in o.references.items() if count > 1}
    sizes = [o.tokens for o in outcomes]
    millis = [o.seconds * 1000 for o in outcomes]
    print(f"{repo}: {entities} classes/functions/methods; {len(outcomes)}/{total} questions count")
    if not outcomes:
        return
    builtin = sorted(name for name in names if name in BUILTIN_NAMES)
    dunders = [name for name in names if name.startswith("__") and name.endswith("__")]
    print(
        f"  reference entities a question: mean {statistics.mean(refs):.1f}, median "
        f"{statistics.median(refs):g}, max {max(refs)}; {len(names)} distinct names, "
        f"{len(ambiguous)} ambiguous (more than one class/function/method so named), "
        f"{len(dunders)} dunders, {len(builtin)} Python builtins ({', '.join(builtin[:8])})"
    )
    source = statistics.mean(o.source_recall for o in outcomes)
    print(
        f"  source shown (reported, not judged): {source:.1%} of the reference entities "
        "have their lines in an excerpt of the context (macro over questions)"
    )
    print(
        f"  context tokens min/median/max {min(sizes)}/{statistics.median(sizes):g}/"
        f"{max(sizes)}; inject median {statistics.median(millis):.1f} ms, "
        f"p95 {percentile(millis, 0.95):.1f} ms"
    )


def show_worst(repo: str, outcomes: list[Outcome], count: int) -> None:
    print(f"\n{repo}: the {count} worst questions")
    for o in sorted(outcomes, key=lambda o: (o.recall, -len(o.references)))[:count]:
        print(f"- recall {o.recall:.0%} (BM25 {o.bm25_recall:.0%}), {o.tokens} tokens")
        print(f"  Q: {o.question}")
        print(f"  reference: {', '.join(o.references)}")
        print(f"  missed:    {', '.join(o.missed) or '-'}")
        core = list(dict.fromkeys(o.core))
        print(f"  core:      {', '.join(core[:15]) or '-'}{' ...' if len(core) > 15 else ''}")


def check_plain_words(tasks: list[dict], dbs: dict[str, Path]) -> tuple[int, list[str], list[str]]:
    """``(words checked, offenders, data errors)`` over the tasks whose graph was built.

    A word is checked only when it is a word of the task and the name of a class,
    function, method or test of the graph (what may become core); else it is a data error.
    """
    checked, offenders, errors = 0, [], []
    for task in tasks:
        repo, text = task["repo"], task["task"]
        if repo not in dbs:
            continue
        with SqliteGraphStore(dbs[repo], read_only=True) as store:
            core = {entity.name for entity in ContextInjector(store).inject(text).core}
            for word in task["not_core"]:
                kinds = {e.kind for e in store.entities_named(word) if e.resolved}
                if word not in WORD.findall(text) or not kinds & SEED_KINDS:
                    errors.append(
                        f"{repo}: {word!r} is not both a word of the task and a "
                        f"class/function/method/test name: {text!r}"
                    )
                    continue
                checked += 1
                if word in core:
                    offenders.append(f"{repo}: {word!r} is core for {text!r}")
    return checked, offenders, errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", help="comma-separated subset (SWE-QA repositories, click)")
    parser.add_argument(
        "--show",
        type=int,
        default=0,
        metavar="N",
        help="print the N worst questions of each repository",
    )
    parser.add_argument(
        "--embeddings",
        default=os.environ.get("CITELOOP_BENCH_EMBEDDINGS"),
        metavar="MODEL",
        help="also measure a dense retriever: a sentence-transformers model folder",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    try:
        folder = sweqa_dir()
        projects = sdists(folder / "README.md")
        known = [*projects, CLICK]
        chosen = args.repos.split(",") if args.repos else known
        unknown = sorted(set(chosen) - set(known))
        if unknown:
            parser.error(f"unknown repos {unknown}; choose from {', '.join(known)}")
        questions = {r: load_questions(folder / f"{r}.jsonl") for r in projects if r in chosen}
        cache = cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        trees = {}
        for repo in questions:
            fetching = time.perf_counter()
            trees[repo] = source_tree(cache, *projects[repo])
            print(f"{repo}: source {trees[repo]} ({time.perf_counter() - fetching:.1f} s)")
    except BenchSetupError as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 2
    if CLICK in chosen:
        trees[CLICK] = Path(click.__file__).parent
    dbs = {}
    for repo, tree in trees.items():
        dbs[repo] = cache / f"{repo}.db"
        print(f"{repo}: index_tree {build_graph(tree, dbs[repo])}")

    results = {}
    for repo, items in questions.items():
        outcomes, entities, replay = measure(dbs[repo], items, args.embeddings, repo)
        results[repo] = outcomes, entities
        describe(repo, outcomes, len(items), entities)
        if replay is not None and (replay.stale or replay.missing):
            print(
                f"  +rewrite: {len(replay.stale)} stale recordings (the prompt changed), "
                f"{len(replay.missing)} questions not recorded: record them again"
            )

    ok = True
    rows: list[tuple[str, bool, float, float, int, float]] = []
    width = max([10, *map(len, results)])
    print(
        f"\n{'repo':{width}} {'counted':>7} {'citeloop':>9} {f'BM25@{BM25_TOP}':>9} "
        f"{'diff pts':>8} {'empty':>5} {'median tokens':>13}"
        + (f" {'+retriever':>10}" if args.embeddings else "")
        + f" {'+rewrite':>8}"
    )
    for repo, (outcomes, _) in results.items():
        recall = statistics.mean(o.recall for o in outcomes) if outcomes else 0.0
        bm25 = statistics.mean(o.bm25_recall for o in outcomes) if outcomes else 0.0
        empty = sum(o.empty for o in outcomes)
        median = statistics.median(o.tokens for o in outcomes) if outcomes else 0
        diff = (recall - bm25) * 100
        dense = [o.dense_recall for o in outcomes if o.dense_recall is not None]
        rewrite = [o.rewrite_recall for o in outcomes if o.rewrite_recall is not None]
        print(
            f"{repo:{width}} {len(outcomes):7d} {recall:9.1%} {bm25:9.1%} {diff:+8.1f} "
            f"{empty:5d} {median:13g}"
            + (f" {statistics.mean(dense):10.1%}" if dense else "")
            + (f" {statistics.mean(rewrite):8.1%}" if rewrite else f" {'-':>8}")
        )
        rows.append((repo, bool(outcomes), recall, diff, empty, median))
    for repo, counted, recall, diff, empty, median in rows:  # summary rows of `make bench`
        ok &= counted
        ok &= report_result(f"{repo} recall", recall * 100, RECALL_TARGET * 100, unit="%",
                            better="higher")  # fmt: skip
        ok &= report_result(f"{repo} points above BM25@{BM25_TOP}", diff, MARGIN_TARGET,
                            unit=" pts", better="higher")  # fmt: skip
        ok &= report_result(f"{repo} median context tokens", median, TOKENS_TARGET, unit="")
        ok &= report_result(f"{repo} empty contexts", empty, 0, unit="")
    print(
        f"targets: recall >= {RECALL_TARGET:.0%} and >= {MARGIN_TARGET:g} points above "
        f"BM25, median context <= {TOKENS_TARGET} tokens, 0 empty contexts, on each repo"
    )
    if results:
        largest = max(results, key=lambda repo: results[repo][1])
        millis = [o.seconds * 1000 for o in results[largest][0]]
        if millis:
            print(
                f"largest graph: {largest} ({results[largest][1]} classes/functions/methods), "
                f"inject median {statistics.median(millis):.1f} ms, "
                f"p95 {percentile(millis, 0.95):.1f} ms"
            )
    for repo, (outcomes, _) in results.items():
        if args.show:
            show_worst(repo, outcomes, args.show)

    tasks = json.loads(PLAIN_WORDS.read_text(encoding="utf-8"))
    checked, offenders, errors = check_plain_words(tasks, dbs)
    print(f"\nplain words: {len(offenders)} of {checked} core (target 0)")
    for line in offenders:
        print(f"  CORE {line}")
    for line in errors:
        print(f"  DATA {line}")
    ok &= report_result("plain words made core", len(offenders), 0, unit="")
    print(f"total run time: {time.perf_counter() - started:.1f} s")
    if errors:
        print(f"ERROR: {PLAIN_WORDS} does not fit the graphs", file=sys.stderr)
        return 2
    if not ok:
        print("FAIL: a context target is missed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
