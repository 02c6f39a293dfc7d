// Sluice, Admin, Producer and the errors, against a real server.

import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";

import {
  ConflictError,
  ConnectionError,
  NotFoundError,
  SluiceError,
  TopicAlreadyExistsError,
  UnknownTopicOrPartitionError,
  partitionForKey,
} from "../src/index.js";
import { client, fresh, readAll, URL_ } from "./helpers.js";

test("topics: create, list, describe, alter, delete", async () => {
  const sluice = client();
  const name = fresh("topics");
  const created = await sluice.admin.createTopic(name, { partitions: 2, config: { retention_ms: 3_600_000 } });
  assert.equal(created.partitions.length, 2);
  assert.ok((await sluice.admin.listTopics()).some((t) => t.name === name));
  await sluice.admin.alterTopic(name, { partitions: 3 });
  assert.equal((await sluice.admin.describeTopic(name)).partitions.length, 3);
  await assert.rejects(sluice.admin.createTopic(name), (e) => {
    assert.ok(e instanceof TopicAlreadyExistsError && e instanceof ConflictError && e instanceof SluiceError);
    assert.equal(e.code, "TOPIC_ALREADY_EXISTS");
    assert.equal(e.status, 409);
    assert.equal(e.kafkaCode, 36);
    assert.equal(e.retriable, false);
    return true;
  });
  await sluice.admin.deleteTopic(name);
  await assert.rejects(sluice.admin.describeTopic(name), (e) => e instanceof UnknownTopicOrPartitionError && e instanceof NotFoundError);
});

test("the producer: keyed records land on Kafka's partition, every send answered once", async () => {
  const sluice = client();
  const topic = fresh("keyed");
  await sluice.admin.createTopic(topic, { partitions: 3 });
  const producer = sluice.producer({ linger: 10 });
  const sends = [];
  for (let i = 0; i < 60; i++) sends.push(producer.send(topic, `v${i}`, { key: `k${i}`, headers: { n: String(i) } }));
  const metas = await Promise.all(sends);
  await producer.close();
  const encoder = new TextEncoder();
  metas.forEach((m, i) => assert.equal(m.partition, partitionForKey(encoder.encode(`k${i}`), 3)));
  const stored = (await Promise.all([0, 1, 2].map((p) => readAll(topic, p)))).flat();
  assert.equal(stored.length, 60);
  assert.deepEqual(new Set(stored.map((r) => r.value)), new Set(metas.map((_, i) => `v${i}`)));
  for (const m of metas) {
    const r = (await readAll(topic, m.partition)).find((x) => x.offset === m.offset);
    assert.equal(r.key, `k${r.value.slice(1)}`);
  }
});

test("bytes go as base64 and come back intact", async () => {
  const sluice = client();
  const topic = fresh("bytes");
  await sluice.admin.createTopic(topic);
  const value = new Uint8Array([0, 255, 1, 254, 10, 13]);
  const producer = sluice.producer({ linger: 0 });
  const meta = await producer.send(topic, value, { key: "k", headers: [["h", new Uint8Array([7])]] });
  const [record] = await sluice.admin.read(topic, meta.partition, { offset: meta.offset, maxRecords: 1 });
  assert.deepEqual(record.value, value);
  assert.equal(record.keyText(), "k");
  assert.deepEqual(record.headers, [["h", new Uint8Array([7])]]);
});

test("a produce whose answer is lost is sent again and stored once", async () => {
  let lose = 2;
  const losing = async (url, init) => {
    const response = await fetch(url, init);
    if (String(url).endsWith("/v1/produce") && lose > 0) {
      lose -= 1;
      await response.text(); // the server stored it; the answer never arrives
      throw new TypeError("fetch failed (test seam: connection reset)");
    }
    return response;
  };
  const sluice = client({ fetch: losing });
  const topic = fresh("once");
  await sluice.admin.createTopic(topic);
  const producer = sluice.producer({ linger: 0 });
  const first = await producer.send(topic, "a", { partition: 0 });
  const second = await producer.send(topic, "b", { partition: 0 });
  assert.equal(lose, 0); // both answers were lost, then sent again
  assert.deepEqual([first.offset, second.offset], [0, 1]);
  assert.deepEqual((await readAll(topic)).map((r) => r.value), ["a", "b"]);
});

test("a request that is not safe to repeat is not repeated after a lost answer", async () => {
  let calls = 0;
  const losing = async (url, init) => {
    calls += 1;
    const response = await fetch(url, init);
    await response.text();
    throw new TypeError("fetch failed (test seam)");
  };
  const sluice = client({ fetch: losing });
  await assert.rejects(sluice.admin.createTopic(fresh("unsafe")), (e) => e instanceof ConnectionError && e.sent);
  assert.equal(calls, 1);
});

test("retriable answers are tried again, others are not", async () => {
  let calls = 0;
  const flaky = async (url, init) => {
    calls += 1;
    if (calls <= 2) {
      const body = { error: { code: "KAFKA_STORAGE_ERROR", message: "disk full (test seam)", retriable: true } };
      return new Response(JSON.stringify(body), { status: 507 });
    }
    return fetch(url, init);
  };
  const sluice = client({ fetch: flaky });
  assert.ok(Array.isArray(await sluice.admin.listTopics()));
  assert.equal(calls, 3);
  const unknown = async () =>
    new Response(JSON.stringify({ error: { code: "SOMETHING_NEW", message: "from a newer server", retriable: false } }), {
      status: 400,
    });
  await assert.rejects(client({ fetch: unknown }).admin.listTopics(), (e) => e.code === "SOMETHING_NEW" && e.name === "UnknownServerError");
});

test("no server: a clear connection error after the retries", async () => {
  const port = await new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port)); // nothing listens there any more
    });
  });
  const sluice = client({ url: `http://127.0.0.1:${port}`, retries: 2 });
  await assert.rejects(sluice.admin.listTopics(), (e) => e instanceof ConnectionError && !e.sent);
});

test("the URL comes from SLUICE_URL when none is given", () => {
  assert.equal(client({ url: undefined }).url, URL_.replace(/\/+$/, ""));
});
