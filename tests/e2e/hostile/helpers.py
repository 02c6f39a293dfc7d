"""What the hostile-input tests share: a server process started with chosen settings, its
resident memory, raw HTTP over a socket (the bytes a client library would refuse to send) and
the checks every case makes: a clear error, bounded memory, other clients still served."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from app.errors import ErrorCode
from tests.conftest import ServerProcess, free_port

MiB = 1024 * 1024

# the backend's settings each server of these modules starts with: a gateway's in the gateway
# pass (SLUICE_TEST_BACKEND=kafka), set by this package's conftest; empty on the embedded engine
BACKEND_ENV: dict[str, str] = {}


def start_server(data_dir: Path, **env: str) -> ServerProcess:
    server = ServerProcess(data_dir, free_port(), {**os.environ, **BACKEND_ENV, **env})
    server.start()
    return server


def end_server(server: ServerProcess) -> None:
    """At a module's end: a gateway is stopped, so that its share-group members leave before
    the cluster is emptied; an embedded server is killed."""
    if BACKEND_ENV:
        server.stop()
    server.kill()


def pid(server: ServerProcess) -> int:
    assert server.proc is not None and server.proc.poll() is None, server.logs()
    return server.proc.pid


def rss_kib(server: ServerProcess) -> int:
    """The server's resident memory (VmRSS), in KiB."""
    return _status_kib(server, "VmRSS")


def peak_rss_kib(server: ServerProcess) -> int:
    """The most resident memory the server has had since it started (VmHWM), in KiB."""
    return _status_kib(server, "VmHWM")


def _status_kib(server: ServerProcess, field: str) -> int:
    for line in Path(f"/proc/{pid(server)}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field}")


@contextmanager
def memory_bound(server: ServerProcess, bound_mib: float, what: str) -> Iterator[None]:
    """Fails when the server's RSS grows by more than ``bound_mib`` over the block."""
    before = rss_kib(server)
    yield
    after = rss_kib(server)
    grown = (after - before) / 1024
    print(f"{what}: RSS {before / 1024:.1f} -> {after / 1024:.1f} MiB ({grown:+.1f} MiB)")
    assert grown <= bound_mib, f"{what}: the server grew {grown:.1f} MiB (bound {bound_mib})"


def healthy(server: ServerProcess, within: float = 2.0) -> float:
    """Another client is served: a produce-free request answered 200 within ``within``
    seconds, on a new connection. Returns how long it took."""
    started = time.monotonic()
    r = httpx.get(server.url + "/v1/topics", timeout=within)
    took = time.monotonic() - started
    assert r.status_code == 200, r.text
    assert pid(server)
    return took


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    closed: bool  # the server closed the connection after the answer

    def json(self) -> Any:
        return orjson.loads(self.body)

    @property
    def code(self) -> str:
        error: dict[str, Any] = self.json()["error"]
        return str(error["code"])


def connect(server: ServerProcess, timeout: float = 10) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=timeout)


def read_answer(sock: socket.socket, close_within: float = 2.0) -> Answer:
    """One HTTP/1.1 answer (Content-Length framed) and whether the server closed the
    connection after it within ``close_within`` seconds (0: not waited for)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed without an answer: {buf!r}")
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    closed = close_within > 0 and closed_by_server(sock, close_within)
    return Answer(status, headers, rest[:length], closed)


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes the connection within ``within`` seconds (EOF or reset)."""
    sock.settimeout(within)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def exchange(server: ServerProcess, data: bytes, timeout: float = 10) -> Answer:
    """Send raw bytes on a new connection, read the answer. The server may refuse before it
    has read them all (a reset while sending is then not an error)."""
    with connect(server, timeout) as sock:
        with suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(data)
        return read_answer(sock)


def request(
    method: str,
    target: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    *,
    keep_alive: bool = False,
) -> bytes:
    """The bytes of a request. Without ``keep_alive`` it asks for the connection to be closed
    after the answer; with it, a close after the answer is the server's own decision."""
    lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1"]
    if not keep_alive:
        lines.append("Connection: close")
    all_headers = {"Content-Length": str(len(body)), **(headers or {})}
    lines += [f"{k}: {v}" for k, v in all_headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def assert_error(answer: Answer, status: int, code: ErrorCode) -> None:
    assert code.status == status
    assert (answer.status, answer.code) == (status, code.name), (answer.status, answer.body)


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}
