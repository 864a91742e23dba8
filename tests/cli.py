"""Running the ``citeloop`` command in-process, for the CLI tests."""

from __future__ import annotations

import json
from pathlib import Path

from citeloop.cli import EXIT_OK, main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of ``citeloop *argv`` (argparse's and citeloop's
    own ``SystemExit`` included)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def indexed_db(capsys, root: Path, tmp_path: Path) -> Path:
    """A knowledge graph of ``root`` built by ``citeloop index`` into ``tmp_path``."""
    path = tmp_path / "graph.db"
    assert run(capsys, "index", str(root), "--db", str(path), "--quiet")[0] == EXIT_OK
    return path


def replay_model(tmp_path: Path, *answers: str) -> str:
    """A ``replay:`` model spec whose turns are ``answers``, in order."""
    file = tmp_path / "turns.jsonl"
    file.write_text("".join(json.dumps({"content": a}) + "\n" for a in answers), "utf-8")
    return f"replay:{file}"
