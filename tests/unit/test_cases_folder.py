"""Where the cases are read from; a run whose named cases folder is missing stops
before collecting, with the fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_pytest(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CITELOOP_CASES_DIR": str(ROOT / "no-such-cases-folder")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_run_that_collects_the_cases_stops_with_the_fix_and_no_snapshot_advice() -> None:
    done = run_pytest("tests/cases")
    assert done.returncode == 4, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert "cases folder not found" in output and "no-such-cases-folder" in output
    # The variable was set: the fix is its value, not to set it.
    assert "which CITELOOP_CASES_DIR names" in output and "or unset it" in output
    # Nothing was collected, so no snapshot is called unused (the advice to update
    # them would delete every one).
    assert "snapshot" not in output


def test_a_run_of_other_tests_does_not_need_the_cases() -> None:
    done = run_pytest("tests/unit/test_context_settings.py")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_shared_cases_are_read_when_beside_the_repository_else_the_copy(tmp_path) -> None:
    from tests.cases.conftest import COPIED_CASES_DIR, chosen_cases_dir

    shared, copied = tmp_path / "shared" / "cases", tmp_path / "copy"
    assert chosen_cases_dir(None, shared, copied) == copied  # a clone alone
    shared.mkdir(parents=True)
    assert chosen_cases_dir(None, shared, copied) == shared
    assert chosen_cases_dir(str(tmp_path / "mine"), shared, copied) == tmp_path / "mine"
    # The copy holds every case file the case tests load, as JSON.
    for name in ("citations.json", "graph_context.json", "json_extraction.json", "sections.json"):
        assert json.loads((COPIED_CASES_DIR / name).read_text(encoding="utf-8"))
