"""The test harness itself: a failing test that leaks SQLite connections must not hang pytest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

LEAKY = """
import os
import tempfile

from app.metadata.connection import Connection


async def test_fails_with_an_open_connection() -> None:
    conn = await Connection.open(os.path.join(tempfile.mkdtemp(), "x.db"))
    globals()["kept"] = conn  # never closed, as an app a failing test did not close
    raise AssertionError("expected failure")
"""


def test_a_failing_test_with_open_sqlite_connections_still_lets_pytest_exit(tmp_path: Path) -> None:
    # inside the tests package, so that its conftest (and the guard) applies
    leaky = ROOT / "tests" / f"test_leaky_{tmp_path.name}.py"
    leaky.write_text(LEAKY)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(leaky)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        leaky.unlink()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout
