// The Sluice client for browsers and Node 18+: ES modules, no dependencies (fetch and
// WebSocket). See README.md.

export { Sluice, DEFAULT_URL } from "./client.js";
export { Admin, DeadLetter } from "./admin.js";
export { Producer } from "./producer.js";
export { TransactionalProducer } from "./transactions.js";
export { ShareConsumer } from "./share_consumer.js";
export { Record } from "./records.js";
export { murmur2, partitionForKey } from "./partitioner.js";
export { crc32c, decodeBatch, decodeBatches, encodeBatch, openEnvelope, readVarint, varintBytes } from "./codec.js";
export { BATCHES_MEDIA_TYPE, RECORD_BATCH_MEDIA_TYPE } from "./codec.js";
export * from "./errors.js";
