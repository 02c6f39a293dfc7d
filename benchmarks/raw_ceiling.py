"""The yardstick: a bare FastAPI app that does the least a produce endpoint can do.

``POST /v1/topics/{topic}/records`` reads the body, parses it once with orjson, turns every
key and value into the bytes a server would store (UTF-8 encoding of text, a strict base64
decode for ``"encoding": "base64"``, the compact serialisation for ``json``; the request's
encoding or the record's own) and answers one offset per record in the same shape as Sluice
(``{"offsets": [{"partition", "offset", "timestamp"}]}``); nothing is stored. A value that is
not valid base64 is answered 400, as Sluice does, so the decode cannot be skipped.
``GET /v1/topics/{topic}/partitions/{p}/records`` answers ``max_records`` made-up 256-byte
records in the read shape, the same idea for reads.

It runs exactly like the server: uvicorn, one worker, uvloop and httptools, no access log.
The benchmarks start it with ``python -m benchmarks.raw_ceiling --port PORT`` and load it with
the same load generator in the same run, so the ratio server / ceiling says how much of the
machine's HTTP budget the server's own work costs.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import itertools
import sys
import time
from typing import Any

import orjson
import uvicorn
from fastapi import FastAPI, Request
from starlette.responses import Response

app = FastAPI(title="raw ceiling", openapi_url=None, docs_url=None, redoc_url=None)
_offsets = itertools.count()
_VALUE = "v" * 256


@app.get("/readyz")
async def readyz() -> Response:
    return Response(b'{"status":"ready"}', media_type="application/json")


def to_bytes(value: Any, encoding: str) -> bytes | None:
    """What a server must do to every key and value before storing it."""
    if value is None:
        return None
    if encoding == "base64":
        return base64.b64decode(value, validate=True)
    if encoding == "json":
        return orjson.dumps(value)
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value.encode()


@app.post("/v1/topics/{topic}/records")
async def produce(topic: str, request: Request) -> Response:
    body = orjson.loads(await request.body())
    records = body["records"]
    encoding = body.get("encoding", "utf8")
    try:
        for r in records:
            enc = r.get("encoding", encoding)
            to_bytes(r.get("key"), enc)
            to_bytes(r.get("value"), enc)
    except (binascii.Error, TypeError, ValueError):
        return Response(b'{"error":{"code":"INVALID_REQUEST"}}', status_code=400)
    now = int(time.time() * 1000)
    base = next(_offsets)
    answer = {
        "offsets": [
            {"partition": r.get("partition", 0), "offset": base + i, "timestamp": now}
            for i, r in enumerate(records)
        ]
    }
    return Response(orjson.dumps(answer), media_type="application/json")


@app.get("/v1/topics/{topic}/partitions/{partition}/records")
async def read(topic: str, partition: int, offset: int = 0, max_records: int = 500) -> Response:
    now = int(time.time() * 1000)
    records: list[dict[str, Any]] = [
        {
            "topic": topic,
            "partition": partition,
            "offset": offset + i,
            "key": None,
            "value": _VALUE,
            "headers": [],
            "timestamp": now,
        }
        for i in range(min(max_records, 10_000))
    ]
    end = offset + len(records)
    answer = {
        "records": records,
        "next_offset": end,
        "high_watermark": end,
        "last_stable_offset": end,
        "log_start_offset": 0,
    }
    return Response(orjson.dumps(answer), media_type="application/json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.raw_ceiling",
        description="Serve the bare FastAPI yardstick (one worker, uvloop, httptools).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8090)
    args = parser.parse_args(argv)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        loop="uvloop",
        http="httptools",
        workers=1,
        access_log=False,
        log_level="warning",
        lifespan="off",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
