// Sluice: the connection to one server. Every call goes through `request`, which adds the API
// key, reads the answer (an error answer becomes the error class its code names) and tries
// again, with a jittered exponential back-off, when trying again is safe: a retriable error
// code, a request that never reached the server, or a lost answer to a request that may be sent
// twice (`safe`). Nothing else is retried.
//
// `wire` picks how records travel: "batches" (the default) as Kafka's record batches, encoded
// and decoded here (codec.js), or "json" (docs/api.md, "Records on the wire").

import { Admin } from "./admin.js";
import { BATCHES_MEDIA_TYPE } from "./codec.js";
import { ConnectionError, errorFrom } from "./errors.js";
import { Producer } from "./producer.js";
import { ShareConsumer } from "./share_consumer.js";
import { TransactionalProducer } from "./transactions.js";

export const DEFAULT_URL = "http://127.0.0.1:8080";

function environment(name) {
  const value = globalThis.process?.env?.[name];
  return value ? value : undefined;
}

function defaultUrl() {
  const here = globalThis.location;
  if (here && /^https?:$/.test(here.protocol)) return here.origin; // a page served by Sluice
  return DEFAULT_URL;
}

// errors of Node's fetch that say the request never left (nothing reached the server)
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET_BEFORE_SEND"]);

function neverSent(error) {
  const code = error?.cause?.code;
  return typeof code === "string" && NOT_SENT.has(code);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const WIRES = new Set(["batches", "json"]);

export class Sluice {
  /**
   * @param {object} [options]
   * @param {string} [options.url] the server (default: SLUICE_URL in Node, the page's origin
   *   in a browser, else http://127.0.0.1:8080)
   * @param {string | (() => string | null)} [options.apiKey] sent as "Authorization: Bearer"
   *   (default: SLUICE_API_KEY); a function is asked at every request (a page whose key changes)
   * @param {"batches" | "json"} [options.wire] how producers, reads and share consumers carry
   *   records: Kafka's record batches (default) or JSON
   */
  constructor({
    url,
    apiKey,
    timeoutMs = 30_000,
    retries = 5,
    backoffMs = 100,
    maxBackoffMs = 5_000,
    fetch: fetchImpl,
    WebSocket: webSocketImpl,
    wire = "batches",
  } = {}) {
    if (!WIRES.has(wire)) throw new TypeError(`wire is "batches" or "json", not ${JSON.stringify(wire)}`);
    this.url = (url ?? environment("SLUICE_URL") ?? defaultUrl()).replace(/\/+$/, "");
    this.apiKey = apiKey ?? environment("SLUICE_API_KEY") ?? null;
    this.timeoutMs = timeoutMs;
    this.retries = retries;
    this.backoffMs = backoffMs;
    this.maxBackoffMs = maxBackoffMs;
    this.fetch = fetchImpl ?? globalThis.fetch.bind(globalThis);
    this.WebSocket = webSocketImpl ?? null;
    this.wire = wire;
    this.admin = new Admin(this);
  }

  /** An idempotent producer (`linger` ms, `maxBatch` records a request). */
  producer(options) {
    return new Producer(this, options);
  }

  /** A transactional producer, initialised (fencing older instances of `transactionalId`). */
  async transactionalProducer(transactionalId, options) {
    const producer = new TransactionalProducer(this, transactionalId, options);
    await producer.init();
    return producer;
  }

  /** A share-group consumer; `push: true` takes records over a WebSocket. */
  shareConsumer(groupId, options) {
    return new ShareConsumer(this, groupId, options);
  }

  #key() {
    return typeof this.apiKey === "function" ? this.apiKey() : this.apiKey;
  }

  headers() {
    const h = { Accept: "application/json" };
    const key = this.#key();
    if (key) h.Authorization = `Bearer ${key}`;
    return h;
  }

  /**
   * One API call. `body` goes as JSON, `data` (a Uint8Array) as it is with `contentType`.
   * `safe`: sending it twice does no harm (a lost answer is sent again); `final`: retriable
   * codes this call must not retry itself. Answers the JSON of the answer, or its bytes (a
   * Uint8Array) when the server answers record batches.
   */
  async request(method, path, { body, data, contentType, query, headers, safe = false, final = [] } = {}) {
    const url = new URL(this.url + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== null && v !== undefined) url.searchParams.set(k, String(v));
    }
    const init = { method, headers: { ...this.headers(), ...(headers ?? {}) } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    } else if (data !== undefined) {
      init.headers["Content-Type"] = contentType;
      init.body = data;
    }
    let delay = this.backoffMs;
    for (let attempt = 0; ; attempt++) {
      let wait;
      try {
        return await this.#once(url, init);
      } catch (error) {
        wait = this.#retryAfter(error, safe, final);
        if (wait === null || attempt >= this.retries) throw error;
      }
      const backoff = Math.min(delay, this.maxBackoffMs) * (0.5 + Math.random() / 2);
      delay *= 2;
      await sleep(Math.max(wait, backoff));
    }
  }

  async #once(url, init) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    let response;
    let text;
    let bytes = null;
    try {
      try {
        response = await this.fetch(url, { ...init, signal: abort.signal });
      } catch (error) {
        const sent = !neverSent(error);
        const why = abort.signal.aborted ? `no answer within ${this.timeoutMs} ms` : error.message;
        throw new ConnectionError(`${init.method} ${url.pathname}: ${why}`, { sent });
      }
      try {
        if (response.ok && (response.headers.get("content-type") ?? "").startsWith(BATCHES_MEDIA_TYPE)) {
          bytes = new Uint8Array(await response.arrayBuffer());
        } else {
          text = await response.text();
        }
      } catch (error) {
        throw new ConnectionError(`${init.method} ${url.pathname}: the answer was lost (${error.message})`, {
          sent: true,
        });
      }
    } finally {
      clearTimeout(timer);
    }
    if (bytes !== null) return bytes;
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
    if (!response.ok) throw errorFrom(response.status, data);
    return data;
  }

  #retryAfter(error, safe, final) {
    if (error instanceof ConnectionError) return !error.sent || safe ? 0 : null;
    if (!error.retriable || final.includes(error.code)) return null;
    return error.throttleTimeMs ?? 0;
  }

  /** The WebSocket URL of `path`, and the subprotocols that carry the key. */
  socketAddress(path) {
    const url = new URL(this.url + path);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const key = this.#key();
    const protocols = key ? ["sluice", `sluice.bearer.${key}`] : ["sluice"];
    return { url: url.toString(), protocols };
  }
}
