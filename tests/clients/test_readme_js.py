"""The README's JavaScript client examples, run as written (in Node, with the package
installed as `sluice-client`) against a real server process."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.slow


def js_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## JavaScript client", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```js\n(.*?)```", section, re.S)


def run_block(server: ServerProcess, project: Path, code: str) -> str:
    script = project / "example.mjs"
    script.write_text(code)
    env = {**os.environ, "SLUICE_URL": server.url}
    env.pop("SLUICE_API_KEY", None)
    node = shutil.which("node")
    assert node is not None, "node is not installed: `make system-deps` installs it"
    r = subprocess.run([node, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_examples_are_short_and_run(server: ServerProcess, tmp_path: Path) -> None:
    worker, producer = js_blocks()
    for code in (worker, producer):
        assert len(code.strip().splitlines()) <= 12  # ten lines of work, and the import
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "sluice-client").symlink_to(ROOT / "clients" / "js")
    url = server.url
    for name in ("images", "thumbnails"):
        httpx.post(f"{url}/v1/topics", json={"name": name}).raise_for_status()
    httpx.patch(f"{url}/v1/share-groups/resizers/config", json={"auto_offset_reset": "earliest"})
    httpx.post(
        f"{url}/v1/topics/images/records",
        json={"records": [{"value": f"img-{i}"} for i in range(5)]},
    ).raise_for_status()
    out = run_block(server, tmp_path, worker)
    assert out.splitlines() == [f"resizing img-{i}" for i in range(3)]
    group = httpx.get(f"{url}/v1/share-groups/resizers").json()
    (p,) = group["partitions"]
    assert (p["start_offset"], p["acquired"]) == (2, 0)  # img-0, img-1 accepted; the rest back
    run_block(server, tmp_path, producer)
    r = httpx.get(
        f"{url}/v1/topics/thumbnails/partitions/0/records",
        params={"offset": 0, "isolation_level": "read_committed"},
    )
    assert [x["value"] for x in r.json()["records"]] == ["resized img-1"]
