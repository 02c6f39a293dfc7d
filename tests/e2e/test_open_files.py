"""The files a server holds open stay flat however many segments its logs roll through: a
sealed segment closes its files once durable, and a read opens it again only for as long as
the read lasts, however far behind the reader is."""

from __future__ import annotations

import os
from collections.abc import Callable

import httpx

from tests.conftest import ServerProcess


def open_segment_files(server: ServerProcess) -> list[str]:
    assert server.proc is not None and server.proc.poll() is None, server.logs()
    out = []
    fd_dir = f"/proc/{server.proc.pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(f"{fd_dir}/{fd}")
        except FileNotFoundError:
            continue
        if target.endswith((".log", ".index")) and target.startswith(str(server.data_dir)):
            out.append(os.path.basename(target))
    return sorted(out)


def test_open_files_stay_flat_across_segment_rolls(
    server_factory: Callable[..., ServerProcess],
) -> None:
    server = server_factory()
    server.start()
    with httpx.Client(base_url=server.url, timeout=10) as c:
        r = c.post("/v1/topics", json={"name": "t", "config": {"segment_bytes": 4096}})
        assert r.status_code == 201, r.text
        assert len(open_segment_files(server)) == 2  # the active segment's log and index
        values = [f"{n:06d}-" + "x" * 900 for n in range(300)]
        for i in range(0, len(values), 10):
            r = c.post(
                "/v1/topics/t/records", json={"records": [{"value": v} for v in values[i : i + 10]]}
            )
            assert r.status_code == 200, r.text
        # every answered produce was durable, so every sealed segment has closed its files
        assert len(open_segment_files(server)) == 2

        read: list[str] = []
        offset = 0
        while True:  # a reader far behind, seven records a request
            params = {"offset": offset, "max_records": 7}
            r = c.get("/v1/topics/t/partitions/0/records", params=params)
            assert r.status_code == 200, r.text
            records = r.json()["records"]
            if not records:
                break
            read.extend(rec["value"] for rec in records)
            offset = records[-1]["offset"] + 1
            assert len(open_segment_files(server)) == 2  # nothing held between its requests
        assert read == values
    assert server.stop() == 0
