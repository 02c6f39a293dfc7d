// Numbers, durations, times and bytes as the dashboard shows them.

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

export function count(n) {
  return n === null || n === undefined ? "—" : integer.format(n);
}

/** A rate in records per second: "0", "3.5", "1,240", "12.4k", "2.1M". */
export function rate(r) {
  if (r === null || r === undefined || Number.isNaN(r)) return "—";
  if (r === 0) return "0";
  if (r < 10) return oneDecimal.format(r);
  if (r < 10_000) return integer.format(r);
  if (r < 10_000_000) return `${oneDecimal.format(r / 1000)}k`;
  return `${oneDecimal.format(r / 1_000_000)}M`;
}

const upToTwoDecimals = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

/**
 * A short axis label that says its value exactly: 0, 0.5, 1.25, 250, 1.5k, 12.5k, 1.25M. The
 * charts' ticks are 0, half and all of 1, 2, 2.5 or 5 × 10^k, so two decimals always suffice
 * (rounded to whole numbers, an idle chart's 0, 0.5 and 1 read 0, 1 and 1).
 */
export function axis(v) {
  const units = ["", "k", "M", "G", "T"];
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${upToTwoDecimals.format(v)}${units[u]}`;
}

/** A duration: "850 ms", "12.3 s", "4m 05s", "3h 02m", "2d 4h". */
export function duration(ms) {
  if (ms === null || ms === undefined) return "—";
  const neg = ms < 0;
  ms = Math.abs(ms);
  let out;
  if (ms < 1000) out = `${Math.round(ms)} ms`;
  else if (ms < 60_000) out = `${(ms / 1000).toFixed(1)} s`;
  else if (ms < 3_600_000) {
    const m = Math.floor(ms / 60_000);
    out = `${m}m ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, "0")}s`;
  } else if (ms < 86_400_000) {
    const h = Math.floor(ms / 3_600_000);
    out = `${h}h ${String(Math.floor((ms % 3_600_000) / 60_000)).padStart(2, "0")}m`;
  } else {
    out = `${Math.floor(ms / 86_400_000)}d ${Math.floor((ms % 86_400_000) / 3_600_000)}h`;
  }
  return neg ? `-${out}` : out;
}

/** How long the server has run: "42 s", "4m 05s", "3h 02m", "2d 4h". */
export function uptime(ms) {
  return ms < 60_000 ? `${Math.max(0, Math.floor(ms / 1000))} s` : duration(ms);
}

/** Whole seconds, for countdowns: "42 s", "3m 05s". */
export function countdown(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}

function pad(n, width = 2) {
  return String(n).padStart(width, "0");
}

/** An epoch-ms timestamp in local time: 2026-11-01 14:03:27.120. */
export function timestamp(ms) {
  if (ms === null || ms === undefined || ms < 0) return "—";
  const d = new Date(ms);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
  );
}

// Control characters (C0 but tab, newline, carriage return; DEL; C1) and the bidirectional
// overrides and isolates, which can make text read differently from what it holds.
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/u;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export function base64Bytes(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/**
 * How to show bytes that came as base64: {kind: "null"}, {kind: "text", text} when they decode
 * as printable UTF-8, else {kind: "hex", text, size} (the first `limit` bytes).
 */
export function showBytes(b64, limit = 256) {
  if (b64 === null || b64 === undefined) return { kind: "null", text: "null", size: 0 };
  const bytes = base64Bytes(b64);
  let text = null;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    text = null;
  }
  if (text !== null && !UNPRINTABLE.test(text)) return { kind: "text", text, size: bytes.length };
  const shown = Array.from(bytes.subarray(0, limit), (b) => b.toString(16).padStart(2, "0"));
  const more = bytes.length > limit ? ` … (${count(bytes.length)} bytes)` : "";
  return { kind: "hex", text: shown.join(" ") + more, size: bytes.length };
}

/** The text of bytes that came as base64, when they are printable UTF-8; else null. */
export function textOf(b64) {
  const shown = showBytes(b64);
  return shown.kind === "text" ? shown.text : null;
}
