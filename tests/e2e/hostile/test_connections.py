"""Many connections that never send a request: 10,000 of them cost the server bounded memory,
other clients are served while they are open, and every one is closed by the header deadline;
past ``SLUICE_MAX_CONNECTIONS`` the connections that waited longest make room for new ones.
The server raises its own open-files limit to fit its connections."""

from __future__ import annotations

import resource
import selectors
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.api.connections import RESERVED_FDS
from tests.e2e.hostile.helpers import healthy, memory_bound, pid, start_server

pytestmark = pytest.mark.slow

IDLE = 10_000


@contextmanager
def open_files_limit(soft: int) -> Iterator[int]:
    """This process's soft limit of open files set to ``soft`` (at most the hard limit) for
    the block; returns the limit set."""
    old_soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    new = soft if hard == resource.RLIM_INFINITY else min(soft, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
    try:
        yield new
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (old_soft, hard))


def open_idle(port: int, n: int) -> list[socket.socket]:
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.setblocking(False)
        socks.append(s)
    return socks


def closed_ones(socks: list[socket.socket], within: float) -> set[int]:
    """Indexes of the sockets the server closes (EOF or reset, after whatever it sent) within
    ``within`` seconds."""
    sel = selectors.DefaultSelector()
    for i, s in enumerate(socks):
        sel.register(s, selectors.EVENT_READ, i)
    closed: set[int] = set()
    deadline = time.monotonic() + within
    while len(closed) < len(socks) and (left := deadline - time.monotonic()) > 0:
        for key, _ in sel.select(min(left, 0.5)):
            try:
                data = key.fileobj.recv(65536)  # type: ignore[union-attr]
            except ConnectionResetError:
                data = b""
            if not data:
                closed.add(key.data)
                sel.unregister(key.fileobj)
    sel.close()
    return closed


def soft_open_files(server_pid: int) -> int:
    for line in Path(f"/proc/{server_pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no open-files limit")


def test_ten_thousand_idle_connections(tmp_path: Path) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < IDLE + 1000:
        pytest.skip(f"the hard open-files limit ({hard}) is below {IDLE + 1000}")
    # started with the usual soft limit of 1,024: the server raises its own
    with open_files_limit(1024):
        server = start_server(tmp_path / "data", SLUICE_HEADER_TIMEOUT_MS="6000")
    try:
        wanted = 10_000 + RESERVED_FDS
        assert soft_open_files(pid(server)) >= min(wanted, hard)
        with open_files_limit(IDLE + 1000):
            healthy(server)
            socks: list[socket.socket] = []
            try:
                # some 6.5 KiB a connection (uvicorn's protocol, the parser, the transport)
                with memory_bound(server, IDLE * 8 / 1024, f"{IDLE} idle connections"):
                    started = time.monotonic()
                    socks += open_idle(server.port, IDLE)
                    print(f"{IDLE} connections opened in {time.monotonic() - started:.1f} s")
                    took = healthy(server, within=5)
                    print(f"a request among them took {took * 1000:.0f} ms")
                closed = closed_ones(socks, 6 + 10)
                print(f"all closed {time.monotonic() - started:.1f} s after the first opened")
                assert len(closed) == IDLE, f"{IDLE - len(closed)} idle connections still open"
            finally:
                for s in socks:
                    s.close()
            healthy(server)
    finally:
        server.stop()


def test_past_the_connection_limit_the_longest_waiting_make_room(tmp_path: Path) -> None:
    server = start_server(tmp_path / "data", SLUICE_MAX_CONNECTIONS="100")
    try:
        first = open_idle(server.port, 100)
        time.sleep(0.2)  # all accepted before the next ones come
        second = open_idle(server.port, 150)
        try:
            assert closed_ones(first, 5) == set(range(100)), "the oldest were not closed"
            assert closed_ones(second, 0.5) == set(range(50))
            took = healthy(server)  # makes room for itself too
            print(f"a request past the limit took {took * 1000:.0f} ms")
            assert closed_ones(second[50:], 0.5) <= {0, 1}
        finally:
            for s in first + second:
                s.close()
    finally:
        server.stop()
