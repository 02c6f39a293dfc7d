// Sluice, Admin, Producer and the errors, against a real server; the producer and reads with
// record batches (the default wire) and with JSON.

import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";

import {
  ConflictError,
  ConnectionError,
  NotFoundError,
  RECORD_BATCH_MEDIA_TYPE,
  RecordTooLargeError,
  SluiceError,
  TopicAlreadyExistsError,
  UnknownTopicOrPartitionError,
  decodeBatches,
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

for (const wire of ["batches", "json"]) {
  test(`the producer (${wire}): keyed records land on Kafka's partition, every send answered once`, async () => {
    const sluice = client({ wire });
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
      assert.deepEqual(r.headers, [{ key: "n", value: r.value.slice(1) }]);
    }
  });

  test(`bytes come back intact (${wire}), and a read starts at its offset inside a batch`, async () => {
    const sluice = client({ wire });
    const topic = fresh("bytes");
    await sluice.admin.createTopic(topic);
    const value = new Uint8Array([0, 255, 1, 254, 10, 13]);
    const producer = sluice.producer({ linger: 20 });
    const metas = await Promise.all([
      producer.send(topic, "before", { partition: 0, timestamp: 1_700_000_000_000 }),
      producer.send(topic, value, { key: "k", headers: [["h", new Uint8Array([7])], ["none", null]], partition: 0 }),
      producer.send(topic, "after", { partition: 0 }),
    ]);
    assert.deepEqual(metas.map((m) => m.offset), [0, 1, 2]); // one batch
    const [record] = await sluice.admin.read(topic, 0, { offset: 1, maxRecords: 1 });
    assert.equal(record.offset, 1);
    assert.deepEqual(record.value, value);
    assert.equal(record.keyText(), "k");
    assert.deepEqual(record.headers, [["h", new Uint8Array([7])], ["none", null]]);
    const all = await sluice.admin.read(topic, 0);
    assert.deepEqual(all.map((r) => r.offset), [0, 1, 2]);
    assert.equal(all[0].timestamp, 1_700_000_000_000);
    assert.equal(typeof all[2].timestamp, "number");
    assert.equal(all[2].text(), "after");
  });

  test(`a produce whose answer is lost is sent again, the very same, and stored once (${wire})`, async () => {
    let lost = 0;
    const bodies = [];
    const losing = async (url, init) => {
      const response = await fetch(url, init);
      const path = new URL(String(url)).pathname;
      if (path.endsWith("/v1/produce") || path.endsWith("/batches")) {
        bodies.push(init.body);
        const again = bodies.slice(0, -1).some((b) => String(b) === String(init.body));
        if (!again) {
          lost += 1;
          await response.text(); // the server stored it; the answer never arrives
          throw new TypeError("fetch failed (test seam: connection reset)");
        }
      }
      return response;
    };
    const sluice = client({ fetch: losing, wire });
    const topic = fresh("once");
    await sluice.admin.createTopic(topic);
    const producer = sluice.producer({ linger: 0 });
    const first = await producer.send(topic, "a", { partition: 0 });
    const second = await producer.send(topic, "b", { partition: 0 });
    assert.equal(lost, 2); // both first answers were lost; each was sent again
    assert.equal(bodies.length, 4);
    assert.deepEqual(bodies[1], bodies[0]);
    assert.deepEqual(bodies[3], bodies[2]);
    assert.deepEqual([first.offset, second.offset], [0, 1]);
    assert.deepEqual((await readAll(topic)).map((r) => r.value), ["a", "b"]);
  });
}

test("batches: one request per partition, at once, each one batch with the producer's sequence", async () => {
  const requests = [];
  let open = 0;
  let most = 0;
  const watching = async (url, init) => {
    const path = new URL(String(url)).pathname;
    if (!path.endsWith("/batches")) return fetch(url, init);
    requests.push({ path, type: init.headers["Content-Type"], body: init.body });
    open += 1;
    most = Math.max(most, open);
    try {
      return await fetch(url, init);
    } finally {
      open -= 1;
    }
  };
  const sluice = client({ fetch: watching });
  const topic = fresh("spread");
  await sluice.admin.createTopic(topic, { partitions: 3 });
  const producer = sluice.producer({ linger: 20 });
  const round = (tag) => Promise.all([0, 1, 2, 0].map((p, i) => producer.send(topic, `${tag}${i}`, { partition: p })));
  await round("a");
  await round("b");
  assert.equal(requests.length, 6);
  assert.equal(most, 3); // the three partitions' requests were out together
  assert.ok(requests.every((r) => r.type === RECORD_BATCH_MEDIA_TYPE));
  const batches = requests.map((r) => [Number(r.path.split("/").at(-2)), decodeBatches(r.body)]);
  assert.ok(batches.every(([, bs]) => bs.length === 1));
  const ids = new Set(batches.map(([, [b]]) => b.producerId));
  assert.equal(ids.size, 1);
  assert.equal(producer.producerId, [...ids][0]);
  const seen = batches
    .map(([p, [b]]) => [p, b.baseSequence, b.producerEpoch, b.transactional, b.records.map((r) => new TextDecoder().decode(r.value))])
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  assert.deepEqual(seen, [
    [0, 0, 0, false, ["a0", "a3"]],
    [0, 2, 0, false, ["b0", "b3"]],
    [1, 0, 0, false, ["a1"]],
    [1, 1, 0, false, ["b1"]],
    [2, 0, 0, false, ["a2"]],
    [2, 1, 0, false, ["b2"]],
  ]);
});

test("batches: a batch the server refuses fails its records only; the producer goes on", async () => {
  const sluice = client();
  const topic = fresh("refused");
  await sluice.admin.createTopic(topic, { partitions: 2, config: { max_message_bytes: 100 } });
  const producer = sluice.producer({ linger: 20 });
  const [big, small] = await Promise.allSettled([
    producer.send(topic, "x".repeat(200), { partition: 0 }),
    producer.send(topic, "fits", { partition: 1 }),
  ]);
  assert.ok(big.status === "rejected" && big.reason instanceof RecordTooLargeError, String(big.reason));
  assert.equal(small.status, "fulfilled");
  const id = producer.producerId;
  const next = await producer.send(topic, "next", { partition: 0 }); // the same sequence again
  assert.equal(next.offset, 0);
  assert.equal(producer.producerId, id); // the refusal changed nothing of the producer
  assert.deepEqual((await readAll(topic, 0)).map((r) => r.value), ["next"]);
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
