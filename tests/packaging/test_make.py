"""``make serve`` installs the server alone and ``make test`` everything the tests need, each
behind its own stamp, so that either one after the other installs nothing twice; and
``make serve`` run for real into a throwaway virtualenv brings none of the test and
development tools and starts the server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, free_port

SERVER_STAMP = ".installed-server"
TEST_STAMP = ".installed"
# what the tests and the development tools bring, and the server needs none of
NOT_FOR_THE_SERVER = ("pyspark", "pyarrow", "playwright", "pytest", "ruff", "mypy")


def _dry_run(target: str, venv: Path, *variables: str) -> list[str]:
    """The commands ``make -n`` would run for ``target`` with ``.venv`` at ``venv``."""
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target, f"VENV={venv}", *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.splitlines()


def _installs(lines: list[str]) -> list[str]:
    return [line for line in lines if "pip install" in line]


def _venv(tmp_path: Path, *stamps: str) -> Path:
    """A stand-in for an installed ``.venv``: its interpreter and the given stamps, newer than
    every file they depend on."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    later = time.time() + 60
    for stamp in stamps:
        (venv / stamp).touch()
        os.utime(venv / stamp, (later, later))
    return venv


def test_make_serve_on_a_fresh_checkout_installs_the_server_alone(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    lines = _dry_run("serve", venv)
    assert lines[0].endswith(f"-m venv {venv}"), lines
    python = f"{venv}/bin/python"
    assert _installs(lines) == [
        f"{python} -m pip install --quiet --upgrade pip",
        f"{python} -m pip install --quiet -e .",
    ]
    assert lines[-1] == f"{python} -m app serve --host 127.0.0.1 --port 8080 --data-dir ./data"


def test_make_serve_after_make_test_installs_nothing(tmp_path: Path) -> None:
    venv = _venv(tmp_path, SERVER_STAMP, TEST_STAMP)
    assert _installs(_dry_run("serve", venv)) == []
    assert _installs(_dry_run(f"{venv}/{TEST_STAMP}", venv)) == []


def test_make_test_after_make_serve_adds_the_test_tools_only(tmp_path: Path) -> None:
    venv = _venv(tmp_path, SERVER_STAMP)
    assert _installs(_dry_run("serve", venv)) == []
    (install,) = _installs(_dry_run(f"{venv}/{TEST_STAMP}", venv))
    assert "-e .[test,dev]" in install.replace("'", "")
    assert "clients/python" in install


def test_make_test_on_a_fresh_checkout_installs_the_server_then_the_test_tools(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "venv"
    lines = _dry_run(f"{venv}/{TEST_STAMP}", venv)
    installs = _installs(lines)
    assert installs[1] == f"{venv}/bin/python -m pip install --quiet -e .", installs
    assert "-e .[test,dev]" in installs[2].replace("'", "")
    assert lines[-1] == f"touch {venv}/{TEST_STAMP}"


@pytest.mark.slow
def test_make_serve_into_a_fresh_virtualenv_serves_without_the_test_tools(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    data = tmp_path / "data"
    port = free_port()
    log_path = tmp_path / "make.log"
    with open(log_path, "wb") as log:
        make = subprocess.Popen(
            [
                "make",
                "--no-print-directory",
                "serve",
                f"VENV={venv}",
                f"PORT={port}",
                f"DATA={data}",
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # make, its shell and the server: one group to stop
        )
    try:
        deadline = time.monotonic() + 600  # creating the virtualenv and installing
        while True:
            assert make.poll() is None, log_path.read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.2)
        assert (data / "metadata.db").exists()
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGTERM)
            make.wait(60)

    listed = subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "list", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    installed = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert {"sluice", "fastapi", "uvicorn", "httpx"} <= installed
    assert sorted(installed & set(NOT_FOR_THE_SERVER)) == []
    assert (venv / SERVER_STAMP).exists() and not (venv / TEST_STAMP).exists()


def test_make_test_runs_the_kafka_tests_with_the_rest(tmp_path: Path) -> None:
    venv = _venv(tmp_path, SERVER_STAMP, TEST_STAMP)
    python = f"{venv}/bin/python"
    # the fault trials on Kafka nodes of their own are make test-kafka's
    assert _dry_run("test", venv)[-1] == f'{python} -m pytest --cov -m "not trials"'
    assert _dry_run("test-fast", venv)[-1] == f'{python} -m pytest -m "not slow and not kafka"'
    # the tests marked kafka, then the client, CLI and Spark suites with gateways as their servers,
    # on the cluster make kafka left running or on one node started (and stopped) for both
    kafka_pass = _dry_run("test-kafka", venv)
    marked = f'if [ -z "{{}}" ]; then {python} -m pytest -m kafka || status=$?; \\'
    trials = f"else {python} -m pytest -m trials || status=$?; fi; \\"
    assert marked.format("") in kafka_pass and trials in kafka_pass
    (gateway_pass,) = [line for line in kafka_pass if "SLUICE_TEST_BACKEND=kafka" in line]
    assert gateway_pass.startswith(f"SLUICE_TEST_BACKEND=kafka {python} -m pytest tests/clients/")
    assert "tests/clients/test_js_client.py" in gateway_pass.split()  # Node's suite too
    # system-deps first: Node, npm and chromium, which the JavaScript suite needs
    assert any("node:nodejs" in line and "chromium:chromium" in line for line in kafka_pass)
    suites = gateway_pass.split()
    assert "tests/spark" in suites  # the Spark data source's suite
    assert "tests/e2e/test_dashboard.py" in suites  # the end-to-end suites
    assert "\tbash kafka/cluster.sh start 1 || exit 1; started=1; \\" in kafka_pass
    assert kafka_pass[-1] == "exit $status"
    assert _dry_run("kafka", venv)[-1] == "bash kafka/cluster.sh start 3"
    assert _dry_run("kafka", venv, "BROKERS=1")[-1] == "bash kafka/cluster.sh start 1"
    assert _dry_run("kafka-stop", venv) == ["bash kafka/cluster.sh stop"]
    # AFTER_TEST=1 (.ci/run, after make test): the trials, then the gateway pass
    after_test = _dry_run("test-kafka", venv, "AFTER_TEST=1")
    assert marked.format("1") in after_test and marked.format("") not in after_test
    assert any(line.startswith("SLUICE_TEST_BACKEND=kafka ") for line in after_test)


def test_ci_runs_the_whole_suite_then_the_trials_and_the_gateway_pass() -> None:
    script = (ROOT / ".ci" / "run").read_text().splitlines()
    runs = [line for line in script if line.startswith("make ")]
    assert runs == ["make test || status=$?", "make test-kafka AFTER_TEST=1 || status=$?"]
    assert script[-1] == "exit $status"
