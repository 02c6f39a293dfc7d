"""The Python client's own CPU per record produced, on its two wires: record batches (the
default) and JSON.

One server (fsync=always), one 1-partition topic per wire; ``AsyncProducer`` with
``max_batch=100`` sends ``--records`` (100,000) records of 256 random bytes, 100 ``send`` calls
then their futures awaited, each request when the previous answered, after 20 warm-up
requests. Measured over the timed phase: wall time, the client process's CPU (its own
``getrusage``: the producer's work, httpx and the event loop) and the server's, per record.
Then the producer's preparation alone, without I/O: ``send``'s record and the request's body
(the encoded batch, or the JSON written by the client's encoder) for the same records.

    python -m benchmarks.client_wire [--records 100000] [--out DIR]

Prints the figures as JSON; with ``--out`` also writes ``client_wire-<commit>.json`` there.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import orjson
from sluice._core import Wire

from benchmarks import _harness as h
from benchmarks import users as u

NAME = "client_wire"
BATCH = 100
VALUE_BYTES = 256
WARMUP = 20
WIRES: tuple[Wire, ...] = ("json", "batches")

Json = dict[str, Any]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _values(n: int) -> list[bytes]:
    return [os.urandom(VALUE_BYTES) for _ in range(n)]


async def produce(url: str, server_pid: int, wire: Wire, records: int) -> Json:
    """``records`` records through the async producer on ``wire``; the figures of the run."""
    import sluice

    pool = _values(997)
    async with sluice.AsyncSluice(url, wire=wire) as client:
        topic = f"bench-{wire}"
        await client.admin.create_topic(topic)
        await client.admin.create_topic(f"{topic}-warm")
        producer = client.producer(max_batch=BATCH, linger=0.005)

        async def batch(name: str, start: int) -> None:
            futures = [
                await producer.send(name, pool[(start + k) % len(pool)], partition=0)
                for k in range(BATCH)
            ]
            metas = [await f for f in futures]
            if [m.offset for m in metas] != list(range(metas[0].offset, metas[0].offset + BATCH)):
                raise h.BenchError("the producer answered offsets out of order")

        for i in range(WARMUP):
            await batch(f"{topic}-warm", i * BATCH)
        meter = u.Meter(server_pid)
        own0 = _cpu()
        meter.begin()
        for start in range(0, records, BATCH):
            await batch(topic, start)
        meter.end()
        own = _cpu() - own0
        await producer.aclose()
    return {**meter.report(records), "client_us_per_record": u.per_record_us(own, records)}


def preparation(wire: Wire, records: int) -> Json:
    """CPU per record of ``send``'s record and the request body, without I/O."""
    from sluice._batches import Batches
    from sluice._core import request_args

    pool = _values(997)
    batches = Batches(BATCH, wire)
    t0 = time.process_time()
    size = 0
    for start in range(0, records, BATCH):
        for k in range(BATCH):
            value = pool[(start + k) % len(pool)]
            batches.add("t", 0, batches.prepare(value, None, None, None), None)
        taken = batches.take()
        for call in batches.calls(7, 0, taken):
            size += len(request_args(call)["content"])
        batches.sent(taken[0])
    cpu = time.process_time() - t0
    return {"us_per_record": u.per_record_us(cpu, records), "bytes_per_record": size / records}


def run(args: argparse.Namespace) -> Json:
    records = args.records
    busy = h.busy_cores(0.5)
    results: Json = {"other_busy_cores_before": busy, "produce": {}, "preparation": {}}
    with h.Workdir(NAME, args.tmp, args.keep) as work:
        server = h.sluice_server(work.data, work.log("server"))
        server.start()
        try:
            server.wait_ready()
            for wire in WIRES:
                results["produce"][wire] = asyncio.run(
                    produce(server.base_url, server.pid, wire, records)
                )
                server.check_alive()
                if h.high_watermarks(server, f"bench-{wire}") != [records]:
                    raise h.BenchError(f"{wire}: the topic does not hold the records sent")
        finally:
            server.stop()
    for wire in WIRES:
        results["preparation"][wire] = preparation(wire, records)
    produced = results["produce"]
    results["client_cpu_ratio_batches_to_json"] = round(
        produced["batches"]["client_us_per_record"] / produced["json"]["client_us_per_record"], 3
    )
    print(orjson.dumps(results, option=orjson.OPT_INDENT_2).decode())
    if args.out is not None:
        params = {"records": records, "batch": BATCH, "value_bytes": VALUE_BYTES}
        h.log(f"written {h.write_result(NAME, params, results, args.out)}")
    return results


def add_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--records", type=int, default=100_000, help="records per wire")
    parser.add_argument("--tmp", default=None, help="parent of the temporary data dir")
    parser.add_argument("--keep", action="store_true", help="keep the data dir and server log")
    parser.add_argument("--out", type=Path, default=None, help="write the result JSON here")


def main(argv: list[str] | None = None) -> int:
    return h.run_main(NAME, __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
