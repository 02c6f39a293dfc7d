// The record batch codec without a server: the batch a native Kafka client wrote
// (tests/vectors/native_batch_plain.bin, described field by field in its .json) decoded and
// encoded again byte for byte, CRC-32C, varints at their edges, the envelope, and malformed
// batches refused.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  CorruptMessageError,
  UnsupportedCompressionTypeError,
  crc32c,
  decodeBatch,
  decodeBatches,
  encodeBatch,
  openEnvelope,
  readVarint,
  varintBytes,
} from "../src/index.js";

const vectors = new URL("../../../tests/vectors/", import.meta.url);
const native = new Uint8Array(readFileSync(new URL("native_batch_plain.bin", vectors)));
const described = JSON.parse(readFileSync(new URL("native_batch_plain.json", vectors), "utf8"));
const hex = (bytes) => Buffer.from(bytes).toString("hex");
const unhex = (text) => (text === null ? null : new Uint8Array(Buffer.from(text, "hex")));
const text = (s) => new TextEncoder().encode(s);

test("the native batch decodes to what its description says", () => {
  const [batch, ...rest] = decodeBatches(native);
  assert.equal(rest.length, 0);
  const d = described.batch;
  assert.equal(batch.end, d.length);
  for (const field of ["base_offset", "batch_length", "partition_leader_epoch", "magic", "crc", "attributes",
    "last_offset_delta", "base_timestamp", "max_timestamp", "producer_id", "producer_epoch", "base_sequence",
    "record_count"]) {
    const name = field.replace(/_(\w)/g, (_, c) => c.toUpperCase());
    assert.equal(batch[name], d[field], field);
  }
  assert.equal(batch.transactional, false);
  assert.equal(batch.control, false);
  assert.deepEqual(
    batch.records.map((r) => [r.offset, r.timestamp, r.key && hex(r.key), r.value && hex(r.value), r.headers.map(([k, v]) => [k, v && hex(v)])]),
    described.records.map((r) => [d.base_offset + r.offset_delta, r.timestamp, r.key, r.value, r.headers]),
  );
  assert.ok(batch.records[3].timestamp < d.base_timestamp); // a negative timestamp delta
});

test("its records encode to the same bytes, with the leader epoch the broker set", () => {
  const records = described.records.map((r) => ({
    timestamp: r.timestamp,
    key: unhex(r.key),
    value: unhex(r.value),
    headers: r.headers.map(([k, v]) => [k, unhex(v)]),
  }));
  const encoded = encodeBatch(records, { partitionLeaderEpoch: described.batch.partition_leader_epoch });
  assert.equal(hex(encoded), hex(native));
  // and what decoding gives back encodes the same again
  const [again] = decodeBatches(encoded);
  assert.equal(hex(encodeBatch(again.records, { partitionLeaderEpoch: 0 })), hex(native));
});

test("producer fields, the transactional bit, text headers and a timestamp beyond 2^53", () => {
  const records = [
    { timestamp: 2n ** 62n, key: null, value: text("v"), headers: [["clé 🔑", text("é")], ["none", null]] },
    { timestamp: 2n ** 62n - 5000n, key: new Uint8Array(0), value: null },
  ];
  const encoded = encodeBatch(records, { producerId: 2 ** 40 + 7, producerEpoch: 3, baseSequence: 2 ** 31 - 2, transactional: true });
  const batch = decodeBatch(encoded);
  assert.deepEqual(
    [batch.producerId, batch.producerEpoch, batch.baseSequence, batch.transactional, batch.attributes],
    [2 ** 40 + 7, 3, 2 ** 31 - 2, true, 0x10],
  );
  assert.deepEqual([batch.baseTimestamp, batch.maxTimestamp], [2n ** 62n, 2n ** 62n]);
  assert.deepEqual(batch.records[0].headers, [["clé 🔑", text("é")], ["none", null]]);
  assert.equal(batch.records[1].timestamp, 2n ** 62n - 5000n);
  assert.deepEqual(batch.records[1].key, new Uint8Array(0));
  assert.equal(batch.records[1].value, null);
  assert.throws(() => encodeBatch([]), RangeError);
  for (const wrong of [{ value: "text" }, { key: [1, 2] }, { headers: [["h", "text"]] }]) {
    assert.throws(() => encodeBatch([{ timestamp: 0, key: null, value: null, ...wrong }]), TypeError);
  }
});

test("CRC-32C: the check value of 123456789, and lengths around its eight-byte loop", () => {
  assert.equal(crc32c(text("123456789")), 0xe3069283);
  assert.equal(crc32c(new Uint8Array(0)), 0);
  assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa); // RFC 3720, B.4: 32 bytes of zeros
  assert.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43); // and of ones
  const ascending = Uint8Array.from({ length: 32 }, (_, i) => i);
  assert.equal(crc32c(ascending), 0x46dd794e);
  assert.equal(crc32c(native, 21), described.batch.crc); // the batch's, from its attributes on
  for (let n = 0; n < 20; n++) {
    // the same bytes at an offset: the loop's alignment does not change the result
    const shifted = new Uint8Array(n + 9);
    shifted.set(text("123456789"), n);
    assert.equal(crc32c(shifted, n), 0xe3069283);
  }
});

test("varints and varlongs at their edges", () => {
  const cases32 = [
    [0, "00"],
    [-1, "01"],
    [1, "02"],
    [63, "7e"],
    [-64, "7f"],
    [64, "8001"],
    [2 ** 31 - 1, "feffffff0f"],
    [-(2 ** 31), "ffffffff0f"],
  ];
  for (const [n, bytes] of cases32) {
    assert.equal(hex(varintBytes(n)), bytes, String(n));
    assert.deepEqual(readVarint(unhex(bytes)), [n, bytes.length / 2]);
  }
  assert.throws(() => varintBytes(2 ** 31), RangeError);
  const cases64 = [
    [0, "00"],
    [-1, "01"],
    [-200, "8f03"], // a timestamp delta below the base
    [1767225601501, "bab7d5edee66"], // a timestamp of 2026
    [2 ** 53 - 1, "feffffffffffff1f"],
    [-(2 ** 53) + 1, "fdffffffffffff1f"],
    [2n ** 62n, "80808080808080808001"],
    [2n ** 63n - 1n, "feffffffffffffffff01"],
    [-(2n ** 63n), "ffffffffffffffffff01"],
  ];
  for (const [n, bytes] of cases64) {
    assert.equal(hex(varintBytes(n, 64)), bytes, String(n));
    assert.deepEqual(readVarint(unhex(bytes), 64), [n, bytes.length / 2]);
  }
  assert.throws(() => varintBytes(2n ** 63n, 64), RangeError);
  // malformed: cut short, too long, beyond the type's bits
  for (const [bytes, bits] of [["80", 32], ["ffffffffff01", 32], ["ffffffff1f", 32], ["80", 64],
    ["ffffffffffffffffffff01", 64], ["ffffffffffffffffff02", 64]]) {
    assert.throws(() => readVarint(unhex(bytes), bits), CorruptMessageError, bytes);
  }
});

/** The native batch with `edit` applied, its CRC fixed again unless `keepCrc`. */
function altered(edit, { keepCrc = false } = {}) {
  const bytes = native.slice();
  const view = new DataView(bytes.buffer);
  edit(bytes, view);
  if (!keepCrc) view.setUint32(17, crc32c(bytes, 21));
  return bytes;
}

test("malformed batches are refused", () => {
  const refused = [
    ["a flipped bit", altered((b) => (b[100] ^= 1), { keepCrc: true }), /CRC-32C mismatch/],
    ["another magic", altered((b) => (b[16] = 1)), /magic 1/],
    ["cut short", native.subarray(0, native.length - 1), /truncated batch/],
    ["a header cut short", native.subarray(0, 60), /truncated header/],
    ["a batch length past the end", altered((b, v) => v.setInt32(8, v.getInt32(8) + 1)), /truncated batch/],
    ["a batch length below the header", altered((b, v) => v.setInt32(8, 10)), /batch length 10/],
    ["a record count below its records", altered((b, v) => v.setInt32(57, 3)), /bytes after the last record/],
    ["a record count above the last offset delta + 1", altered((b, v) => v.setInt32(57, v.getInt32(23) + 2)), /record count/],
    ["no records", altered((b, v) => (v.setInt32(57, 0), v.setInt32(23, -1))), /record count 0/],
    ["a negative base offset", altered((b, v) => v.setInt32(0, -1)), /base offset -/],
    ["a negative record length", altered((b) => (b[61] = 0x01)), /record 0: length -1/],
    ["a record length short of its fields", altered((b) => (b[61] -= 2)), /runs past its record/],
    ["a record length beyond its fields", altered((b) => (b[61] += 2)), /do not fill its length/],
    ["a key length past its record", altered((b) => (b[65] = 0x7e)), /runs past its record/],
    ["an offset delta out of order", altered((b) => (b[64] = 2)), /offset delta 1/],
    ["a header key that is not UTF-8", altered((b) => (b[0x56] = 0xff)), /not UTF-8/], // in "trace"
    [
      "bytes after the last record",
      (() => {
        const longer = new Uint8Array(native.length + 1);
        longer.set(native);
        const view = new DataView(longer.buffer);
        view.setInt32(8, view.getInt32(8) + 1);
        view.setUint32(17, crc32c(longer, 21));
        return longer;
      })(),
      /1 bytes after the last record/,
    ],
  ];
  for (const [why, bytes, reason] of refused) {
    assert.throws(() => decodeBatches(bytes), (e) => e instanceof CorruptMessageError && reason.test(e.message), why);
  }
  const compressed = altered((b, v) => v.setInt16(21, 1)); // gzip
  assert.throws(() => decodeBatches(compressed), UnsupportedCompressionTypeError);
});

test("a batch that compaction thinned is read: its last offset beyond its records, or no records", () => {
  const whole = decodeBatch(native);
  const thinned = decodeBatch(altered((b, v) => v.setInt32(23, whole.lastOffsetDelta + 5)));
  assert.deepEqual(thinned.records, whole.records);
  assert.equal(thinned.lastOffsetDelta, whole.lastOffsetDelta + 5);
  // a producer's last batch, kept empty for its sequence: the header alone
  const empty = native.slice(0, 61);
  const view = new DataView(empty.buffer);
  view.setInt32(8, 61 - 12);
  view.setInt32(57, 0);
  view.setUint32(17, crc32c(empty, 21));
  assert.deepEqual(decodeBatch(empty).records, []);
  // an offset delta past the batch's last is still refused
  const past = altered((b, v) => v.setInt32(23, whole.recordCount - 2));
  assert.throws(() => decodeBatch(past), CorruptMessageError);
});

/** An envelope of `batches` under `head`, as the server writes one. */
function envelope(head, batches) {
  const json = text(JSON.stringify(head));
  const pad = (8 - (json.length % 8)) % 8;
  const size = 16 + json.length + pad + batches.reduce((n, b) => n + b.length, 0);
  const out = new Uint8Array(size);
  out.set(text("SLRB"), 0);
  out[4] = 1;
  new DataView(out.buffer).setUint32(8, json.length, true);
  out.set(json, 16);
  let at = 16 + json.length + pad;
  for (const b of batches) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

test("the envelope: its head and batches; malformed ones refused", () => {
  const second = encodeBatch([{ timestamp: 1, key: null, value: text("x") }], { baseOffset: 4 });
  const { head, batches } = openEnvelope(envelope({ next_offset: 5, batches: 2 }, [native, second]));
  assert.equal(head.next_offset, 5);
  assert.deepEqual(batches.map((b) => b.baseOffset), [0, 4]);
  assert.deepEqual(batches[1].records.map((r) => r.offset), [4]);
  const share = { partitions: [{ topic: "t", partition: 0, batches: 1, acquired: [] }] };
  assert.equal(openEnvelope(envelope(share, [native])).batches.length, 1);
  assert.deepEqual(openEnvelope(envelope({ batches: 0 }, [])).batches, []);
  const good = envelope({ batches: 1 }, [native]);
  const bad = {
    "another magic": (() => {
      const b = good.slice();
      b[3] = 0x43;
      return b;
    })(),
    "another version": (() => {
      const b = good.slice();
      b[4] = 2;
      return b;
    })(),
    "a head past the end": (() => {
      const b = good.slice();
      new DataView(b.buffer).setUint32(8, 1 << 20, true);
      return b;
    })(),
    "a head that is not JSON": envelope({ batches: 1 }, [native]).fill(0x20, 16, 20),
    "fewer batches than the head says": envelope({ batches: 2 }, [native]),
    "more than the partitions say": envelope(share, [native, second]),
    "a batch cut short": good.subarray(0, good.length - 3),
    "shorter than a head": good.subarray(0, 12),
  };
  for (const [why, bytes] of Object.entries(bad)) assert.throws(() => openEnvelope(bytes), CorruptMessageError, why);
});
