-- The canonical schema after every migration (tests/migrations checks it).
-- Regenerate: python -m tests.migrations.dump_schema > schema.sql

CREATE TABLE idempotency_keys (
    key           TEXT    PRIMARY KEY,
    topic_id      INTEGER NOT NULL,
    request_hash  BLOB    NOT NULL,
    state         TEXT    NOT NULL CHECK (state IN ('pending', 'complete')),
    plan          TEXT    NOT NULL,
    response      BLOB,
    created_ms    INTEGER NOT NULL,
    CHECK ((state = 'complete') = (response IS NOT NULL))
);

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_ms INTEGER NOT NULL
);

CREATE TABLE topics (
    topic_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT    NOT NULL UNIQUE,
    partitions   INTEGER NOT NULL CHECK (partitions >= 1),
    config       TEXT    NOT NULL DEFAULT '{}',
    state        TEXT    NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'deleting')),
    created_ms   INTEGER NOT NULL
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
