"""Shared fixtures: settings on a temp data dir, an in-process app, a real server process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings
from app.main import create_app
from app.metadata.db import Database
from app.metadata.migrate import migrate
from tests.kafka_cluster import empty
from tests.kafka_cluster import kafka_cluster as kafka_cluster

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def settings_factory(tmp_path: Path) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        return Settings(data_dir=str(tmp_path / "data"), **overrides)

    return make


@pytest.fixture
async def metadata_db(tmp_path: Path) -> AsyncIterator[Database]:
    """A real metadata database in a temp file, every migration applied."""
    db = Database(str(tmp_path / "meta.db"))
    await db.open()
    await migrate(db.writer)
    try:
        yield db
    finally:
        await db.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def client(settings_factory: Callable[..., Settings]) -> AsyncIterator[httpx.AsyncClient]:
    """create_app() in process: real SQLite and log directory, lifespan run around the test."""
    app = create_app(settings_factory())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            yield c


def cli(data: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``python -m app <args> --data-dir <data>`` (the admin commands: keys, ACLs, quotas)."""
    return subprocess.run(
        [sys.executable, "-m", "app", *args, "--data-dir", str(data)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=check,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    """A real ``python -m app serve`` process on a free port."""

    data_dir: Path
    port: int
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    args: tuple[str, ...] = ()  # more flags of serve

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> None:
        self.log_path = self.data_dir.parent / f"server-{self.port}.log"
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "app",
                "serve",
                "--port",
                str(self.port),
                "--data-dir",
                str(self.data_dir),
                *self.args,
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.logs()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"server not ready after {timeout}s:\n{self.logs()}")

    def kill(self) -> None:
        """SIGKILL: no flush, no clean shutdown."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM and wait; returns the exit code."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)
        return int(self.proc.returncode)

    def logs(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path else ""


# SLUICE_TEST_BACKEND=kafka (make test-kafka): the servers of server_factory are gateways on the
# native Kafka cluster of tests/kafka_cluster.py, each test starting from an emptied cluster
GATEWAY = os.environ.get("SLUICE_TEST_BACKEND", "embedded") == "kafka"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the gateway pass, the tests marked ``embedded_only`` (each with the ``unsupported``
    names of docs/kafka.md it needs) are deselected, reported as such, never skipped."""
    if not GATEWAY:
        return
    kept = [item for item in items if item.get_closest_marker("embedded_only") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


@pytest.fixture
def server_factory(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., ServerProcess]]:
    started: list[ServerProcess] = []
    gateway: dict[str, str] = {}
    bootstrap = ""
    if GATEWAY:
        bootstrap = request.getfixturevalue("kafka_cluster").bootstrap
        gateway = {"SLUICE_BACKEND": "kafka", "SLUICE_KAFKA_BOOTSTRAP": bootstrap}
        empty(bootstrap)  # what other tests of the cluster left, the keys of tests/kafka too

    def make(data_dir: Path | None = None, args: tuple[str, ...] = (), **env: str) -> ServerProcess:
        e = dict(os.environ)
        e.update(gateway)
        e.update({k: str(v) for k, v in env.items()})
        s = ServerProcess(data_dir or tmp_path / "data", free_port(), e, args=args)
        started.append(s)
        return s

    yield make
    if GATEWAY:
        # stopped, not killed: a gateway that stops makes its share-group members leave, so
        # that their groups can be deleted at once
        for s in started:
            if s.proc is not None and s.proc.poll() is None:
                s.stop()
        empty(bootstrap)
    for s in started:
        s.kill()


@pytest.fixture
def server(server_factory: Callable[..., ServerProcess]) -> Iterator[ServerProcess]:
    s = server_factory()
    s.start()
    yield s
    s.stop()
