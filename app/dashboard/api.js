// The documented HTTP endpoints the dashboard calls (docs/api.md). Every path is relative to
// the page, so the dashboard also works behind a proxy that serves the server under a prefix.
// Every call carries the API key, when the page has one (auth.js).

import { authHeaders } from "./auth.js";

/** An answer that is not 2xx, with the API's error body: {"error": {code, message, retriable}}. */
export class ApiError extends Error {
  constructor(status, code, message, retriable = false) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.retriable = retriable;
  }
}

const enc = encodeURIComponent;

let onUnauthorized = () => {};

/** Called with every 401 UNAUTHENTICATED answer (the page then asks for a key). */
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

export async function call(method, path, { body, headers, query } = {}) {
  const url = new URL(path, document.baseURI);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== null && v !== undefined) url.searchParams.set(k, String(v));
  }
  const init = {
    method,
    headers: { Accept: "application/json", ...authHeaders(), ...(headers ?? {}) },
  };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, init);
  } catch (e) {
    throw new ApiError(0, "NO_ANSWER", `the server did not answer (${e.message})`, true);
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (res.status === 401) onUnauthorized();
  if (!res.ok) {
    const err = data && typeof data === "object" ? data.error : null;
    throw new ApiError(
      res.status,
      err?.code ?? `HTTP_${res.status}`,
      err?.message ?? (text.slice(0, 300) || res.statusText),
      err?.retriable ?? false,
    );
  }
  return data;
}

/** GET /v1/topics/{t}/partitions/{p}/records in base64, so any bytes arrive intact. */
export function readRecords(topic, partition, offset, maxRecords) {
  return call("GET", `v1/topics/${enc(topic)}/partitions/${partition}/records`, {
    query: { offset, max_records: maxRecords, encoding: "base64" },
  });
}

/** POST /v1/topics/{t}/records with an Idempotency-Key: a retry never appends twice. */
export function produce(topic, body, idempotencyKey) {
  return call("POST", `v1/topics/${enc(topic)}/records`, {
    body,
    headers: { "Idempotency-Key": idempotencyKey },
  });
}

/** POST /v1/share-groups/{g}/offsets: {topics: [{topic, partitions, to}], dry_run}. */
export function resetShareOffsets(group, body) {
  return call("POST", `v1/share-groups/${enc(group)}/offsets`, { body });
}
