"""The README's "Past one machine" section, run as written: its two commands (``make kafka``,
three brokers in a run directory of the test's own, then ``make serve-kafka`` on a free port),
then its requests against that gateway, each answering what the README shows."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess, free_port
from tests.e2e.readme import EXAMPLES, run_section, sections

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

HEADING = "## Past one machine"


def test_past_one_machine_runs_as_written(tmp_path: Path) -> None:
    commands, *requests = sections("README.md", lambda b: b.language in EXAMPLES)[HEADING]
    steps = [line.split("#", 1)[0].strip() for line in commands.code.splitlines() if line.strip()]
    assert steps == ["make kafka", "make serve-kafka"], commands.where()
    assert [b.language for b in requests] == ["console"]
    port = free_port()
    env = {**os.environ, "KAFKA_RUN_DIR": str(tmp_path / "kafka"), "PORT": str(port)}
    # a reader's shell, not a make that runs the suite: a make inside another prints the
    # directories it enters and leaves after the commands' own lines
    for name in ("SLUICE_API_KEY", "MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES"):
        env.pop(name, None)
    gateway: subprocess.Popen[bytes] | None = None
    log = tmp_path / "gateway.log"
    try:
        started = subprocess.run(
            ["bash", "-c", steps[0]],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert started.returncode == 0, started.stdout + started.stderr
        bootstrap = started.stdout.strip().splitlines()[-1]
        assert re.fullmatch(r"127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+){2}", bootstrap), bootstrap

        with open(log, "wb") as out:
            gateway = subprocess.Popen(
                ["bash", "-c", steps[1]],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # make and the server it starts, stopped together
            )
        deadline = time.monotonic() + 120
        while True:
            assert gateway.poll() is None, log.read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        # the gateway keeps no data directory: this one is never created
        server = ServerProcess(data_dir=tmp_path / "unused", port=port, env=env)
        run_section(server, tmp_path, requests)
        assert not (tmp_path / "unused").exists()
    finally:
        if gateway is not None and gateway.poll() is None:
            os.killpg(gateway.pid, signal.SIGTERM)
            gateway.wait(timeout=60)
        stopped = subprocess.run(
            ["make", "kafka-stop"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
