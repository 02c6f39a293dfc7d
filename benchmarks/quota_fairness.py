"""Quota fairness: does a flood from one principal starve another, with and without a quota?

Two principals, each with its own API key (``python -m app keys create``), produce to a
server of their own (fsync=always, one fresh server and data dir per scenario):

- **B**, the steady one: one connection, ``--b-rate`` requests a second (10 records of 256 B
  each) on a fixed schedule (a late request is sent at once, never in a burst to catch up);
  no quota.
- **A**, the flood: ``--a-clients`` connections, each sending 100 records of 256 B as fast as
  it is answered; a 429 is waited out for its ``throttle_time_ms`` (as a client honouring the
  answer does) and counted.

Scenarios: *a_idle* (B alone), *a_flood* (A floods without a quota), *a_flood_quota* (A
floods with ``producer_byte_rate`` = ``--quota``, set with ``python -m app quotas set`` before
the server starts). Reported per scenario: B's records/s and request latency (p50, p99, max),
B's 429s (must be 0); A's accepted bytes/s over the whole run and after the first
``--settle`` seconds (once the burst a quota allows after idleness is spent), against the
quota; A's 429s; the server's throttle counters from ``/metrics``.

The clients run in a process of their own (``--client-spec``, raw HTTP/1.1 keep-alive
connections, no client library). Results go to ``benchmarks/results/quota_fairness-<commit>.json``.

    python -m benchmarks.quota_fairness [--runs 1] [--seconds 35] [--quota 1048576] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
from prometheus_client.parser import text_string_to_metric_families

from benchmarks import _harness as h
from benchmarks._loadgen import RawConnection, _produce_body, latency_summary

NAME = "quota_fairness"
SCENARIOS = ("a_idle", "a_flood", "a_flood_quota")
Json = dict[str, Any]


# -- the clients (their own process) ----------------------------------------------------------


async def _request(conn: RawConnection, target: str, body: bytes) -> tuple[int, bytes]:
    """POST on a keep-alive connection; once more on a new connection when the server closed
    the idle one (uvicorn closes a connection idle for 5 s: a client waiting out a throttle
    time may find its connection closed)."""
    try:
        return await conn.request("POST", target, body)
    except (asyncio.IncompleteReadError, ConnectionError):
        await conn.close()
        return await conn.request("POST", target, body)


async def _steady(spec: Json, t_end: float, out: Json) -> None:
    """B: one request every 1/b_rate s on a fixed schedule."""
    conn = RawConnection("127.0.0.1", spec["port"], {"Authorization": f"Bearer {spec['key_b']}"})
    body = _produce_body(random.Random(2), 0, spec["b_batch"], spec["value_bytes"])
    interval = 1 / spec["b_rate"]
    latencies: list[float] = []
    next_at = time.perf_counter()
    try:
        while (now := time.perf_counter()) < t_end:
            if next_at > now:
                await asyncio.sleep(next_at - now)
            started = time.perf_counter()
            status, payload = await _request(conn, "/v1/topics/b/records", body)
            if status == 200:
                latencies.append((time.perf_counter() - started) * 1000)
                out["records"] += spec["b_batch"]
            elif status == 429:
                out["throttled"] += 1
            else:
                out["errors"].append(f"{status} {payload[:200]!r}")
            next_at = max(next_at + interval, time.perf_counter() - interval)
    finally:
        await conn.close()
    out["latencies_ms"] = latencies


async def _flood(spec: Json, seed: int, t_start: float, t_end: float, out: Json) -> None:
    """A: one connection's requests, back to back; a 429 is waited out."""
    conn = RawConnection("127.0.0.1", spec["port"], {"Authorization": f"Bearer {spec['key_a']}"})
    body = _produce_body(random.Random(seed), 0, spec["a_batch"], spec["value_bytes"])
    try:
        while time.perf_counter() < t_end:
            status, payload = await _request(conn, "/v1/topics/a/records", body)
            if status == 200:
                out["accepted"].append((time.perf_counter() - t_start, len(body)))
            elif status == 429:
                out["throttled"] += 1
                wait_ms = orjson.loads(payload)["error"]["throttle_time_ms"]
                await asyncio.sleep(min(wait_ms / 1000, max(0.0, t_end - time.perf_counter())))
            else:
                out["errors"].append(f"{status} {payload[:200]!r}")
                return
    finally:
        await conn.close()


async def _clients(spec: Json) -> Json:
    t_start = time.perf_counter()
    t_end = t_start + spec["seconds"]
    b: Json = {"records": 0, "throttled": 0, "errors": []}
    a: Json = {"accepted": [], "throttled": 0, "errors": []}
    await asyncio.gather(
        _steady(spec, t_end, b),
        *(_flood(spec, 10 + i, t_start, t_end, a) for i in range(spec["a_clients"])),
    )
    seconds = time.perf_counter() - t_start
    settle = spec["settle"]
    late = [n for t, n in a["accepted"] if t >= settle]
    return {
        "seconds": round(seconds, 3),
        "b": {
            "records_per_s": round(b["records"] / seconds, 1),
            "requests": len(b["latencies_ms"]),
            "latency_ms": latency_summary(b["latencies_ms"]),
            "throttled": b["throttled"],
            "errors": b["errors"][:5],
        },
        "a": {
            "bytes_per_s": round(sum(n for _, n in a["accepted"]) / seconds, 1),
            "bytes_per_s_after_settle": (
                round(sum(late) / (seconds - settle), 1) if seconds > settle else None
            ),
            "requests": len(a["accepted"]),
            "throttled": a["throttled"],
            "errors": a["errors"][:5],
        },
    }


def client_process(spec: Json) -> Json:
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(_clients(spec))


# -- the parent --------------------------------------------------------------------------------


def _app(data: Path, *argv: str) -> str:
    """``python -m app …`` on ``data``; its standard output."""
    done = subprocess.run(
        [sys.executable, "-m", "app", *argv, "--data-dir", str(data)],
        cwd=h.REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise h.BenchError(f"python -m app {' '.join(argv)}: {done.stderr.strip()[-500:]}")
    return done.stdout


def create_key(data: Path, principal: str) -> str:
    """A new API key of ``principal`` (the last word ``keys create`` prints)."""
    words = _app(data, "keys", "create", "--principal", principal).split()
    if not words:
        raise h.BenchError("keys create printed no key")
    return words[-1]


def throttle_counters(metrics: str) -> dict[str, float]:
    """``sluice_quota_throttled_requests_total`` per principal (kind produce)."""
    return {
        s.labels["principal"]: s.value
        for family in text_string_to_metric_families(metrics)
        for s in family.samples
        if s.name == "sluice_quota_throttled_requests_total" and s.labels["kind"] == "produce"
    }


def measure(args: argparse.Namespace, scenario: str) -> Json:
    with h.Workdir(f"quota-{scenario}", args.tmp, args.keep) as wd:
        wd.data.mkdir(parents=True)
        key_a = create_key(wd.data, "A")
        key_b = create_key(wd.data, "B")
        if scenario == "a_flood_quota":
            _app(
                wd.data,
                "quotas",
                "set",
                "--principal",
                "A",
                "--producer-byte-rate",
                str(args.quota),
            )
        server = h.sluice_server(wd.data, wd.log("server"), python=h.server_python(args))
        with server:
            server.wait_ready()
            with httpx.Client(
                base_url=server.base_url,
                timeout=30,
                headers={"Authorization": f"Bearer {key_b}"},
            ) as c:
                for topic in ("a", "b"):
                    r = c.post("/v1/topics", json={"name": topic, "partitions": 1})
                    if r.status_code != 201:
                        raise h.BenchError(f"creating topic {topic}: {r.status_code} {r.text}")
                spec = {
                    "port": server.port,
                    "key_a": key_a,
                    "key_b": key_b,
                    "seconds": args.seconds,
                    "settle": args.settle,
                    "a_clients": 0 if scenario == "a_idle" else args.a_clients,
                    "a_batch": 100,
                    "b_batch": 10,
                    "b_rate": args.b_rate,
                    "value_bytes": 256,
                }
                out = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "benchmarks.quota_fairness",
                        "--client-spec",
                        orjson.dumps(spec).decode(),
                    ],
                    cwd=h.REPO_ROOT,
                    capture_output=True,
                    timeout=args.seconds + 120,
                    check=False,
                )
                server.check_alive()
                if not out.stdout.strip():
                    raise h.BenchError(
                        f"client failed: {out.stderr.decode(errors='replace')[-2000:]}"
                    )
                result: Json = orjson.loads(out.stdout)
                result["server_throttled"] = throttle_counters(c.get("/metrics").text)
            result["stop_s"] = round(server.stop(), 3)
    for who in ("a", "b"):
        if result[who]["errors"]:
            raise h.BenchError(f"{scenario}: {who} saw errors: {result[who]['errors']}")
    if result["b"]["throttled"]:
        raise h.BenchError(f"{scenario}: B, without a quota, was throttled")
    return result


def _line(scenario: str, r: Json) -> str:
    b, a = r["b"], r["a"]
    lat = b["latency_ms"]
    return (
        f"  {scenario:<14} B {b['records_per_s']:>8,.0f} records/s, p50 {lat['p50']} ms, "
        f"p99 {lat['p99']} ms, max {lat['max']} ms | A {a['bytes_per_s'] / h.MiB:.2f} MiB/s "
        f"({(a['bytes_per_s_after_settle'] or 0) / h.MiB:.2f} after settling), "
        f"{a['throttled']} throttled"
    )


def run(args: argparse.Namespace) -> Json:
    if args.quick:
        args.runs, args.seconds, args.settle = 1, 8, 4
    raw: dict[str, list[Json]] = {s: [] for s in SCENARIOS}
    busy: list[float] = []
    for i in h.iter_runs(args, busy):
        h.log(f"[quota_fairness] run {i}/{args.runs}: {args.seconds} s per scenario")
        for scenario in SCENARIOS:
            raw[scenario].append(measure(args, scenario))
            h.log(_line(scenario, raw[scenario][-1]))
    summary: Json = {"other_busy_cores_before_runs": busy, "quota_bytes_per_s": args.quota}
    for scenario, runs in raw.items():
        summary[scenario] = {
            "b_records_per_s": h.spread([r["b"]["records_per_s"] for r in runs]),
            "b_latency_ms_p50": h.spread([r["b"]["latency_ms"]["p50"] for r in runs]),
            "b_latency_ms_p99": h.spread([r["b"]["latency_ms"]["p99"] for r in runs]),
            "a_bytes_per_s": h.spread([r["a"]["bytes_per_s"] for r in runs]),
            "a_bytes_per_s_after_settle": h.spread(
                [r["a"]["bytes_per_s_after_settle"] or 0 for r in runs]
            ),
            "a_throttled": h.spread([r["a"]["throttled"] for r in runs]),
        }
    quota = summary["a_flood_quota"]
    quota["a_rate_to_quota_after_settle"] = h.spread(
        [(r["a"]["bytes_per_s_after_settle"] or 0) / args.quota for r in raw["a_flood_quota"]]
    )
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    path = h.write_result(NAME, params, {"summary": summary, "raw": raw}, args.out)
    h.log(f"\nquota_fairness ({path})")
    for scenario in SCENARIOS:
        s = summary[scenario]
        h.log(
            f"  {scenario:<14} B {s['b_records_per_s']['median']} records/s, "
            f"p50 {s['b_latency_ms_p50']['median']} ms, p99 {s['b_latency_ms_p99']['median']} ms;"
            f" A {s['a_bytes_per_s']['median']} B/s "
            f"({s['a_bytes_per_s_after_settle']['median']} after settling)"
        )
    h.log(f"  A after settling / quota: {quota['a_rate_to_quota_after_settle']['median']}")
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser, runs=1)
    parser.add_argument("--seconds", type=float, default=35.0, help="per scenario (default 35)")
    parser.add_argument(
        "--settle",
        type=float,
        default=12.0,
        help="A's steady rate is measured after this many seconds (default 12: the burst a "
        "quota allows after idleness, about 10 s of it, is spent by then)",
    )
    parser.add_argument("--quota", type=int, default=1_048_576, help="A's producer_byte_rate")
    parser.add_argument("--a-clients", type=int, default=8, help="A's connections (default 8)")
    parser.add_argument("--b-rate", type=float, default=50.0, help="B's requests/s (default 50)")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--client-spec"]:
        sys.stdout.buffer.write(orjson.dumps(client_process(orjson.loads(argv[1]))) + b"\n")
        return 0
    return h.run_main(NAME, __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
