// Records as a producer takes them and as reads and share fetches give them back. With record
// batches (the default wire) a record is bytes: text is encoded as UTF-8 when it is sent, and
// what is read comes out of the batches (codec.js). With JSON (docs/api.md, "Records on the
// wire"), text goes as utf8; as soon as a value, key or header of a record is bytes (a
// Uint8Array), the whole record goes in base64. Reads ask for base64, so every byte arrives
// intact, and decode to Uint8Array.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Node's Buffer where there is one (several times faster); atob and btoa elsewhere
const NodeBuffer = globalThis.Buffer;

export function toBase64(bytes) {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function fromBase64(text) {
  if (NodeBuffer) {
    const b = NodeBuffer.from(text, "base64");
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function utf8(value) {
  return value === null || value === undefined ? null : encoder.encode(value);
}

function isBytes(v) {
  return v instanceof Uint8Array;
}

function headerPairs(headers) {
  if (!headers) return [];
  return Array.isArray(headers) ? headers : Object.entries(headers);
}

/** A record as the wire takes it, from a value (string, Uint8Array or null) and options. */
export function wireRecord(value, { key, headers, timestamp } = {}) {
  const pairs = headerPairs(headers);
  const binary = isBytes(value) || isBytes(key) || pairs.some(([, v]) => isBytes(v));
  const show = (v) => {
    if (v === null || v === undefined) return null;
    if (typeof v !== "string" && !isBytes(v)) {
      throw new TypeError(`a record's value, key and headers are strings or Uint8Array, not ${typeof v}`);
    }
    if (!binary) return v;
    return toBase64(isBytes(v) ? v : encoder.encode(v));
  };
  const out = { value: show(value) };
  if (key !== null && key !== undefined) out.key = show(key);
  if (pairs.length) out.headers = pairs.map(([k, v]) => ({ key: k, value: show(v) }));
  if (timestamp !== null && timestamp !== undefined) out.timestamp = timestamp;
  if (binary) out.encoding = "base64";
  return out;
}

function bytesOf(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return encoder.encode(v);
  // a copy: the record is what the caller passed at send, whatever it does with its array later
  if (isBytes(v)) return v.slice();
  throw new TypeError(`a record's value, key and headers are strings or Uint8Array, not ${typeof v}`);
}

/** A record as a batch takes it (codec.js): bytes, [name, bytes] headers, a timestamp (now). */
export function batchRecord(value, { key, headers, timestamp } = {}) {
  if (timestamp !== null && timestamp !== undefined && !Number.isInteger(timestamp) && typeof timestamp !== "bigint") {
    throw new TypeError(`a record's timestamp is an integer (ms), not ${timestamp}`);
  }
  const pairs = headerPairs(headers);
  return {
    timestamp: timestamp ?? Date.now(),
    key: bytesOf(key),
    value: bytesOf(value),
    headers: pairs.length
      ? pairs.map(([k, v]) => {
          if (typeof k !== "string") throw new TypeError(`a header's name is a string, not ${typeof k}`);
          return [k, bytesOf(v)];
        })
      : [],
  };
}

/** The bytes of a key, for the partitioner. */
export function keyBytes(key) {
  if (key === null || key === undefined) return null;
  return isBytes(key) ? key : encoder.encode(key);
}

/** A record read back: bytes, with text views. */
export class Record {
  constructor(raw) {
    this.topic = raw.topic;
    this.partition = raw.partition;
    this.offset = raw.offset;
    this.timestamp = raw.timestamp;
    this.key = raw.key === null || raw.key === undefined ? null : fromBase64(raw.key);
    this.value = raw.value === null || raw.value === undefined ? null : fromBase64(raw.value);
    this.headers = (raw.headers ?? []).map((h) => [
      h.key,
      h.value === null || h.value === undefined ? null : fromBase64(h.value),
    ]);
    if (raw.delivery_count !== undefined) this.deliveryCount = raw.delivery_count;
  }

  /** A record decoded from a batch (codec.js) of `topic` and `partition`. */
  static fromBatch(topic, partition, decoded, deliveryCount) {
    const record = Object.create(Record.prototype);
    record.topic = topic;
    record.partition = partition;
    record.offset = Number(decoded.offset);
    record.timestamp = Number(decoded.timestamp);
    record.key = decoded.key;
    record.value = decoded.value;
    record.headers = decoded.headers;
    if (deliveryCount !== undefined) record.deliveryCount = deliveryCount;
    return record;
  }

  /** The value as UTF-8 text (null when there is none). */
  text() {
    return this.value === null ? null : decoder.decode(this.value);
  }

  /** The key as UTF-8 text (null when there is none). */
  keyText() {
    return this.key === null ? null : decoder.decode(this.key);
  }
}
