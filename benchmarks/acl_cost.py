"""The cost of authentication and authorization on the produce path: one connection sends
small produce requests (one record of 16 bytes) in a loop to a real server process, fsync
``interval`` so that the disk does not hide a few microseconds, in three set-ups started fresh
in turn: no keys (anonymous, loopback); a key and the one ACL it needs (WRITE on the topic); a
key whose principal is a super-user. Requests per second, median of the runs; not part of
``run_all``.

    .venv/bin/python -m benchmarks.acl_cost --runs 3 --requests 3000
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
SETUPS = ("no keys", "key + one ACL", "key, super-user")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli(data: Path, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "app", *args, "--data-dir", str(data)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _measure(setup: str, requests: int, tmp: Path) -> tuple[float, float]:
    """Requests per second, and server CPU microseconds per request."""
    data = tmp / setup.replace(" ", "-").replace(",", "").replace("+", "")
    headers: dict[str, str] = {}
    env = {**os.environ, "SLUICE_FSYNC": "interval"}
    if setup != "no keys":
        headers["Authorization"] = "Bearer " + _cli(data, "keys", "create", "--principal", "p")
        if setup == "key + one ACL":
            _cli(
                data,
                "acls",
                "add",
                "--principal",
                "p",
                "--topic",
                "t",
                "--operation",
                "ALL",
                "--allow",
            )
        else:
            env["SLUICE_SUPER_USERS"] = "p"
    port = _port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port), "--data-dir", str(data)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers) as c:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if c.get("/readyz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{setup}: the server did not start")
                time.sleep(0.05)
            assert c.post("/v1/topics", json={"name": "t"}).status_code == 201
            body = b'{"records": [{"value": "0123456789abcdef"}]}'
            for _ in range(300):  # warm-up
                c.post("/v1/topics/t/records", content=body)
            cpu = _cpu_s(proc.pid)
            started = time.perf_counter()
            for _ in range(requests):
                r = c.post("/v1/topics/t/records", content=body)
                assert r.status_code == 200, r.text
            elapsed = time.perf_counter() - started
            return requests / elapsed, (_cpu_s(proc.pid) - cpu) / requests * 1e6
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--requests", type=int, default=3000)
    args = p.parse_args()
    rates: dict[str, list[float]] = {s: [] for s in SETUPS}
    cpus: dict[str, list[float]] = {s: [] for s in SETUPS}
    with tempfile.TemporaryDirectory() as d:
        for run in range(args.runs):
            for setup in SETUPS:  # interleaved, so that a noisy moment hits all three
                rate, cpu = _measure(setup, args.requests, Path(d) / str(run))
                rates[setup].append(rate)
                cpus[setup].append(cpu)
    base = statistics.median(cpus["no keys"])
    for setup in SETUPS:
        rate, cpu = statistics.median(rates[setup]), statistics.median(cpus[setup])
        runs = ", ".join(f"{r:,.0f}" for r in rates[setup])
        print(
            f"{setup:<16} {rate:>7,.0f} requests/s ({runs}); server CPU {cpu:6.1f} µs a "
            f"request ({cpu - base:+.1f})"
        )


if __name__ == "__main__":
    main()
