"""Recorded query rewrites for ``bench_context``: a chat model's replies to the exact
prompts :class:`citeloop.retrievers.QueryRewriteRetriever` builds for the SWE-QA
questions, replayed so the ``+rewrite`` column needs no model and no network.

``data/rewrites.jsonl`` holds one row per question: ``repo``, ``question_sha256`` (of the
question as the prompt shows it), ``prompt_sha256`` (the human message the reply answered) and
``reply`` (verbatim). A question whose prompt no longer matches its recording (the
outline changed since) is answered with no names and counted as stale: record again.

Recording (a model, or a person playing one, answers each prompt seeing only it)::

    python benchmarks/_rewrites.py prompts DIR   # DIR/<repo>_NN.txt: system, then user
    python benchmarks/_rewrites.py record DIR    # DIR/<repo>_NN.reply.txt -> the data
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableLambda

from citeloop.knowledge import SqliteGraphStore
from citeloop.retrievers import QueryRewriteRetriever

REWRITES = Path(__file__).resolve().parent / "data" / "rewrites.jsonl"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def recorded(repo: str) -> dict[str, tuple[str, str]]:
    """``{question digest: (prompt digest, reply)}`` of ``repo`` (empty without data)."""
    if not REWRITES.is_file():
        return {}
    rows = [json.loads(line) for line in REWRITES.read_text(encoding="utf-8").splitlines()]
    return {
        row["question_sha256"]: (row["prompt_sha256"], row["reply"])
        for row in rows
        if row["repo"] == repo
    }


def question_of(human: str) -> str:
    """The question of a rewrite prompt's human message: its ``<question>`` block."""
    return human.rpartition("<question>\n")[2].rpartition("\n</question>")[0]


class Replay:
    """A replayed rewrite model: the recorded reply to a question whose prompt matches."""

    def __init__(self, replies: dict[str, tuple[str, str]]) -> None:
        self.replies = replies
        self.stale: list[str] = []
        self.missing: list[str] = []

    def __call__(self, messages: list[BaseMessage]) -> AIMessage:
        human = str(messages[1].content)
        question = question_of(human)
        prompt, reply = self.replies.get(digest(question), ("", ""))
        if not prompt:
            self.missing.append(question)
        elif prompt != digest(human):
            self.stale.append(question)
            reply = ""
        return AIMessage(reply)


def rewrite_retriever(
    store: SqliteGraphStore, replies: dict[str, tuple[str, str]]
) -> tuple[QueryRewriteRetriever, Replay]:
    """The retriever a user would build, with the recorded ``replies`` (:func:`recorded`)
    as its model."""
    replay = Replay(replies)
    return QueryRewriteRetriever(model=RunnableLambda(replay), store=store), replay


def _questions() -> list[tuple[str, int, dict[str, str], Path]]:
    """``(repo, index, question, graph file)`` of every counted SWE-QA question."""
    import bench_context as bench

    folder, cache = bench.sweqa_dir(), bench.cache_dir()
    found = []
    for repo in bench.sdists(folder / "README.md"):
        db = cache / f"{repo}.db"
        if not db.is_file():
            raise bench.BenchSetupError(f"{db} is missing: run benchmarks/bench_context.py first")
        with SqliteGraphStore(db, read_only=True) as store:
            for index, item in enumerate(bench.load_questions(folder / f"{repo}.jsonl")):
                if bench.reference_entities(item["answer"], store):
                    found.append((repo, index, item, db))
    return found


def _prompts(store: SqliteGraphStore, question: str) -> tuple[str, str]:
    retriever, _ = rewrite_retriever(store, {})
    messages, _ = retriever.prompt(question)  # the exact messages the model is sent
    return str(messages[0].content), str(messages[1].content)


def main() -> int:
    parser = argparse.ArgumentParser(description="record the +rewrite replies")
    parser.add_argument("step", choices=["prompts", "record"])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args()
    import bench_context as bench

    try:
        questions = _questions()
    except bench.BenchSetupError as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 2
    args.folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for repo, index, item, db in questions:
        stem = args.folder / f"{repo}_{index:02d}"
        with SqliteGraphStore(db, read_only=True) as store:
            system, human = _prompts(store, item["question"])
        if args.step == "prompts":
            stem.with_suffix(".txt").write_text(f"SYSTEM:\n{system}\n\nUSER:\n{human}\n")
            continue
        reply = stem.with_suffix(".reply.txt")
        if not reply.is_file():
            raise SystemExit(f"{reply} is missing: answer {stem.with_suffix('.txt')} first")
        rows.append(
            {
                "repo": repo,
                "question_sha256": digest(question_of(human)),
                "prompt_sha256": digest(human),
                "reply": reply.read_text(encoding="utf-8"),
            }
        )
    if args.step == "record":
        lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        REWRITES.write_text(lines, encoding="utf-8")
        print(f"{len(rows)} replies recorded in {REWRITES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
