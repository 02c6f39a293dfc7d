"""Runs the README's ```console examples as written against a real server process.

Each ```console block of a section holds ``$ command`` lines, each followed by the output the
README shows. A command runs through a shell with the port swapped for the test server's; its
output must equal the README's as JSON, except record timestamps (the server's clock at the
time), which must be present and be integers on both sides.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

from tests.conftest import ROOT, ServerProcess


def console_steps(heading: str) -> list[tuple[str, str]]:
    """(command, expected output) of every console block in the README section ``heading``,
    up to the next heading of level 2 or 3 (a subsection has its own examples and server)."""
    text = (ROOT / "README.md").read_text()
    assert heading in text, f"the README has no section {heading!r}"
    section = re.split(r"\n###? ", text.split(heading, 1)[1], maxsplit=1)[0]
    steps = []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        lines = block.strip("\n").split("\n")
        i = 0
        while i < len(lines):
            assert lines[i].startswith("$ "), f"unexpected line in {heading}: {lines[i]!r}"
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


def run_as_written(server: ServerProcess, steps: list[tuple[str, str]]) -> None:
    assert shutil.which("curl"), "curl is missing: `make test` installs it (system-deps)"
    for command, expected in steps:
        cmd = command.replace("localhost:8080", f"127.0.0.1:{server.port}")
        done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert masked(json.loads(done.stdout)) == masked(json.loads(expected)), (
            f"\n$ {command}\nREADME shows: {expected}\nserver said:  {done.stdout}"
        )
