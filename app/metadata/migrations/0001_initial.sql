-- Topics, their configuration and idempotency keys of simple produce.

CREATE TABLE topics (
    topic_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT    NOT NULL UNIQUE,
    partitions   INTEGER NOT NULL CHECK (partitions >= 1),
    config       TEXT    NOT NULL DEFAULT '{}',
    state        TEXT    NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'deleting')),
    created_ms   INTEGER NOT NULL
);

-- A key is reserved ('pending', with its plan: the partition of each record and the end offset
-- of each partition it writes) before its records are appended, and completed with the answer
-- once they are durable. A pending row found later means the server stopped in between: the
-- log is searched from those offsets for batches tagged with the key's hash.
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

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
