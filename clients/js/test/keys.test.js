// A server that requires API keys (SLUICE_KEYED_URL, with SLUICE_TEST_KEY a key of a
// super-user): the key from the option or SLUICE_API_KEY, on requests and on the WebSocket.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Sluice, UnauthenticatedError, AuthenticationError } from "../src/index.js";
import { fresh, until } from "./helpers.js";

const url = process.env.SLUICE_KEYED_URL;
const key = process.env.SLUICE_TEST_KEY;
if (!url || !key) throw new Error("set SLUICE_KEYED_URL and SLUICE_TEST_KEY (make test does)");

test("without a key: 401 UNAUTHENTICATED", async () => {
  const saved = process.env.SLUICE_API_KEY;
  delete process.env.SLUICE_API_KEY;
  try {
    await assert.rejects(new Sluice({ url }).admin.listTopics(), (e) => e instanceof UnauthenticatedError && e instanceof AuthenticationError && e.status === 401);
    await assert.rejects(new Sluice({ url, apiKey: "sk_nope_nope" }).admin.listTopics(), UnauthenticatedError);
  } finally {
    if (saved !== undefined) process.env.SLUICE_API_KEY = saved;
  }
});

test("the key from the option, or from SLUICE_API_KEY", async () => {
  const topic = fresh("keyed");
  await new Sluice({ url, apiKey: key }).admin.createTopic(topic);
  process.env.SLUICE_API_KEY = key;
  try {
    const topics = await new Sluice({ url }).admin.listTopics();
    assert.ok(topics.some((t) => t.name === topic));
  } finally {
    delete process.env.SLUICE_API_KEY;
  }
});

test("push consumption with a key: it rides in the subprotocol; without one the socket is refused", async () => {
  const sluice = new Sluice({ url, apiKey: key, backoffMs: 10 });
  const [topic, group] = [fresh("pushed"), fresh("g")];
  await sluice.admin.createTopic(topic);
  await sluice.admin.alterShareGroupConfig(group, { auto_offset_reset: "earliest" });
  await sluice.producer({ linger: 0 }).send(topic, "hello", { partition: 0 });
  const consumer = sluice.shareConsumer(group, { push: true });
  consumer.subscribe([topic]);
  const records = await until(async () => {
    const got = await consumer.poll(1000);
    return got.length ? got : null;
  }, "the pushed record");
  assert.equal(records[0].text(), "hello");
  await consumer.close();
  const anonymous = new Sluice({ url, apiKey: null });
  anonymous.apiKey = null;
  const refused = anonymous.shareConsumer(group, { push: true });
  refused.subscribe([topic]);
  await assert.rejects(refused.poll(1000), /WebSocket/);
});
