"""A run without the shared cases folder stops before collecting, with the fix."""

from __future__ import annotations

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
    assert "shared cases folder not found" in output and "CITELOOP_CASES_DIR" in output
    # Nothing was collected, so no snapshot is called unused (the advice to update
    # them would delete every one).
    assert "snapshot" not in output


def test_a_run_of_other_tests_does_not_need_the_cases() -> None:
    done = run_pytest("tests/unit/test_context_settings.py")
    assert done.returncode == 0, done.stdout + done.stderr
