"""The README's curl tour, run as written against a real server process.

Every ```console block of the tour section holds ``$ command`` lines each followed by the output
the README shows. The command runs through a shell with the port swapped for the test server's;
its output must equal the README's as JSON, except record timestamps (the server's clock at
the time), which must be present and be integers on both sides.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.slow


def tour_steps() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## A five-minute tour", 1)[1].split("\n## ", 1)[0]
    steps = []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        lines = block.strip("\n").split("\n")
        i = 0
        while i < len(lines):
            assert lines[i].startswith("$ "), f"unexpected line in the tour: {lines[i]!r}"
            command = lines[i][2:]
            output = []
            i += 1
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            steps.append((command, "\n".join(output)))
    return steps


def masked(value: Any) -> Any:
    """The JSON with every record ``timestamp`` replaced by a marker, checked to be an int."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "timestamp" and isinstance(v, int) and v > 0:
                out[k] = "<timestamp>"
            else:
                out[k] = masked(v)
        return out
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


def test_tour_has_steps() -> None:
    commands = [c for c, _ in tour_steps()]
    assert len(commands) >= 8
    assert any("/v1/topics " in c or c.endswith("/v1/topics") or "-d '{\"name\"" in c
               for c in commands)


def test_readme_tour_runs_as_written(server: ServerProcess, tmp_path: Path) -> None:
    assert shutil.which("curl"), "curl is missing: `make test` installs it (system-deps)"
    for command, expected in tour_steps():
        cmd = command.replace("localhost:8080", f"127.0.0.1:{server.port}")
        done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert masked(json.loads(done.stdout)) == masked(json.loads(expected)), (
            f"\n$ {command}\nREADME shows: {expected}\nserver said:  {done.stdout}")
