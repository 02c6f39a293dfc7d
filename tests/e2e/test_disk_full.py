"""A real server on a real, small filesystem (a size-limited tmpfs the test mounts): produce
until the disk is full, then free space; fill it under the metadata too.

Needs root (to mount); anywhere else the tests are skipped with that reason.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ServerProcess

ServerFactory = Callable[..., ServerProcess]
MB = 1024 * 1024


class SmallDisk:
    def __init__(self, path: Path) -> None:
        self.path = path

    def resize(self, size: str) -> None:
        subprocess.run(
            ["mount", "-o", f"remount,size={size}", str(self.path)], check=True, timeout=30
        )

    def ballast(self, name: str, size: int) -> Path:
        """A file the test deletes later to give space back."""
        path = self.path / name
        with open(path, "wb") as f:
            f.write(os.urandom(size))
        return path

    def fill(self, name: str) -> Path:
        """Take every free block (write until ENOSPC)."""
        path = self.path / name
        chunk = b"\0" * 4096
        with open(path, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(chunk)
            except OSError:
                pass
        return path


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mnt)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if r.returncode != 0:
        pytest.skip(f"mount -t tmpfs is not permitted here: {r.stderr.strip()}")
    try:
        yield SmallDisk(mnt)
    finally:
        if subprocess.run(["umount", str(mnt)], capture_output=True, timeout=30).returncode:
            subprocess.run(["umount", "-l", str(mnt)], check=True, timeout=30)


def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def refused(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 507, r.text
    err: dict[str, Any] = r.json()["error"]
    assert err["code"] == "KAFKA_STORAGE_ERROR"
    assert err["retriable"] is True and err["kafka_code"] == 56
    assert r.headers["retry-after"] == "1"
    return err


def metric(c: httpx.Client, name: str) -> float:
    for line in c.get("/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")


def read_partition(c: httpx.Client, topic: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    offset = 0
    while True:
        body = ok(
            c.get(
                f"/v1/topics/{topic}/partitions/0/records",
                params={"offset": offset, "max_bytes": 4 * MB},
            )
        )
        if not body["records"]:
            return out
        out.extend((r["offset"], r["value"]) for r in body["records"])
        offset = body["records"][-1]["offset"] + 1


def value(n: int) -> str:
    return f"{n:08d}-" + "abcdefghijklmnopqrstuvwxyz0123456789"[n % 36] * 8000


@pytest.mark.slow
def test_produce_until_the_disk_is_full_then_free_space(
    small_disk: SmallDisk, server_factory: ServerFactory
) -> None:
    server = server_factory(small_disk.path / "data")
    server.start()
    ballast = small_disk.ballast("ballast", 1 * MB)
    acked: dict[int, str] = {}
    with httpx.Client(base_url=server.url, timeout=30) as c:
        ok(c.post("/v1/topics", json={"name": "t", "partitions": 1}), 201)
        assert metric(c, "sluice_storage_failing") == 0
        n = 0
        while True:
            batch = [value(n + i) for i in range(4)]
            r = c.post("/v1/topics/t/records", json={"records": [{"value": v} for v in batch]})
            if r.status_code != 200:
                break
            offsets = [o["offset"] for o in r.json()["offsets"]]
            acked.update(zip(offsets, batch, strict=True))
            n += 4
            assert n < 10_000, "the disk never filled"
        refused(r)
        assert len(acked) > 100
        # refused again while full; readiness and metrics say why
        refused(c.post("/v1/topics/t/records", json={"records": [{"value": v} for v in batch]}))
        assert ok(c.get("/readyz"))["storage"] == "failing"
        assert metric(c, "sluice_storage_failing") == 1
        assert metric(c, "sluice_storage_errors") >= 2
        assert metric(c, "sluice_storage_error_episodes") == 1
        # every acknowledged record is there, the same
        assert read_partition(c, "t") == sorted(acked.items())
        # space comes back: produce works again, without a restart
        ballast.unlink()
        r = c.post("/v1/topics/t/records", json={"records": [{"value": value(n)}]})
        acked[ok(r)["offsets"][0]["offset"]] = value(n)
        assert metric(c, "sluice_storage_failing") == 0
        assert ok(c.get("/readyz")) == {"status": "ready"}
        assert read_partition(c, "t") == sorted(acked.items())
    logs = server.logs()
    assert logs.count("writes are answered KAFKA_STORAGE_ERROR") == 1, "once per episode"
    # a crash now, and a start on the same filesystem: nothing to cut, nothing lost
    server.kill()
    again = server_factory(small_disk.path / "data")
    again.start()
    with httpx.Client(base_url=again.url, timeout=30) as c:
        assert read_partition(c, "t") == sorted(acked.items())
    assert "truncating" not in again.logs()
    assert again.stop() == 0


@pytest.mark.slow
def test_a_full_disk_under_the_metadata(
    small_disk: SmallDisk, server_factory: ServerFactory
) -> None:
    server = server_factory(small_disk.path / "data")
    server.start()
    with httpx.Client(base_url=server.url, timeout=30) as c:
        ok(c.post("/v1/topics", json={"name": "t", "partitions": 1}), 201)
        ok(c.post("/v1/topics/t/records", json={"records": [{"value": "x"}] * 20}))
        member = {"member_id": "m", "member_epoch": 0, "subscribed_topics": ["t"]}
        epoch = ok(c.post("/v1/groups/g/heartbeat", json=member))["member_epoch"]

        def commit(offset: int) -> httpx.Response:
            return c.post(
                "/v1/groups/g/offsets",
                json={
                    "member_id": "m",
                    "member_epoch": epoch,
                    "offsets": [{"topic": "t", "partition": 0, "offset": offset}],
                },
            )

        assert ok(commit(5))["offsets"][0]["error"] is None
        small_disk.fill("filler")
        # metadata writes until SQLite needs a page the disk does not have
        created: list[str] = []
        refusal = None
        for i in range(2000):
            r = c.post("/v1/topics", json={"name": f"n{i}", "partitions": 1})
            if r.status_code != 201:
                refusal = r
                break
            created.append(f"n{i}")
        assert refusal is not None, "the metadata never ran out of space"
        assert "metadata write failed" in refused(refusal)["message"]  # SQLite's own refusal
        lost = f"n{len(created)}"
        names = {t["name"] for t in ok(c.get("/v1/topics"))["topics"]}
        assert lost not in names and set(created) <= names
        refused(commit(9))
        assert ok(c.get("/readyz"))["storage"] == "failing"
        # the refused commit left the committed offset as it was
        committed = ok(c.get("/v1/groups/g/offsets"))
        assert [o["offset"] for o in committed["offsets"] if o["topic"] == "t"] == [5]
        small_disk.resize("12m")  # more space, the same filesystem
        assert ok(commit(9))["offsets"][0]["error"] is None
        ok(c.post("/v1/topics", json={"name": lost, "partitions": 1}), 201)
        assert metric(c, "sluice_storage_failing") == 0
        created.append(lost)
    assert server.stop() == 0
    again = server_factory(small_disk.path / "data")
    again.start()
    with httpx.Client(base_url=again.url, timeout=30) as c:
        names = {t["name"] for t in ok(c.get("/v1/topics"))["topics"]}
        assert names == {"t", *created}
        committed = ok(c.get("/v1/groups/g/offsets"))
        assert [o["offset"] for o in committed["offsets"] if o["topic"] == "t"] == [9]
    assert again.stop() == 0
