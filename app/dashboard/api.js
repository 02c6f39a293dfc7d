// The documented HTTP endpoints the dashboard calls (docs/api.md), through the JavaScript
// client the server ships under client/ (clients/js in the repository). Paths are relative to
// the page, so the dashboard also works behind a proxy that serves the server under a prefix.
// Every call carries the page's API key, when it has one (auth.js).

import { Sluice, UnauthenticatedError } from "./client/index.js";
import { currentKey } from "./auth.js";

// an operator waits for an answer or an error, not for a long back-off
const sluice = new Sluice({
  url: new URL(".", document.baseURI).href,
  apiKey: () => currentKey(),
  retries: 1,
  backoffMs: 200,
});

let onUnauthorized = () => {};

/** Called with every 401 UNAUTHENTICATED answer (the page then asks for a key). */
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

export async function call(method, path, options = {}) {
  try {
    return await sluice.request(method, `/${path}`, options);
  } catch (error) {
    if (error instanceof UnauthenticatedError) onUnauthorized();
    throw error;
  }
}

const enc = encodeURIComponent;

/** GET /v1/topics/{t}/partitions/{p}/records in base64, so any bytes arrive intact. */
export function readRecords(topic, partition, offset, maxRecords) {
  return call("GET", `v1/topics/${enc(topic)}/partitions/${partition}/records`, {
    query: { offset, max_records: maxRecords, encoding: "base64" },
    safe: true,
  });
}

/** POST /v1/topics/{t}/records with an Idempotency-Key: a retry never appends twice. */
export function produce(topic, body, idempotencyKey) {
  return call("POST", `v1/topics/${enc(topic)}/records`, {
    body,
    headers: { "Idempotency-Key": idempotencyKey },
    safe: true,
  });
}

/** POST /v1/share-groups/{g}/offsets: {topics: [{topic, partitions, to}], dry_run}. */
export function resetShareOffsets(group, body) {
  return call("POST", `v1/share-groups/${enc(group)}/offsets`, { body });
}
