-- Share groups (KIP-932): each group with its configuration, and the durable state of each
-- share partition: the state epoch (bumped by an offsets reset, fencing older writes), the start
-- offset (SPSO) and the state batches. ACQUIRED is never persisted; AVAILABLE with delivery
-- count 0 is not written either (a gap between batches means "maybe not fetched yet").

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
