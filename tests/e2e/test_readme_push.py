"""The README's WebSocket consumer examples, run as written against a real server process: the
Python one as a program, the browser one in headless Chromium."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess
from tests.e2e.browser import chromium

pytestmark = pytest.mark.slow

PUSH = "### Push over WebSocket"


def example(language: str) -> str:
    text = (ROOT / "README.md").read_text()
    assert PUSH in text, f"the README has no section {PUSH!r}"
    section = re.split(r"\n###? ", text.split(PUSH, 1)[1], maxsplit=1)[0]
    (block,) = re.findall(rf"```{language}\n(.*?)```", section, re.S)
    return str(block)


def produce(server: ServerProcess, values: list[str]) -> None:
    r = httpx.post(
        server.url + "/v1/topics/jobs/records",
        json={"records": [{"value": v} for v in values]},
    )
    assert r.status_code == 200, r.text


def wait_for(
    check: Callable[[], bool],
    what: Callable[[], str] | str,
    timeout: float = 15,
    pause: Callable[[], None] = lambda: time.sleep(0.05),
) -> None:
    """Poll until ``check`` holds; ``pause`` between looks (a page's own wait lets the browser's
    events through)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, (
            f"{what if isinstance(what, str) else what()}: not within {timeout} s"
        )
        pause()


def member_count(server: ServerProcess) -> int:
    r = httpx.get(server.url + "/v1/share-groups/workers")
    return len(r.json()["members"]) if r.status_code == 200 else 0


def lag(server: ServerProcess) -> int:
    r = httpx.get(server.url + "/v1/share-groups/workers")
    return sum(p["lag"] + p["acquired"] for p in r.json()["partitions"])


def test_python_example_consumes_and_acknowledges(server: ServerProcess, tmp_path: Path) -> None:
    assert httpx.post(server.url + "/v1/topics", json={"name": "jobs"}).status_code == 201
    program = tmp_path / "consumer.py"
    program.write_text(example("python").replace("localhost:8080", f"127.0.0.1:{server.port}"))
    with subprocess.Popen(
        [sys.executable, str(program)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as proc:
        try:
            wait_for(lambda: member_count(server) == 1, "the example subscribed")
            produce(server, ["resize img-1", "resize img-2", "resize img-3"])
            assert proc.stdout is not None
            lines = [proc.stdout.readline().strip() for _ in range(3)]
            assert lines == ["0 resize img-1", "1 resize img-2", "2 resize img-3"]
            wait_for(lambda: lag(server) == 0, "all acknowledged")
        finally:
            proc.kill()
    wait_for(lambda: member_count(server) == 0, "the dropped socket's member left")


def test_browser_example_consumes_and_acknowledges(server: ServerProcess) -> None:
    assert httpx.post(server.url + "/v1/topics", json={"name": "jobs"}).status_code == 201
    script = example("js")  # run on a page of the server: location.host is the server
    with chromium() as browser:
        page = browser.new_page()
        logged: list[str] = []
        page.on("console", lambda m: logged.append(m.text) if m.type == "log" else None)
        page.goto(server.url + "/healthz")
        page.evaluate(f"() => {{ {script} }}")
        wait_for(lambda: member_count(server) == 1, "the example subscribed")
        produce(server, ["resize img-1", "resize img-2"])
        wait_for(
            lambda: len(logged) >= 2,
            lambda: f"two records logged (got {logged})",
            pause=lambda: page.wait_for_timeout(50),
        )
        assert logged == ["0 resize img-1", "1 resize img-2"]
        wait_for(lambda: lag(server) == 0, "all acknowledged")
        page.close()
    wait_for(lambda: member_count(server) == 0, "the closed page's member left")
