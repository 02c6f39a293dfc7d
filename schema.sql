-- The canonical schema after every migration (tests/migrations checks it).
-- Regenerate: python -m tests.migrations.dump_schema > schema.sql

CREATE TABLE acls (
    principal      TEXT NOT NULL,
    resource_type  TEXT NOT NULL CHECK (resource_type IN
                       ('TOPIC', 'GROUP', 'TRANSACTIONAL_ID', 'CLUSTER')),
    pattern_type   TEXT NOT NULL CHECK (pattern_type IN ('LITERAL', 'PREFIXED')),
    resource_name  TEXT NOT NULL,
    operation      TEXT NOT NULL CHECK (operation IN
                       ('ALL', 'READ', 'WRITE', 'CREATE', 'DELETE', 'DESCRIBE', 'ALTER')),
    permission     TEXT NOT NULL CHECK (permission IN ('ALLOW', 'DENY')),
    created_ms     INTEGER NOT NULL,
    PRIMARY KEY (principal, resource_type, pattern_type, resource_name, operation, permission)
) WITHOUT ROWID;

CREATE TABLE api_keys (
    key_id       TEXT    PRIMARY KEY,
    principal    TEXT    NOT NULL CHECK (length(principal) BETWEEN 1 AND 255),
    salt         BLOB    NOT NULL,
    hash         BLOB    NOT NULL,
    description  TEXT    NOT NULL DEFAULT '',
    created_ms   INTEGER NOT NULL,
    revoked_ms   INTEGER
) WITHOUT ROWID;

CREATE TABLE consumer_group_members (
    group_id              TEXT    NOT NULL REFERENCES consumer_groups (group_id)
                                  ON DELETE CASCADE,
    member_id             TEXT    NOT NULL,
    group_instance_id     TEXT,
    member_epoch          INTEGER NOT NULL CHECK (member_epoch >= -2),
    previous_epoch        INTEGER NOT NULL,
    state                 TEXT    NOT NULL CHECK (state IN
                              ('stable', 'unrevoked_partitions', 'unreleased_partitions')),
    subscribed_topics     TEXT    NOT NULL,  -- JSON list of names
    rebalance_timeout_ms  INTEGER NOT NULL,
    assigned              TEXT    NOT NULL,  -- JSON [[topic, partition], …]
    revoking              TEXT    NOT NULL,  -- JSON [[topic, partition], …]
    target                TEXT    NOT NULL, principal TEXT NOT NULL DEFAULT '',  -- JSON [[topic, partition], …]
    PRIMARY KEY (group_id, member_id)
);

CREATE TABLE consumer_group_offsets (
    group_id          TEXT    NOT NULL REFERENCES consumer_groups (group_id) ON DELETE CASCADE,
    topic_id          INTEGER NOT NULL,
    partition         INTEGER NOT NULL CHECK (partition >= 0),
    committed_offset  INTEGER NOT NULL CHECK (committed_offset >= 0),
    metadata          TEXT,
    commit_seq        INTEGER NOT NULL,
    commit_ms         INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic_id, partition)
);

CREATE TABLE consumer_group_pending_offsets (
    group_id          TEXT    NOT NULL REFERENCES consumer_groups (group_id) ON DELETE CASCADE,
    producer_id       INTEGER NOT NULL,
    topic_id          INTEGER NOT NULL,
    partition         INTEGER NOT NULL CHECK (partition >= 0),
    committed_offset  INTEGER NOT NULL CHECK (committed_offset >= 0),
    metadata          TEXT,
    commit_seq        INTEGER NOT NULL,
    PRIMARY KEY (group_id, producer_id, topic_id, partition)
);

CREATE TABLE consumer_groups (
    group_id      TEXT    PRIMARY KEY,
    group_epoch   INTEGER NOT NULL CHECK (group_epoch >= 0),
    target_epoch  INTEGER NOT NULL CHECK (target_epoch >= 0),
    -- subscribed topics as seen at the last epoch bump: {"topic": [topic_id, partitions]}
    topics        TEXT    NOT NULL DEFAULT '{}',
    -- the last commit sequence handed out (plain commits and transactional stagings)
    commit_seq    INTEGER NOT NULL DEFAULT 0 CHECK (commit_seq >= 0),
    created_ms    INTEGER NOT NULL
);

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

CREATE TABLE producer_id_blocks (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    next_start  INTEGER NOT NULL CHECK (next_start >= 0)
);

CREATE TABLE producer_id_owners (
    block_start  INTEGER PRIMARY KEY CHECK (block_start >= 0),
    block_end    INTEGER NOT NULL CHECK (block_end > block_start),
    principal    TEXT    NOT NULL
);

CREATE TABLE quotas (
    principal           TEXT    PRIMARY KEY,
    producer_byte_rate  INTEGER CHECK (producer_byte_rate > 0),
    consumer_byte_rate  INTEGER CHECK (consumer_byte_rate > 0),
    updated_ms          INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_ms INTEGER NOT NULL
);

CREATE TABLE share_dead_letter_marks (
    group_id       TEXT    NOT NULL,
    topic_id       INTEGER NOT NULL,
    partition      INTEGER NOT NULL CHECK (partition >= 0),
    dlq_topic_id   INTEGER NOT NULL,
    dlq_partition  INTEGER NOT NULL CHECK (dlq_partition >= 0),
    from_offset    INTEGER NOT NULL CHECK (from_offset >= 0),
    PRIMARY KEY (group_id, topic_id, partition)
) WITHOUT ROWID;

CREATE TABLE share_groups (
    group_id     TEXT    PRIMARY KEY,
    config       TEXT    NOT NULL DEFAULT '{}',
    created_ms   INTEGER NOT NULL
);

CREATE TABLE share_partitions (
    group_id      TEXT    NOT NULL REFERENCES share_groups (group_id) ON DELETE CASCADE,
    topic_id      INTEGER NOT NULL,
    partition     INTEGER NOT NULL CHECK (partition >= 0),
    state_epoch   INTEGER NOT NULL CHECK (state_epoch >= 0),
    start_offset  INTEGER NOT NULL CHECK (start_offset >= 0),
    updated_ms    INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic_id, partition)
);

CREATE TABLE share_state_batches (
    group_id        TEXT    NOT NULL,
    topic_id        INTEGER NOT NULL,
    partition       INTEGER NOT NULL,
    first_offset    INTEGER NOT NULL,
    last_offset     INTEGER NOT NULL,
    state           INTEGER NOT NULL CHECK (state IN (0, 2, 4)),
    delivery_count  INTEGER NOT NULL CHECK (delivery_count >= 0),
    PRIMARY KEY (group_id, topic_id, partition, first_offset),
    FOREIGN KEY (group_id, topic_id, partition)
        REFERENCES share_partitions (group_id, topic_id, partition) ON DELETE CASCADE,
    CHECK (last_offset >= first_offset)
) WITHOUT ROWID;

CREATE TABLE share_txn_acks (
    group_id        TEXT    NOT NULL,
    topic_id        INTEGER NOT NULL,
    partition       INTEGER NOT NULL CHECK (partition >= 0),
    first_offset    INTEGER NOT NULL CHECK (first_offset >= 0),
    last_offset     INTEGER NOT NULL,
    producer_id     INTEGER NOT NULL CHECK (producer_id >= 0),
    type            TEXT    NOT NULL CHECK (type IN ('accept', 'release', 'reject')),
    delay_ms        INTEGER NOT NULL DEFAULT 0 CHECK (delay_ms >= 0),
    delivery_count  INTEGER NOT NULL CHECK (delivery_count >= 1),
    member_id       TEXT    NOT NULL,
    PRIMARY KEY (group_id, topic_id, partition, first_offset),
    CHECK (last_offset >= first_offset)
) WITHOUT ROWID;

CREATE TABLE topics (
    topic_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT    NOT NULL UNIQUE,
    partitions   INTEGER NOT NULL CHECK (partitions >= 1),
    config       TEXT    NOT NULL DEFAULT '{}',
    state        TEXT    NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'deleting')),
    created_ms   INTEGER NOT NULL
);

CREATE TABLE transactions (
    transactional_id  TEXT    PRIMARY KEY,
    producer_id       INTEGER NOT NULL,
    producer_epoch    INTEGER NOT NULL CHECK (producer_epoch BETWEEN 0 AND 32767),
    last_producer_id  INTEGER NOT NULL DEFAULT -1,
    last_epoch        INTEGER NOT NULL DEFAULT -1,
    timed_out_epoch   INTEGER NOT NULL DEFAULT -1,
    timeout_ms        INTEGER NOT NULL CHECK (timeout_ms > 0),
    state             TEXT    NOT NULL CHECK (state IN ('Empty', 'Ongoing', 'PrepareCommit',
                          'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead',
                          'PrepareEpochFence')),
    partitions        TEXT    NOT NULL DEFAULT '[]',
    groups            TEXT    NOT NULL DEFAULT '[]',
    start_ms          INTEGER NOT NULL DEFAULT -1,
    updated_ms        INTEGER NOT NULL
, share_groups TEXT NOT NULL DEFAULT '[]');

CREATE TABLE txn_commit_keys (
    key                TEXT    PRIMARY KEY,
    transactional_ids  TEXT    NOT NULL,
    committed_ms       INTEGER NOT NULL
) WITHOUT ROWID;

CREATE UNIQUE INDEX consumer_group_members_instance
    ON consumer_group_members (group_id, group_instance_id)
    WHERE group_instance_id IS NOT NULL;

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);

CREATE INDEX share_txn_acks_by_producer ON share_txn_acks (group_id, producer_id);

CREATE INDEX transactions_state ON transactions (state);

CREATE INDEX txn_commit_keys_committed ON txn_commit_keys (committed_ms);
