"""The data directory is its user's alone: directories 0700 and files 0600 as the server and
the commands create them (whatever the umask lets through), a directory of an older release
tightened at start, and no answer that names the directory's path."""

from __future__ import annotations

import errno
import logging
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.__main__ import main
from app.config import Settings
from app.storage import fileio

from .conftest import running
from .helpers import assert_error, create_topic, produce
from .txn_helpers import batch, init_producer, produce_ok


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The umask most systems give a process: it lets 0755 and 0644 through."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)
        fileio.remove()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes_under(root: Path) -> dict[str, int]:
    """The mode of ``root`` and of every file and directory under it, by relative path."""
    out = {".": mode(root)}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(directory, name)
            out[str(path.relative_to(root))] = mode(path)
    return out


def assert_private(root: Path) -> None:
    found = modes_under(root)
    wrong = {
        name: oct(m)
        for name, m in found.items()
        if m != (0o700 if (root / name).is_dir() else 0o600)
    }
    assert not wrong, wrong


async def test_everything_the_server_creates_is_its_users_alone(
    settings_factory: Callable[..., Settings], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    async with running(settings_factory(fsync="always")) as s:
        c = s.client
        await create_topic(c, "t", 2, config={"segment_bytes": 1024})
        for _ in range(6):  # several segments: the log rolls
            await produce(c, "t", [{"value": "x" * 300, "partition": 0}])
        pid, epoch = await init_producer(c)  # producer state: a snapshot at the checkpoint
        await produce_ok(c, pid, epoch, [batch("t", 1, 0)])
        segments = sorted((data / "logs").glob("*/0/*.log"))
        assert len(segments) >= 3, segments
        r = await c.post(
            "/v1/topics/t/delete-records",
            json={"partitions": [{"partition": 0, "before_offset": 2}]},
        )
        assert r.status_code == 200, r.text  # the log start file
        for name in ("metadata.db", "metadata.db-wal", "metadata.db-shm", ".lock"):
            assert mode(data / name) == 0o600, name
        assert_private(data)
    # the clean stop wrote every checkpoint, index and snapshot
    found = modes_under(data)
    assert any(name.endswith("recovery-checkpoint") for name in found), found
    assert any(name.endswith("producer-snapshot") for name in found), found
    assert any(name.endswith("log-start-offset") for name in found), found
    assert any(name.endswith(".index") for name in found), found
    assert_private(data)


def test_the_keys_command_creates_a_private_directory_and_database(tmp_path: Path) -> None:
    data = tmp_path / "fresh"
    assert main(["keys", "create", "--principal", "admin", "--data-dir", str(data)]) == 0
    assert mode(data) == 0o700
    assert mode(data / "metadata.db") == 0o600
    assert_private(data)
    assert main(["acls", "list", "--data-dir", str(tmp_path / "other")]) == 0
    assert_private(tmp_path / "other")


async def test_a_directory_of_an_older_release_is_tightened_at_start(
    settings_factory: Callable[..., Settings], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    async with running(settings_factory()) as s:
        await create_topic(s.client, "t")
        await produce(s.client, "t", [{"value": "x"}])
    for path in [data, *data.rglob("*")]:  # as an older release left it
        path.chmod(0o755 if path.is_dir() else 0o644)
    with caplog.at_level(logging.WARNING, logger="sluice.datadir"):
        async with running(settings_factory()) as s:
            assert_private(data)
            r = await s.client.get("/v1/topics/t/partitions/0/records")
            assert [x["value"] for x in r.json()["records"]] == ["x"]
    (line,) = [r.getMessage() for r in caplog.records if r.name == "sluice.datadir"]
    assert "took group and other users' access away" in line, line
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sluice.datadir"):
        async with running(settings_factory()):
            pass
    assert not [r for r in caplog.records if r.name == "sluice.datadir"]  # nothing to do


async def test_no_answer_names_the_data_directory(
    settings_factory: Callable[..., Settings], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    secret = str(tmp_path)
    async with running(settings_factory()) as s:
        c = s.client
        await create_topic(c, "t")
        # a topic whose directory is taken by a file: the error carries the file's path
        (data / "logs" / "2").write_bytes(b"")
        r = await c.post("/v1/topics", json={"name": "b", "partitions": 1})
        assert_error(r, 507, "KAFKA_STORAGE_ERROR")
        assert secret not in r.text, r.text
        # a failed fsync: the disk is failing until the next write succeeds
        fileio.install(fileio.Fault("fsync", errno.EIO, suffix=".log"))
        r = await c.post("/v1/topics/t/records", json={"records": [{"value": "v"}]})
        assert_error(r, 507, "KAFKA_STORAGE_ERROR")
        assert secret not in r.text, r.text
        ready = await c.get("/readyz")
        assert ready.json()["storage"] == "failing", ready.text
        assert secret not in ready.text, ready.text
        for path in ("/healthz", "/metrics"):
            r = await c.get(path)
            assert r.status_code == 200 and secret not in r.text, (path, r.text)
