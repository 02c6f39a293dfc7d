"""Loaded by the fuzzer (``SCHEMATHESIS_HOOKS``, set by benchmarks/fuzz.py): a record-batch body
is sent as the bytes the fuzzer made for its binary schema, as any octet stream is."""

from __future__ import annotations

import schemathesis

from app.api.wire.batches import REQUEST_MEDIA_TYPE

schemathesis.serializer.alias(REQUEST_MEDIA_TYPE, "application/octet-stream")
