"""Shared pieces of the benchmarks: server processes, the load generator, statistics, results.

- :class:`ServerProcess` starts a real ``python -m app serve`` (or the raw ceiling app) on a
  free loopback port, waits for ``GET /readyz`` to answer 200, reads its memory from
  ``/proc/PID/status`` and stops it with SIGTERM (or SIGKILL for unclean restarts).
- :func:`run_loadgen` runs :mod:`benchmarks._loadgen` in its own process and returns its result.
- :func:`write_result` stores one JSON file per benchmark and commit under
  ``benchmarks/results/<name>-<commit short id>.json`` with the commit, whether the working tree
  was dirty, the machine, the date and the parameters.

All traffic goes to 127.0.0.1; every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import os
import platform
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import orjson

from benchmarks._loadgen import LoadSpec, latency_summary, percentile, tree_cpu_seconds

__all__ = [
    "REPO_ROOT",
    "RESULTS_DIR",
    "BenchError",
    "LoadGen",
    "LoadSpec",
    "MiB",
    "RssSampler",
    "ServerFailed",
    "ServerProcess",
    "Workdir",
    "add_common_args",
    "busy_cores",
    "ceiling_server",
    "create_topic",
    "describe_topic",
    "dir_bytes",
    "git_info",
    "high_watermarks",
    "iter_runs",
    "latency_summary",
    "log",
    "machine_info",
    "percentile",
    "print_targets",
    "run_loadgen",
    "server_python",
    "sluice_server",
    "spread",
    "target",
    "tree_cpu_seconds",
    "wait_quiet",
    "write_result",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = REPO_ROOT / "benchmarks" / "results"
HOST = "127.0.0.1"
MiB = 1024 * 1024


class BenchError(RuntimeError):
    """The benchmark could not run as planned (bad answers, a load generator failure)."""


class ServerFailed(BenchError):
    """The server under test died, did not become ready, or did not stop cleanly."""


# ---------------------------------------------------------------------------------------------
# Processes


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def read_proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a live process, in bytes."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                amount, _, unit = value.strip().partition(" ")
                out[key] = int(amount) * (1024 if unit.strip().lower() == "kb" else 1)
    return out


class ServerProcess:
    """One server process on a free loopback port, with its output in a log file."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        port: int,
        log_path: Path,
        name: str,
        env: dict[str, str] | None = None,
        clean_exit_codes: tuple[int, ...] = (0,),
        user: str | None = None,
        stop_signal: int = signal.SIGTERM,
    ) -> None:
        """``user``: run as that user (a server that refuses to run as root); ``stop_signal``:
        the signal of a clean, prompt shutdown (SIGTERM for most)."""
        self.argv = list(argv)
        self.clean_exit_codes = clean_exit_codes
        self.user = user
        self.stop_signal = stop_signal
        self.port = port
        self.log_path = log_path
        self.name = name
        self.env = dict(os.environ if env is None else env)
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0
        self._log: Any = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise ServerFailed(f"{self.name} is not running")
        return self.proc.pid

    def start(self) -> None:
        self._log = open(self.log_path, "ab")  # noqa: SIM115 (closed in _reap)
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(
            self.argv,
            cwd=REPO_ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            user=self.user,
            group=self.user,
            extra_groups=[] if self.user else None,
        )

    def wait_ready(self, timeout: float = 60.0, path: str = "/readyz") -> float:
        """Seconds from process start until ``path`` answered 200; polls every 5 ms."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                raise ServerFailed(
                    f"{self.name} exited with {self.returncode()} before ready:\n{self.log_tail()}"
                )
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2.0)
                try:
                    conn.request("GET", path)
                    status = conn.getresponse().status
                finally:
                    conn.close()
                if status == 200:
                    return time.perf_counter() - self.started_at
            except OSError:
                pass
            time.sleep(0.005)
        raise ServerFailed(f"{self.name} not ready after {timeout:.0f} s:\n{self.log_tail()}")

    def memory(self) -> dict[str, int]:
        return read_proc_status(self.pid)

    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def check_alive(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise ServerFailed(f"{self.name} died (exit {self.returncode()}):\n{self.log_tail()}")

    def stop(self, timeout: float = 60.0) -> float:
        """SIGTERM (or the server's ``stop_signal``), wait for a clean exit; returns the seconds
        the shutdown took."""
        self.check_alive()
        assert self.proc is not None
        began = time.perf_counter()
        self.proc.send_signal(self.stop_signal)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise ServerFailed(
                f"{self.name} ignored {signal.Signals(self.stop_signal).name} for {timeout:.0f} s"
            ) from None
        took = time.perf_counter() - began
        self._reap()
        if code not in self.clean_exit_codes:
            name = signal.Signals(self.stop_signal).name
            raise ServerFailed(f"{self.name} exited {code} after {name}:\n{self.log_tail()}")
        return took

    def kill(self) -> None:
        """SIGKILL (unclean stop) and reap."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        self._reap()

    def _reap(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.kill()


def server_python(args: argparse.Namespace) -> list[str] | None:
    """The ``--server-python`` prefix as argv, or None for this interpreter."""
    cmd: str | None = getattr(args, "server_python", None)
    return shlex.split(cmd) if cmd else None


def sluice_server(
    data_dir: Path,
    log_path: Path,
    *,
    fsync: str = "always",
    port: int | None = None,
    python: Sequence[str] | None = None,
    extra_env: dict[str, str] | None = None,
) -> ServerProcess:
    """``python -m app serve`` on ``data_dir``; ``python`` may prefix a profiler."""
    port = free_port() if port is None else port
    env = dict(os.environ)
    env.update({"SLUICE_FSYNC": fsync, "SLUICE_LOG_LEVEL": "warning"})
    env.update(extra_env or {})
    argv = [
        *(python or [sys.executable]),
        "-m",
        "app",
        "serve",
        "--host",
        HOST,
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
    ]
    return ServerProcess(argv, port=port, log_path=log_path, name="sluice server", env=env)


def ceiling_server(log_path: Path) -> ServerProcess:
    """The bare FastAPI yardstick of :mod:`benchmarks.raw_ceiling`."""
    port = free_port()
    argv = [sys.executable, "-m", "benchmarks.raw_ceiling", "--port", str(port)]
    # uvicorn.run re-raises the signal after a graceful shutdown, so -SIGTERM is clean here.
    return ServerProcess(
        argv,
        port=port,
        log_path=log_path,
        name="raw ceiling",
        clean_exit_codes=(0, -signal.SIGTERM),
    )


class Workdir:
    """A fresh temporary directory (``data/`` for the server, logs beside it), removed after."""

    def __init__(self, prefix: str, parent: str | None = None, keep: bool = False) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=f"sluice-bench-{prefix}-", dir=parent))
        self.data = self.path / "data"
        self.keep = keep

    def log(self, name: str) -> Path:
        return self.path / f"{name}.log"

    def __enter__(self) -> Workdir:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.keep:
            print(f"  kept {self.path}", file=sys.stderr)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


def dir_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.path.getsize(os.path.join(root, f))
    return total


class RssSampler:
    """Samples a process's VmRSS every ``interval`` seconds in a thread, for a time series."""

    def __init__(self, server: ServerProcess, interval: float = 0.25) -> None:
        self.server = server
        self.interval = interval
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._t0 = time.perf_counter()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            with contextlib.suppress(OSError, ServerFailed, KeyError):
                rss = self.server.memory()["VmRSS"]
                self.samples.append((round(time.perf_counter() - self._t0, 2), rss))

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(5)

    @property
    def peak(self) -> int:
        return max((rss for _, rss in self.samples), default=0)


# ---------------------------------------------------------------------------------------------
# HTTP set-up calls and the load generator


def create_topic(
    server: ServerProcess, name: str, partitions: int, config: dict[str, Any] | None = None
) -> None:
    body = {"name": name, "partitions": partitions, "config": config or {}}
    with httpx.Client(base_url=server.base_url, timeout=30.0) as client:
        r = client.post("/v1/topics", json=body)
    if r.status_code != 201:
        raise ServerFailed(f"creating topic {name!r} answered {r.status_code}: {r.text[:300]}")


def describe_topic(server: ServerProcess, name: str) -> dict[str, Any]:
    with httpx.Client(base_url=server.base_url, timeout=30.0) as client:
        r = client.get(f"/v1/topics/{name}")
    if r.status_code != 200:
        raise ServerFailed(f"describing topic {name!r} answered {r.status_code}: {r.text[:300]}")
    answer: dict[str, Any] = r.json()
    return answer


def high_watermarks(server: ServerProcess, name: str) -> list[int]:
    parts = sorted(describe_topic(server, name)["partitions"], key=lambda p: p["partition"])
    return [int(p["high_watermark"]) for p in parts]


class LoadGen:
    """A running load generator process; :meth:`wait` returns its JSON result."""

    def __init__(self, spec: LoadSpec) -> None:
        self.spec = spec
        argv = [sys.executable, "-m", "benchmarks._loadgen", "--spec", spec.to_json().decode()]
        self.proc = subprocess.Popen(
            argv,
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def running(self) -> bool:
        return self.proc.poll() is None

    def wait(self, timeout: float | None = None) -> dict[str, Any]:
        limit = self.spec.max_seconds + 60.0 if timeout is None else timeout
        try:
            out, err = self.proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise BenchError(f"load generator did not finish in {limit:.0f} s") from None
        if not out.strip():
            raise BenchError(
                f"load generator exited {self.proc.returncode} without a result:\n"
                f"{err.decode(errors='replace')[-2000:]}"
            )
        result: dict[str, Any] = orjson.loads(out)
        if self.proc.returncode != 0 and not self.spec.tolerate_errors:
            raise BenchError(
                f"load generator failed ({result.get('errors')} errors, timed out: "
                f"{result.get('timed_out')}): {result.get('error_samples')}\n"
                f"{err.decode(errors='replace')[-2000:]}"
            )
        return result


def run_loadgen(spec: LoadSpec, server: ServerProcess | None = None) -> dict[str, Any]:
    """Run one load generator to the end; a dead server afterwards is a :class:`ServerFailed`."""
    try:
        result = LoadGen(spec).wait()
    except BenchError:
        if server is not None:
            server.check_alive()
        raise
    if server is not None:
        server.check_alive()
    return result


# ---------------------------------------------------------------------------------------------
# Statistics and results


def spread(values: Sequence[float]) -> dict[str, Any]:
    """Median, min, max and every value of repeated runs."""
    vals = [float(v) for v in values]
    if not vals:
        return {"median": None, "min": None, "max": None, "runs": []}
    return {
        "median": round(statistics.median(vals), 3),
        "min": round(min(vals), 3),
        "max": round(max(vals), 3),
        "runs": [round(v, 3) for v in vals],
    }


def _git(*args: str) -> str:
    out = subprocess.run(
        ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=30
    )
    return out.stdout.strip() if out.returncode == 0 else ""


def git_info() -> dict[str, Any]:
    commit = _git("rev-parse", "HEAD") or "unknown"
    short = _git("rev-parse", "--short", "HEAD") or "unknown"
    # Results files are outputs, not inputs: they do not make the tree dirty.
    status = _git("status", "--porcelain", "--", ".", ":(exclude)benchmarks/results")
    return {"commit": commit, "short": short, "dirty": bool(status)}


def _cpu_times() -> tuple[int, int]:
    with open("/proc/stat", encoding="ascii") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields), idle


def busy_cores(window: float = 1.0) -> float:
    """Cores kept busy by the whole machine over ``window`` seconds (from /proc/stat)."""
    total0, idle0 = _cpu_times()
    time.sleep(window)
    total1, idle1 = _cpu_times()
    if total1 == total0:
        return 0.0
    return round((1 - (idle1 - idle0) / (total1 - total0)) * len(os.sched_getaffinity(0)), 2)


def wait_quiet(limit: float, threshold: float = 0.3) -> float:
    """Wait (at most ``limit`` s) until other work on the machine uses < ``threshold`` cores.

    Benchmarks on a 2-core machine are only meaningful when nothing else runs; the busy
    figure seen last is returned and stored with the results either way.
    """
    deadline = time.monotonic() + limit
    busy = busy_cores()
    while busy >= threshold and time.monotonic() < deadline:
        log(f"  machine busy ({busy} cores used by other processes); waiting to start")
        time.sleep(4.0)
        busy = busy_cores()
    return busy


def machine_info() -> dict[str, Any]:
    mem_total = 0
    with contextlib.suppress(OSError), open("/proc/meminfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_total = int(line.split()[1]) * 1024
                break
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_count": os.cpu_count(),
        "memory_bytes": mem_total,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "arch": platform.machine(),
        "kernel": platform.release(),
    }


def write_result(
    name: str,
    parameters: dict[str, Any],
    results: dict[str, Any],
    out_dir: Path | None = None,
    git: dict[str, Any] | None = None,
    suffix: str = "",
) -> Path:
    """Write ``<out_dir>/<name>-<short commit><suffix>.json`` and return its path. ``git`` is
    the commit the measurement ran at, read when it started (``git_info()``): a long run must
    not be filed under a commit made while it ran; by default, the commit now. ``suffix`` tells
    apart the results of one commit measured in different set-ups."""
    git = git or git_info()
    doc = {
        "benchmark": name,
        "commit": git["commit"],
        "dirty": git["dirty"],
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "parameters": parameters,
        "results": results,
    }
    directory = out_dir or RESULTS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}-{git['short']}{suffix}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    tmp.replace(path)
    return path


# ---------------------------------------------------------------------------------------------
# Command lines


def add_common_args(parser: argparse.ArgumentParser, *, runs: int = 3) -> None:
    parser.add_argument(
        "--runs", type=int, default=runs, help=f"repetitions; medians are reported (default {runs})"
    )
    parser.add_argument(
        "--quick", action="store_true", help="one run and smaller sizes, for a smoke test"
    )
    parser.add_argument(
        "--tmp",
        default=None,
        help="parent directory of the temporary data dirs (default: system temp)",
    )
    parser.add_argument("--keep", action="store_true", help="keep data dirs and server logs")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"results directory (default {RESULTS_DIR.relative_to(REPO_ROOT)})",
    )
    parser.add_argument(
        "--client",
        choices=("raw", "httpx"),
        default="raw",
        help="load generator client (default raw asyncio HTTP/1.1)",
    )
    parser.add_argument(
        "--server-python",
        default=None,
        metavar="CMD",
        help="command that stands for 'python' when starting the server, e.g. "
        "'python -m cProfile -o /tmp/server.prof' (default: this python)",
    )
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=120.0,
        help="wait up to this many seconds for other processes to leave the "
        "CPUs idle before each measured run (default 120)",
    )


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def iter_runs(args: argparse.Namespace, busy: list[float]) -> Iterator[int]:
    """Run numbers from 1; before each, wait for a quiet machine and note its busy cores."""
    for i in range(1, max(1, args.runs) + 1):
        busy.append(wait_quiet(args.wait_quiet) if args.wait_quiet > 0 else busy_cores(0.5))
        yield i


def target(
    name: str, measured: dict[str, Any], goal: float, unit: str, *, higher_is_better: bool = True
) -> dict[str, Any]:
    """One line of the targets table: the median against the goal, with the spread kept."""
    median = measured.get("median")
    ok = None if median is None else (median >= goal if higher_is_better else median <= goal)
    return {
        "name": name,
        "median": median,
        "min": measured.get("min"),
        "max": measured.get("max"),
        "runs": measured.get("runs"),
        "unit": unit,
        "goal": (">= " if higher_is_better else "<= ") + f"{goal:g}",
        "ok": ok,
    }


def print_targets(title: str, targets: Sequence[dict[str, Any]]) -> None:
    log(f"\n{title}")
    for t in targets:
        mark = "ok  " if t["ok"] else "MISS"
        log(
            f"  [{mark}] {t['name']:<44} {t['median']!s:>12} {t['unit']:<10} "
            f"(min {t['min']}, max {t['max']}; goal {t['goal']})"
        )


def run_main(
    name: str,
    doc: str | None,
    add_args: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], Any],
    argv: list[str] | None,
) -> int:
    """``python -m benchmarks.<name>``: parse the flags, run, exit 1 when a server failed."""
    parser = argparse.ArgumentParser(
        prog=f"python -m benchmarks.{name}",
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_args(parser)
    args = parser.parse_args(argv)
    try:
        run(args)
    except BenchError as exc:
        log(f"{name}: FAILED: {exc}")
        return 1
    return 0
