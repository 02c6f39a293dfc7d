"""The README's Python client examples, run as written against a real server process."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.slow


def python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Python client", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def run_block(server: ServerProcess, code: str) -> str:
    env = {**os.environ, "SLUICE_URL": server.url}
    env.pop("SLUICE_API_KEY", None)
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, cwd=ROOT
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_examples_are_short_and_run(server: ServerProcess) -> None:
    worker, producer = python_blocks()
    for code in (worker, producer):
        assert len(code.strip().splitlines()) <= 12  # ten lines of work, and the import
    url = server.url
    for name in ("images", "thumbnails"):
        httpx.post(f"{url}/v1/topics", json={"name": name}).raise_for_status()
    httpx.patch(f"{url}/v1/share-groups/resizers/config", json={"auto_offset_reset": "earliest"})
    httpx.post(
        f"{url}/v1/topics/images/records",
        json={"records": [{"value": f"img-{i}"} for i in range(3)]},
    ).raise_for_status()
    out = run_block(server, worker)
    assert out.splitlines() == [f"resizing img-{i}" for i in range(3)]
    group = httpx.get(f"{url}/v1/share-groups/resizers").json()
    assert group["partitions"][0]["start_offset"] == 3  # all three accepted
    run_block(server, producer)
    r = httpx.get(
        f"{url}/v1/topics/thumbnails/partitions/0/records",
        params={"offset": 0, "isolation_level": "read_committed"},
    )
    assert [x["value"] for x in r.json()["records"]] == ["resized img-1"]
