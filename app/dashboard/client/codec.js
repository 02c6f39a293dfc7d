// Kafka's record batches (RecordBatch v2, magic 2) and the envelope the server answers them in
// (docs/api.md, "Record batches"): encode, decode with every check a broker makes of the
// framing, and CRC-32C. No dependencies: the same code runs in browsers and Node.
//
// A batch, big-endian:
//
//   base_offset int64, batch_length int32 (bytes after it), partition_leader_epoch int32,
//   magic int8 (2), crc uint32 (CRC-32C of everything after it), attributes int16 (bits 0-2
//   compression, 3 timestamp type, 4 transactional, 5 control), last_offset_delta int32,
//   base_timestamp int64, max_timestamp int64, producer_id int64, producer_epoch int16,
//   base_sequence int32, record_count int32, then the records.
//
// A record: length (varint, the bytes after it), attributes (int8), timestamp delta (varlong),
// offset delta (varint), key length (varint, -1 for null) and key, value likewise, header
// count (varint), and each header: key length and UTF-8 key, value length (-1 null) and value.
// Varints are zigzag-encoded, seven bits a byte, least significant first.
//
// Numbers: 64-bit fields (offsets, timestamps, producer ids) decode to numbers while they fit
// in 2^53 (always, in practice) and to BigInt beyond; the encoder takes either.

import { CorruptMessageError, UnsupportedCompressionTypeError } from "./errors.js";

export const MAGIC = 2;
export const HEADER_SIZE = 61;
const LOG_OVERHEAD = 12; // base_offset and batch_length: not counted in batch_length
const CRC_AT = 17;
const ATTRIBUTES_AT = 21; // where the CRC starts
const MAX_BATCH_BYTES = 1 << 30;
export const COMPRESSION_MASK = 0x07;
export const TIMESTAMP_TYPE_FLAG = 0x08;
export const TRANSACTIONAL_FLAG = 0x10;
export const CONTROL_FLAG = 0x20;

/** The media type of a produce body of batches, and of an answer of batches (an envelope). */
export const RECORD_BATCH_MEDIA_TYPE = "application/vnd.sluice.record-batch";
export const BATCHES_MEDIA_TYPE = "application/vnd.sluice.batches";
const ENVELOPE_MAGIC = [0x53, 0x4c, 0x52, 0x42, 1, 0, 0, 0]; // "SLRB", version 1, reserved

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });
const TWO_32 = 4294967296;

// -- CRC-32C ----------------------------------------------------------------------------------

// Castagnoli's polynomial, reflected; eight tables so that the loop takes eight bytes a turn
const CRC_TABLES = (() => {
  const t = new Int32Array(256 * 8);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    for (let s = 1; s < 8; s++) {
      const prev = t[(s - 1) * 256 + i];
      t[s * 256 + i] = (prev >>> 8) ^ t[prev & 0xff];
    }
  }
  return Array.from({ length: 8 }, (_, s) => t.subarray(s * 256, s * 256 + 256));
})();

/** The CRC-32C of `bytes[start, end)`, as an unsigned 32-bit number. */
export function crc32c(bytes, start = 0, end = bytes.length) {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = CRC_TABLES;
  let crc = -1;
  let i = start;
  for (const stop = end - 8; i <= stop; i += 8) {
    const a = crc ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    crc =
      t7[a & 0xff] ^
      t6[(a >>> 8) & 0xff] ^
      t5[(a >>> 16) & 0xff] ^
      t4[a >>> 24] ^
      t3[bytes[i + 4]] ^
      t2[bytes[i + 5]] ^
      t1[bytes[i + 6]] ^
      t0[bytes[i + 7]];
  }
  for (; i < end; i++) crc = t0[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

// -- varints ----------------------------------------------------------------------------------

/** Bytes of an unsigned 32-bit value as a varint. */
function uvarintSize(z) {
  return z < 0x80 ? 1 : z < 0x4000 ? 2 : z < 0x200000 ? 3 : z < 0x10000000 ? 4 : 5;
}

/** Write a signed 32-bit value (zigzag) at `pos`; answers the position after it. */
function writeVarint(buf, pos, n) {
  let z = ((n << 1) ^ (n >> 31)) >>> 0;
  while (z > 0x7f) {
    buf[pos++] = (z & 0x7f) | 0x80;
    z >>>= 7;
  }
  buf[pos++] = z;
  return pos;
}

const zigzag32 = (n) => ((n << 1) ^ (n >> 31)) >>> 0;
const isInt32 = (n) => typeof n === "number" && (n | 0) === n;

/** The zigzag form of a signed 64-bit value: a number while it is exact, else a BigInt. */
function zigzag64(n) {
  if (typeof n === "number" && Number.isSafeInteger(n) && Math.abs(n) < 2 ** 51) {
    return n >= 0 ? n * 2 : -n * 2 - 1;
  }
  const b = BigInt(n);
  if (b < -(1n << 63n) || b >= 1n << 63n) throw new RangeError(`${n} does not fit in 64 bits`);
  return b >= 0n ? b << 1n : ((-b) << 1n) - 1n;
}

function varlongSize(z) {
  if (typeof z === "number") {
    if (z < 0x10000000) return uvarintSize(z);
    let size = 1;
    while (z >= 128) {
      z = Math.floor(z / 128);
      size += 1;
    }
    return size;
  }
  let size = 1;
  while (z >= 128n) {
    z >>= 7n;
    size += 1;
  }
  return size;
}

function writeZigzag64(buf, pos, z) {
  if (typeof z === "number") {
    if (z <= 0x7fffffff) {
      while (z > 0x7f) {
        buf[pos++] = (z & 0x7f) | 0x80;
        z >>>= 7;
      }
      buf[pos++] = z;
      return pos;
    }
    while (z >= 128) {
      buf[pos++] = (z % 128) | 0x80;
      z = Math.floor(z / 128);
    }
    buf[pos++] = z;
    return pos;
  }
  while (z >= 128n) {
    buf[pos++] = Number(z & 0x7fn) | 0x80;
    z >>= 7n;
  }
  buf[pos++] = Number(z);
  return pos;
}

/** The bytes of `n` as Kafka writes a varint (`bits` 32) or a varlong (`bits` 64). */
export function varintBytes(n, bits = 32) {
  if (bits === 32) {
    if (!isInt32(n)) throw new RangeError(`${n} is not a 32-bit integer`);
    const out = new Uint8Array(uvarintSize(zigzag32(n)));
    writeVarint(out, 0, n);
    return out;
  }
  const z = zigzag64(n);
  const out = new Uint8Array(varlongSize(z));
  writeZigzag64(out, 0, z);
  return out;
}

/** Reads the fields of one batch's records; every read is bounded by `end`. */
class Reader {
  constructor(buf, pos, end, at) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.at = at; // the batch's position, for messages
  }

  fail(what) {
    return new CorruptMessageError(`record batch at byte ${this.at}: ${what}`);
  }

  varint() {
    const buf = this.buf;
    let pos = this.pos;
    if (pos >= this.end) throw this.fail("truncated varint");
    let b = buf[pos++];
    let z = b & 0x7f;
    if (b & 0x80) {
      for (let shift = 7; ; shift += 7) {
        if (pos >= this.end) throw this.fail("truncated varint");
        if (shift > 28) throw this.fail("varint longer than 5 bytes");
        b = buf[pos++];
        if (shift === 28 && b > 0x0f) throw this.fail("varint beyond 32 bits");
        z |= (b & 0x7f) << shift;
        if (!(b & 0x80)) break;
      }
      z >>>= 0;
    }
    this.pos = pos;
    return (z >>> 1) ^ -(z & 1);
  }

  varlong() {
    const buf = this.buf;
    let pos = this.pos;
    let z = 0;
    let shift = 0;
    for (;;) {
      if (pos >= this.end) throw this.fail("truncated varlong");
      const b = buf[pos++];
      if (shift < 28) {
        z |= (b & 0x7f) << shift;
        if (!(b & 0x80)) {
          this.pos = pos;
          return (z >>> 1) ^ -(z & 1); // 28 bits at most: the common case
        }
      } else if (shift < 49) {
        z = (shift === 28 ? z >>> 0 : z) + (b & 0x7f) * 2 ** shift;
        if (!(b & 0x80)) {
          this.pos = pos;
          return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
        }
      } else {
        this.pos = pos - 1;
        return this.bigVarlong(BigInt(z), shift);
      }
      shift += 7;
    }
  }

  /** The rest of a varlong beyond 49 bits (timestamps past the year 10,000), exactly. */
  bigVarlong(z, shift) {
    let pos = this.pos;
    for (;;) {
      if (pos >= this.end) throw this.fail("truncated varlong");
      if (shift > 63) throw this.fail("varlong longer than 10 bytes");
      const b = this.buf[pos++];
      if (shift === 63 && b > 1) throw this.fail("varlong beyond 64 bits");
      z |= BigInt(b & 0x7f) << BigInt(shift);
      if (!(b & 0x80)) break;
      shift += 7;
    }
    this.pos = pos;
    return narrow((z >> 1n) ^ -(z & 1n));
  }

  bytes(n) {
    if (n === -1) return null;
    if (n < -1 || n > this.end - this.pos) throw this.fail(n < -1 ? `length ${n}` : "a field runs past its record");
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  text(n) {
    if (n < 0 || n > this.end - this.pos) throw this.fail(n < 0 ? `header key length ${n}` : "a header key runs past its record");
    const buf = this.buf;
    const start = this.pos;
    this.pos += n;
    if (n <= 32) {
      // short ASCII keys, the common case, without the decoder's call overhead
      let s = "";
      for (let i = start; i < start + n; i++) {
        const c = buf[i];
        if (c > 0x7f) return this.utf8(start, n);
        s += String.fromCharCode(c);
      }
      return s;
    }
    return this.utf8(start, n);
  }

  utf8(start, n) {
    try {
      return strictDecoder.decode(this.buf.subarray(start, start + n));
    } catch {
      throw this.fail("a header key is not UTF-8");
    }
  }
}

/**
 * The varint (`bits` 32) or varlong (`bits` 64) at `pos` of `bytes`, and how many bytes it
 * took: [value, length]. A varlong beyond 2^53 comes as a BigInt.
 */
export function readVarint(bytes, bits = 32, pos = 0) {
  const reader = new Reader(bytes, pos, bytes.length, pos);
  const value = bits === 32 ? reader.varint() : reader.varlong();
  return [value, reader.pos - pos];
}

/** A 64-bit value as a number while exact, else as a BigInt. */
function narrow(b) {
  return b >= -(2n ** 53n) && b <= 2n ** 53n ? Number(b) : b;
}

function readInt64(view, at) {
  const hi = view.getInt32(at);
  if (hi >= -0x200000 && hi < 0x200000) return hi * TWO_32 + view.getUint32(at + 4);
  return view.getBigInt64(at);
}

function writeInt64(view, at, n) {
  if (typeof n === "number" && Number.isSafeInteger(n)) {
    const hi = Math.floor(n / TWO_32);
    view.setInt32(at, hi);
    view.setUint32(at + 4, n - hi * TWO_32);
  } else {
    view.setBigInt64(at, BigInt(n));
  }
}

function add64(a, b) {
  if (typeof a === "number" && typeof b === "number") {
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return narrow(BigInt(a) + BigInt(b));
}

function sub64(a, b) {
  if (typeof a === "number" && typeof b === "number") {
    const d = a - b;
    if (Number.isSafeInteger(d) && Number.isSafeInteger(a) && Number.isSafeInteger(b)) return d;
  }
  return narrow(BigInt(a) - BigInt(b));
}

// -- UTF-8 of header keys ---------------------------------------------------------------------

/** Bytes of `s` in UTF-8, as TextEncoder writes it (a lone surrogate becomes U+FFFD). */
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: 4 bytes for 2 code units
      i += 1;
    } else n += 2;
  }
  return n;
}

function writeText(buf, pos, s, length) {
  if (length === s.length) {
    for (let i = 0; i < length; i++) buf[pos + i] = s.charCodeAt(i);
  } else {
    encoder.encodeInto(s, buf.subarray(pos, pos + length));
  }
  return pos + length;
}

// -- encoding ---------------------------------------------------------------------------------

function fieldSize(bytes) {
  if (bytes === null || bytes === undefined) return 1;
  // a string would be written as garbage (Uint8Array.set takes it as an array of NaN)
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`keys, values and header values are Uint8Array or null, not ${typeof bytes}`);
  return uvarintSize(bytes.length << 1) + bytes.length;
}

function writeField(buf, pos, bytes) {
  if (bytes === null || bytes === undefined) {
    buf[pos] = 1; // -1
    return pos + 1;
  }
  pos = writeVarint(buf, pos, bytes.length);
  buf.set(bytes, pos);
  return pos + bytes.length;
}

function headerList(headers) {
  if (!headers) return [];
  return Array.isArray(headers) ? headers : Object.entries(headers);
}

/**
 * One batch of `records` ({timestamp, key, value, headers}: keys and values Uint8Array or null,
 * headers [name, Uint8Array | null] pairs, a timestamp in ms, now when absent).
 *
 * @param {object} [options] `producerId`, `producerEpoch`, `baseSequence` (-1: none),
 *   `transactional`, and the fields a server sets: `baseOffset` (0), `partitionLeaderEpoch` (-1)
 * @returns {Uint8Array}
 */
export function encodeBatch(
  records,
  {
    baseOffset = 0,
    partitionLeaderEpoch = -1,
    producerId = -1,
    producerEpoch = -1,
    baseSequence = -1,
    transactional = false,
  } = {},
) {
  const n = records.length;
  if (n === 0) throw new RangeError("a batch holds at least one record");
  const now = Date.now();
  const stamps = new Array(n);
  const first = records[0].timestamp ?? now;
  let max = first;
  for (let i = 0; i < n; i++) {
    const ts = records[i].timestamp ?? now;
    stamps[i] = ts;
    if (ts > max) max = ts;
  }
  // first pass: each record's size (and its timestamp delta, zigzagged, and header keys' sizes)
  const deltas = new Array(n);
  const bodies = new Array(n);
  const keySizes = [];
  let total = HEADER_SIZE;
  for (let i = 0; i < n; i++) {
    const r = records[i];
    const ts = stamps[i];
    const delta = typeof ts === "number" && typeof first === "number" && isInt32(ts - first) ? ts - first : sub64(ts, first);
    const z = isInt32(delta) ? zigzag32(delta) : zigzag64(delta);
    deltas[i] = z;
    const headers = headerList(r.headers);
    let body = 1 + varlongSize(z) + uvarintSize(zigzag32(i)) + fieldSize(r.key) + fieldSize(r.value);
    body += uvarintSize(headers.length << 1);
    for (const [k, v] of headers) {
      if (typeof k !== "string") throw new TypeError("a header's key is a string");
      const size = utf8Length(k);
      keySizes.push(size);
      body += uvarintSize(size << 1) + size + fieldSize(v);
    }
    bodies[i] = body;
    total += uvarintSize(body << 1) + body;
  }
  if (total > MAX_BATCH_BYTES) throw new RangeError(`a batch of ${total} bytes is larger than 1 GiB`);
  const buf = new Uint8Array(total);
  const view = new DataView(buf.buffer);
  writeInt64(view, 0, baseOffset);
  view.setInt32(8, total - LOG_OVERHEAD);
  view.setInt32(12, partitionLeaderEpoch);
  buf[16] = MAGIC;
  view.setInt16(ATTRIBUTES_AT, transactional ? TRANSACTIONAL_FLAG : 0);
  view.setInt32(23, n - 1);
  writeInt64(view, 27, first);
  writeInt64(view, 35, max);
  writeInt64(view, 43, producerId);
  view.setInt16(51, producerEpoch);
  view.setInt32(53, baseSequence);
  view.setInt32(57, n);
  let pos = HEADER_SIZE;
  let h = 0;
  for (let i = 0; i < n; i++) {
    const r = records[i];
    pos = writeVarint(buf, pos, bodies[i]);
    buf[pos++] = 0; // attributes
    pos = writeZigzag64(buf, pos, deltas[i]);
    pos = writeVarint(buf, pos, i);
    pos = writeField(buf, pos, r.key);
    pos = writeField(buf, pos, r.value);
    const headers = headerList(r.headers);
    pos = writeVarint(buf, pos, headers.length);
    for (const [k, v] of headers) {
      const size = keySizes[h++];
      pos = writeVarint(buf, pos, size);
      pos = writeText(buf, pos, k, size);
      pos = writeField(buf, pos, v);
    }
  }
  view.setUint32(CRC_AT, crc32c(buf, ATTRIBUTES_AT, total));
  return buf;
}

// -- decoding ---------------------------------------------------------------------------------

/**
 * The batches of `bytes[start, end)`, each checked (magic, lengths, CRC-32C, record count and
 * offset deltas, every record's framing) and decoded: the header's fields and its `records`
 * ({offset, timestamp, key, value, headers}; keys and values are views into `bytes`).
 * Throws CorruptMessageError for a malformed batch, UnsupportedCompressionTypeError for a
 * compressed one.
 */
export function decodeBatches(bytes, start = 0, end = bytes.length) {
  const out = [];
  let pos = start;
  while (pos < end) {
    const batch = decodeBatch(bytes, pos, end);
    out.push(batch);
    pos = batch.end;
  }
  return out;
}

/** The batch at `pos` (see decodeBatches); `end` of the answer is where the next one starts. */
export function decodeBatch(bytes, pos = 0, limit = bytes.length) {
  const fail = (what) => new CorruptMessageError(`record batch at byte ${pos}: ${what}`);
  if (limit - pos < HEADER_SIZE) throw fail("truncated header");
  const view = new DataView(bytes.buffer, bytes.byteOffset + pos, limit - pos);
  const batchLength = view.getInt32(8);
  const magic = view.getInt8(16);
  if (magic !== MAGIC) throw fail(`magic ${magic}, expected ${MAGIC}`);
  if (batchLength < HEADER_SIZE - LOG_OVERHEAD || batchLength > MAX_BATCH_BYTES) throw fail(`batch length ${batchLength}`);
  const end = pos + LOG_OVERHEAD + batchLength;
  if (end > limit) throw fail("truncated batch");
  const crc = view.getUint32(CRC_AT);
  if (crc32c(bytes, pos + ATTRIBUTES_AT, end) !== crc) throw fail("CRC-32C mismatch");
  const attributes = view.getInt16(ATTRIBUTES_AT);
  if (attributes & COMPRESSION_MASK) {
    throw new UnsupportedCompressionTypeError(`record batch at byte ${pos}: compression codec ${attributes & COMPRESSION_MASK}`);
  }
  const lastOffsetDelta = view.getInt32(23);
  const recordCount = view.getInt32(57);
  const baseOffset = readInt64(view, 0);
  // a batch of a Kafka topic that compaction thinned keeps its last offset and holds fewer
  // records (none at all for a producer's last batch): the offsets between are not records
  if (lastOffsetDelta < 0 || recordCount < 0 || recordCount > lastOffsetDelta + 1) {
    throw fail(`record count ${recordCount}, last offset delta ${lastOffsetDelta}`);
  }
  if (baseOffset < 0) throw fail(`base offset ${baseOffset}`);
  const baseTimestamp = readInt64(view, 27);
  const records = new Array(recordCount);
  const reader = new Reader(bytes, pos + HEADER_SIZE, end, pos);
  let previousDelta = -1;
  for (let i = 0; i < recordCount; i++) {
    const length = reader.varint();
    if (length < 0 || length > end - reader.pos) throw fail(`record ${i}: length ${length}`);
    const recordEnd = reader.pos + length;
    reader.end = recordEnd;
    reader.pos += 1; // attributes, unused (Kafka's are 0)
    const delta = reader.varlong();
    const offsetDelta = reader.varint();
    if (offsetDelta <= previousDelta || offsetDelta > lastOffsetDelta) throw fail(`record ${i}: offset delta ${offsetDelta}`);
    previousDelta = offsetDelta;
    const key = reader.bytes(reader.varint());
    const value = reader.bytes(reader.varint());
    const count = reader.varint();
    if (count < 0 || count > recordEnd - reader.pos) throw fail(`record ${i}: header count ${count}`);
    const headers = new Array(count);
    for (let j = 0; j < count; j++) {
      const name = reader.text(reader.varint());
      headers[j] = [name, reader.bytes(reader.varint())];
    }
    if (reader.pos !== recordEnd) throw fail(`record ${i}: its fields do not fill its length`);
    reader.end = end;
    records[i] = {
      offset: typeof baseOffset === "number" ? baseOffset + offsetDelta : add64(baseOffset, offsetDelta),
      timestamp: add64(baseTimestamp, delta),
      key,
      value,
      headers,
    };
  }
  if (reader.pos !== end) throw fail(`${end - reader.pos} bytes after the last record`);
  return {
    baseOffset,
    batchLength,
    partitionLeaderEpoch: view.getInt32(12),
    magic,
    crc,
    attributes,
    lastOffsetDelta,
    baseTimestamp,
    maxTimestamp: readInt64(view, 35),
    producerId: readInt64(view, 43),
    producerEpoch: view.getInt16(51),
    baseSequence: view.getInt32(53),
    recordCount,
    transactional: (attributes & TRANSACTIONAL_FLAG) !== 0,
    control: (attributes & CONTROL_FLAG) !== 0,
    records,
    end,
  };
}

// -- the envelope -----------------------------------------------------------------------------

/**
 * An answer of batches (a read, a share fetch, a pushed frame): its head (the JSON object that
 * describes it) and its batches, decoded and checked. Throws CorruptMessageError when it is
 * not one, or when the batches are not as many as the head says.
 */
export function openEnvelope(bytes) {
  const fail = (what) => new CorruptMessageError(`answer of record batches: ${what}`);
  if (bytes.length < 16) throw fail("shorter than its head");
  for (let i = 0; i < 8; i++) if (bytes[i] !== ENVELOPE_MAGIC[i]) throw fail("not SLRB version 1");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const high = view.getUint32(12, true);
  const length = view.getUint32(8, true);
  if (high !== 0 || length > bytes.length - 16) throw fail("its head runs past the answer");
  let head;
  try {
    head = JSON.parse(strictDecoder.decode(bytes.subarray(16, 16 + length)));
  } catch {
    throw fail("its head is not JSON");
  }
  if (head === null || typeof head !== "object" || Array.isArray(head)) throw fail("its head is not an object");
  const start = 16 + length + ((8 - (length % 8)) % 8);
  if (start > bytes.length) throw fail("truncated padding");
  const batches = decodeBatches(bytes, start);
  const expected = Array.isArray(head.partitions)
    ? head.partitions.reduce((sum, p) => sum + p.batches, 0)
    : head.batches ?? batches.length;
  if (expected !== batches.length) throw fail(`${batches.length} batches where the head says ${expected}`);
  return { head, batches };
}
