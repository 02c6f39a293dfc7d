// What the tests share: the server they run against (SLUICE_URL, a real server process that
// tests/clients/test_js_client.py starts), fresh names, and reads that check what is stored.

import { Sluice, UnsupportedOnKafkaBackendError } from "../src/index.js";

export const URL_ = process.env.SLUICE_URL;
if (!URL_) throw new Error("set SLUICE_URL to a running server (make test starts one)");

// SLUICE_TEST_BACKEND=kafka (the wrapper passes the pytest pass's backend): the server is a
// gateway on a Kafka cluster, which refuses by name what Kafka 4.4 cannot do and describes some
// things otherwise (docs/kafka.md); the tests that meet those say what the gateway answers
export const GATEWAY = process.env.SLUICE_TEST_BACKEND === "kafka";

/** For assert.rejects: the gateway's refusal of what Kafka cannot do, by its `unsupported`
 * name (which the error's message ends with). */
export function unsupported(name) {
  return (e) => e instanceof UnsupportedOnKafkaBackendError && e.message.endsWith(`(unsupported: ${name})`);
}

let n = 0;
export function fresh(prefix) {
  n += 1;
  return `${prefix}-${process.pid}-${n}-${Math.random().toString(36).slice(2, 8)}`;
}

export function client(options = {}) {
  return new Sluice({ url: URL_, backoffMs: 10, ...options });
}

/** Every record of a topic partition, read over plain HTTP (read_committed unless told). */
export async function readAll(topic, partition = 0, isolation = "read_committed") {
  const out = [];
  let offset = 0;
  for (;;) {
    const url = `${URL_}/v1/topics/${encodeURIComponent(topic)}/partitions/${partition}/records?offset=${offset}&isolation_level=${isolation}`;
    const body = await (await fetch(url)).json();
    if (!body.records.length) return out;
    out.push(...body.records);
    offset = body.records[body.records.length - 1].offset + 1;
  }
}

export async function until(condition, what, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
