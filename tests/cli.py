"""Running the ``citeloop`` command in-process, for the CLI tests."""

from __future__ import annotations

from citeloop.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of ``citeloop *argv`` (argparse's and citeloop's
    own ``SystemExit`` included)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err
