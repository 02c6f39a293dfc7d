"""The README's consumer-group examples, run as written on a real server (topic made first)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.slow

SECTION = "## Consumer groups"


def steps() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text()
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    out = []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        lines = block.strip("\n").split("\n")
        assert len(lines) % 2 == 0, "each command is followed by one line of output"
        for command, output in zip(lines[::2], lines[1::2], strict=True):
            assert command.startswith("$ "), command
            out.append((command[2:], output))
    return out


def test_examples_run_as_written(server: ServerProcess) -> None:
    assert shutil.which("curl"), "curl is missing: `make test` installs it (system-deps)"
    r = httpx.post(server.url + "/v1/topics", json={"name": "orders", "partitions": 3})
    assert r.status_code == 201, r.text
    found = steps()
    assert len(found) >= 7
    for command, expected in found:
        cmd = command.replace("localhost:8080", f"127.0.0.1:{server.port}")
        done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert json.loads(done.stdout) == json.loads(expected), (
            f"\n$ {command}\nREADME shows: {expected}\nserver said:  {done.stdout}")
