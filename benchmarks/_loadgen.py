"""The load generator: a separate process that drives one server over HTTP/1.1 keep-alive.

The parent benchmark passes a :class:`LoadSpec` as JSON (``--spec``) and reads one JSON result
from this process's standard output, so the client's CPU never competes with the
measuring process's bookkeeping. Two clients are available:

- ``raw``: plain asyncio streams, one request in flight per connection, bodies built once up
  front. This is the default because it costs the least CPU per request, so on a small machine
  it takes the least from the server under test.
- ``httpx``: ``httpx.AsyncClient`` with the same number of connections, kept to show how much a
  full client library costs (see the README for the measured difference).

Modes: ``produce`` sends ``records`` records in requests of ``batch`` records, rotating over
``partitions`` one request at a time; ``read`` fetches ``[read_starts, read_ends)`` of each
partition (start 0 by default) in ``max_records`` chunks, checking that every offset comes back
exactly once and in order. Every loop is bounded by the record count and by ``max_seconds``.

Run ``python -m benchmarks._loadgen --help`` for the spec's fields.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import dataclasses
import os
import random
import resource
import string
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson

Sender = Callable[[str, str, bytes | None], Awaitable[tuple[int, bytes]]]


@dataclasses.dataclass
class LoadSpec:
    """What one load generator run does. Every field has a JSON-friendly type."""

    port: int
    mode: str = "produce"  # "produce" | "read"
    host: str = "127.0.0.1"
    topic: str = "bench"
    partitions: list[int] = dataclasses.field(default_factory=lambda: [0])
    records: int = 200_000  # produce: records to send
    batch: int = 100  # produce: records per request
    explicit_partition: bool = True  # produce: each record names its partition (else sticky)
    value_bytes: int = 256
    value_encoding: str = "utf8"  # produce: "utf8" (random text) | "base64" (random bytes)
    concurrency: int = 16  # connections, one request in flight on each
    client: str = "raw"  # "raw" | "httpx"
    loop: str = "uvloop"  # "uvloop" | "asyncio"
    warmup_topic: str | None = None  # produce: where warm-up requests go (not counted)
    warmup_requests: int = 0
    read_starts: list[int] = dataclasses.field(default_factory=list)  # read: start per partition
    read_ends: list[int] = dataclasses.field(default_factory=list)  # read: end per partition
    max_records: int = 1000  # read: records per request
    max_bytes: int | None = None  # read: max_bytes query parameter (None: the server default)
    tolerate_errors: bool = False  # stop quietly on connection errors (used around kill -9)
    server_pid: int | None = None  # when set, the server's CPU use over the timed phase is reported
    max_seconds: float = 600.0

    @classmethod
    def from_json(cls, raw: bytes) -> LoadSpec:
        data = orjson.loads(raw)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown spec fields: {sorted(unknown)}")
        return cls(**data)

    def to_json(self) -> bytes:
        return orjson.dumps(dataclasses.asdict(self))


class RequestFailed(Exception):
    """A request answered with an unexpected status or body."""


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of a process (all its threads), from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # fields[0] is the state (field 3 of the file); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of a process and of all its descendants, from /proc.

    For a server made of several processes (one per connection, a shell that runs the virtual
    machine as its child): each live process of the tree counts its own user and system time
    (all its threads) plus that of its children it has already reaped (cutime and cstime), so
    that a connection's process that ended in the middle of a measurement is still counted, once.
    """
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(int(entry))
        if fields is not None:
            # fields[1] is the parent's pid (field 4 of the file)
            children.setdefault(int(fields[1]), []).append(int(entry))
    ticks = 0
    todo = [pid]
    while todo:
        current = todo.pop()
        fields = _stat_fields(current)
        if fields is None:
            continue
        # utime, stime, cutime and cstime: fields 14 to 17 of the file
        ticks += sum(int(x) for x in fields[11:15])
        todo.extend(children.get(current, ()))
    return ticks / os.sysconf("SC_CLK_TCK")


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0..100) of already sorted values."""
    if not sorted_values:
        return float("nan")
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


def latency_summary(latencies_ms: list[float]) -> dict[str, float]:
    ordered = sorted(latencies_ms)
    if not ordered:
        return {"p50": float("nan"), "p99": float("nan"), "max": float("nan"), "mean": float("nan")}
    return {
        "p50": round(percentile(ordered, 50), 3),
        "p90": round(percentile(ordered, 90), 3),
        "p99": round(percentile(ordered, 99), 3),
        "max": round(ordered[-1], 3),
        "mean": round(sum(ordered) / len(ordered), 3),
    }


# ---------------------------------------------------------------------------------------------
# Clients


class RawConnection:
    """One HTTP/1.1 keep-alive connection on asyncio streams; one request at a time."""

    def __init__(self, host: str, port: int, headers: dict[str, str] | None = None) -> None:
        self._host = host
        self._port = port
        # sent with every request (e.g. Authorization)
        self._extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self._host, self._port)
        return self._reader, self._writer

    async def request(
        self,
        method: str,
        target: str,
        body: bytes | None,
        content_type: str = "application/json",
    ) -> tuple[int, bytes]:
        reader, writer = await self._connect()
        head = f"{method} {target} HTTP/1.1\r\nHost: {self._host}:{self._port}\r\n{self._extra}"
        if body is not None:
            head += f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        writer.write((head + "\r\n").encode("ascii"))
        if body is not None:
            writer.write(body)
        raw_head = await reader.readuntil(b"\r\n\r\n")
        lines = raw_head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length = -1
        chunked = False
        close = False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        if chunked:
            payload = await self._read_chunked(reader)
        elif length >= 0:
            payload = await reader.readexactly(length)
        else:
            payload = await reader.read()
            close = True
        if close:
            await self.close()
        return status, payload

    @staticmethod
    async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip(), 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


# ---------------------------------------------------------------------------------------------
# Workloads


def _value(rng: random.Random, size: int) -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(rng.choices(alphabet, k=size))


def _binary_value(rng: random.Random, size: int) -> str:
    return base64.b64encode(rng.randbytes(size)).decode("ascii")


def _produce_body(
    rng: random.Random, partition: int | None, count: int, size: int, encoding: str = "utf8"
) -> bytes:
    """One produce body: ``count`` random values of ``size`` bytes, as text (``utf8``) or as
    random binary sent base64-encoded (``base64``)."""
    make = {"utf8": _value, "base64": _binary_value}[encoding]
    records: list[dict[str, Any]] = [{"value": make(rng, size)} for _ in range(count)]
    if partition is not None:
        for r in records:
            r["partition"] = partition
    return orjson.dumps({"records": records, "encoding": encoding})


class Run:
    """Shared counters of one load generator run."""

    def __init__(self, spec: LoadSpec) -> None:
        self.spec = spec
        self.latencies_ms: list[float] = []
        self.records = 0
        self.requests = 0
        self.errors = 0
        self.error_samples: list[str] = []
        self.deadline = time.monotonic() + spec.max_seconds
        self.timed_out = False
        self.last_offsets: dict[int, int] = {}
        self.t_start = 0.0
        self.t_end = 0.0
        self.cpu_start = (0.0, 0.0)  # (own CPU seconds, server CPU seconds)
        self.cpu_end = (0.0, 0.0)

    def _cpu(self) -> tuple[float, float]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        own = usage.ru_utime + usage.ru_stime
        return own, (process_cpu_seconds(self.spec.server_pid) if self.spec.server_pid else 0.0)

    def begin(self) -> None:
        """The timed phase starts: bodies are built and warm-up requests are done."""
        self.cpu_start = self._cpu()
        self.t_start = time.perf_counter()

    def end(self) -> None:
        self.t_end = time.perf_counter()
        self.cpu_end = self._cpu()

    def fail(self, message: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(message[:500])


async def _produce(spec: LoadSpec, run: Run, send: Sender) -> None:
    rng = random.Random(7)
    variants = 8
    full, rest = divmod(spec.records, spec.batch)
    named = spec.explicit_partition
    bodies = {
        p: [
            _produce_body(
                rng, p if named else None, spec.batch, spec.value_bytes, spec.value_encoding
            )
            for _ in range(variants)
        ]
        for p in spec.partitions
    }
    tail = {
        p: _produce_body(rng, p if named else None, rest, spec.value_bytes, spec.value_encoding)
        for p in spec.partitions
        if rest
    }
    jobs = [(i, spec.batch) for i in range(full)] + ([(full, rest)] if rest else [])
    path = f"/v1/topics/{spec.topic}/records"

    async def one(target: str, partition: int, body: bytes, count: int, timed: bool) -> None:
        started = time.perf_counter()
        status, payload = await send("POST", target, body)
        elapsed = (time.perf_counter() - started) * 1000.0
        if status != 200:
            raise RequestFailed(f"produce answered {status}: {payload[:300]!r}")
        offsets = orjson.loads(payload)["offsets"]
        if len(offsets) != count or (named and offsets[-1]["partition"] != partition):
            raise RequestFailed(f"produce answered {len(offsets)} offsets for {count} records")
        if timed:
            run.latencies_ms.append(elapsed)
            run.records += count
            run.requests += 1
            last, where = offsets[-1]["offset"], offsets[-1]["partition"]
            if last > run.last_offsets.get(where, -1):
                run.last_offsets[where] = last

    if spec.warmup_topic is not None and spec.warmup_requests > 0:
        body = bodies[spec.partitions[0]][0]
        for _ in range(spec.warmup_requests):
            await one(
                f"/v1/topics/{spec.warmup_topic}/records",
                spec.partitions[0],
                body,
                spec.batch,
                timed=False,
            )

    queue = iter(jobs)

    async def worker() -> None:
        for index, count in queue:
            if time.monotonic() > run.deadline:
                run.timed_out = True
                return
            p = spec.partitions[index % len(spec.partitions)]
            body = bodies[p][index % variants] if count == spec.batch else tail[p]
            await one(path, p, body, count, timed=True)

    await _run_workers(spec, run, worker)


async def _read(spec: LoadSpec, run: Run, send: Sender) -> None:
    if len(spec.read_ends) != len(spec.partitions):
        raise ValueError("read mode needs one entry of read_ends per partition")
    starts = spec.read_starts or [0] * len(spec.partitions)
    jobs = [
        (p, start, min(start + spec.max_records, end))
        for p, first, end in zip(spec.partitions, starts, spec.read_ends, strict=True)
        for start in range(first, end, spec.max_records)
    ]
    queue = iter(jobs)

    async def worker() -> None:
        for partition, start, end in queue:
            offset = start
            while offset < end:
                if time.monotonic() > run.deadline:
                    run.timed_out = True
                    return
                target = (
                    f"/v1/topics/{spec.topic}/partitions/{partition}/records"
                    f"?offset={offset}&max_records={end - offset}"
                )
                if spec.max_bytes is not None:
                    target += f"&max_bytes={spec.max_bytes}"
                started = time.perf_counter()
                status, payload = await send("GET", target, None)
                elapsed = (time.perf_counter() - started) * 1000.0
                if status != 200:
                    raise RequestFailed(f"read answered {status}: {payload[:300]!r}")
                answer = orjson.loads(payload)
                records = answer["records"]
                if not records or records[0]["offset"] != offset:
                    first = records[0]["offset"] if records else None
                    raise RequestFailed(
                        f"read at {offset} of partition {partition} returned first offset {first}"
                    )
                run.latencies_ms.append(elapsed)
                run.records += len(records)
                run.requests += 1
                offset = int(answer["next_offset"])

    await _run_workers(spec, run, worker)


async def _run_workers(spec: LoadSpec, run: Run, worker: Callable[[], Awaitable[None]]) -> None:
    """Run ``concurrency`` copies of ``worker``; this is the timed phase."""

    async def guarded() -> None:
        try:
            await worker()
        except (OSError, asyncio.IncompleteReadError, httpx.TransportError) as exc:
            run.fail(f"connection: {exc!r}")
            if not spec.tolerate_errors:
                raise
        except RequestFailed as exc:
            run.fail(str(exc))
            if not spec.tolerate_errors:
                raise

    run.begin()
    tasks = [asyncio.ensure_future(guarded()) for _ in range(spec.concurrency)]
    try:
        await asyncio.gather(*tasks)
    finally:
        run.end()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _main(spec: LoadSpec) -> dict[str, Any]:
    run = Run(spec)
    raw_pool: list[RawConnection] = []
    http: httpx.AsyncClient | None = None

    if spec.client == "raw":
        free: list[RawConnection] = [
            RawConnection(spec.host, spec.port) for _ in range(spec.concurrency)
        ]
        raw_pool.extend(free)

        async def send(method: str, target: str, body: bytes | None) -> tuple[int, bytes]:
            conn = free.pop()
            try:
                return await conn.request(method, target, body)
            except BaseException:
                await conn.close()
                raise
            finally:
                free.append(conn)

    elif spec.client == "httpx":
        limits = httpx.Limits(
            max_connections=spec.concurrency, max_keepalive_connections=spec.concurrency
        )
        http = httpx.AsyncClient(
            base_url=f"http://{spec.host}:{spec.port}", limits=limits, timeout=httpx.Timeout(60.0)
        )
        client = http

        async def send(method: str, target: str, body: bytes | None) -> tuple[int, bytes]:
            headers = {"content-type": "application/json"} if body is not None else None
            response = await client.request(method, target, content=body, headers=headers)
            return response.status_code, response.content

    else:
        raise ValueError(f"unknown client {spec.client!r}")

    try:
        if spec.mode == "produce":
            await _produce(spec, run, send)
        elif spec.mode == "read":
            await _read(spec, run, send)
        else:
            raise ValueError(f"unknown mode {spec.mode!r}")
    except (OSError, asyncio.IncompleteReadError, httpx.TransportError, RequestFailed):
        pass  # counted in run.errors
    finally:
        for conn in raw_pool:
            await conn.close()
        if http is not None:
            await http.aclose()
    elapsed = run.t_end - run.t_start

    def rate(amount: float, digits: int = 1) -> float:
        return round(amount / elapsed, digits) if elapsed > 0 else 0.0

    return {
        "mode": spec.mode,
        "client": spec.client,
        "concurrency": spec.concurrency,
        "records": run.records,
        "requests": run.requests,
        "elapsed_s": round(elapsed, 4),
        "records_per_s": rate(run.records),
        "requests_per_s": rate(run.requests),
        "latency_ms": latency_summary(run.latencies_ms),
        # CPU seconds per wall second over the timed phase: 1.0 is one core saturated.
        "loadgen_cpu": rate(run.cpu_end[0] - run.cpu_start[0], 3),
        "server_cpu": rate(run.cpu_end[1] - run.cpu_start[1], 3) if spec.server_pid else None,
        "errors": run.errors,
        "error_samples": run.error_samples,
        "timed_out": run.timed_out,
        "last_offsets": {str(p): o for p, o in sorted(run.last_offsets.items())},
    }


def main(argv: list[str] | None = None) -> int:
    fields = ", ".join(f.name for f in dataclasses.fields(LoadSpec))
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks._loadgen",
        description="Load generator process: takes a JSON LoadSpec, prints one JSON result on "
        f"stdout. Spec fields: {fields}.",
    )
    parser.add_argument("--spec", required=True, help="the LoadSpec as JSON; '-' reads stdin")
    args = parser.parse_args(argv)
    raw = sys.stdin.buffer.read() if args.spec == "-" else args.spec.encode()
    spec = LoadSpec.from_json(raw)
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if spec.loop == "uvloop":
        try:
            import uvloop

            loop_factory = uvloop.new_event_loop
        except ImportError:
            spec.loop = "asyncio"
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        result = runner.run(_main(spec))
    result["loop"] = spec.loop
    sys.stdout.buffer.write(orjson.dumps(result) + b"\n")
    sys.stdout.flush()
    failed = (result["errors"] and not spec.tolerate_errors) or result["timed_out"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
