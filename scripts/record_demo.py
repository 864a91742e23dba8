"""Re-record the demo's replay answers without a provider key: a person (or a model
you run by hand) plays the chat model for the exact prompts the graph produces.

    python scripts/record_demo.py             run the demo task; answer the prompts the
                                              replay file knows; at the first unknown
                                              prompt, write it to .citeloop/pending_prompt.txt
                                              and exit 3
    python scripts/record_demo.py --answer F  append F's text, verbatim, as the answer to
                                              the pending prompt (and save the prompt beside
                                              the replay file), then run again

Start from an empty replay: move examples/langgraph_demo.jsonl and its prompt files aside.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import langgraph.graph
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from citeloop import (
    GroundedAnswerContext,
    SqliteGraphStore,
    build_grounded_answer_graph,
    index_tree,
)
from citeloop.models import load_replay_turns, prompt_digest

REPO = Path(__file__).resolve().parent.parent
REPLAY = REPO / "examples" / "langgraph_demo.jsonl"
WORK = REPO / ".citeloop"
PENDING = WORK / "pending_prompt.txt"
PENDING_META = WORK / "pending.json"
TASK = next(
    line.split("?=", 1)[1].strip()
    for line in (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
    if line.startswith("DEMO_TASK")
)


def rendered(messages) -> str:
    return "\n\n=====\n\n".join(f"[{message.type}]\n{message.text}" for message in messages)


class PlayedModel(BaseChatModel):
    """Answers from the replay file, or stops at the first prompt it has no answer for."""

    @property
    def _llm_type(self) -> str:
        return "played-by-hand"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        digest = prompt_digest(messages)
        known = load_replay_turns(REPLAY) if REPLAY.exists() else []
        answers = {turn.get("prompt_sha256"): turn["content"] for turn in known}
        if digest in answers:
            message = AIMessage(content=answers[digest])
            return ChatResult(generations=[ChatGeneration(message=message)])
        PENDING.write_text(rendered(messages) + "\n", encoding="utf-8")
        PENDING_META.write_text(json.dumps({"digest": digest, "n": len(known) + 1}))
        print(f"unknown prompt written to {PENDING}; answer it with --answer FILE", file=sys.stderr)
        sys.exit(3)


def record(answer: Path) -> None:
    meta = json.loads(PENDING_META.read_text(encoding="utf-8"))
    turn = {"prompt_sha256": meta["digest"], "content": answer.read_text(encoding="utf-8")}
    with REPLAY.open("a", encoding="utf-8") as out:
        out.write(json.dumps(turn, ensure_ascii=False) + "\n")
    prompt = REPLAY.with_name(f"{REPLAY.stem}.prompt_{meta['n']}.txt")
    prompt.write_text(PENDING.read_text(encoding="utf-8"), encoding="utf-8")
    PENDING.unlink()
    PENDING_META.unlink()
    print(f"recorded answer {meta['n']}")


def main() -> None:
    WORK.mkdir(exist_ok=True)
    if "--answer" in sys.argv:
        record(Path(sys.argv[sys.argv.index("--answer") + 1]))
    db = WORK / "langgraph.db"
    with SqliteGraphStore(db) as store:
        index_tree(Path(langgraph.graph.__file__).parents[1], store)
    graph = build_grounded_answer_graph(PlayedModel())
    out = graph.invoke({"task": TASK}, context=GroundedAnswerContext(db_path=str(db)))
    print(json.dumps({key: out[key] for key in ("outcome", "attempts", "expanded")}))
    print(json.dumps(out["report"], indent=1)[:3000])


if __name__ == "__main__":
    main()
