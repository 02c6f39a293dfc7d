-- Dead-letter marks (docs/semantics.md#dead-letter-topic): per share partition, the offset of
-- its dead-letter partition from which copies may lie whose archive is not durable yet. The
-- mark is written before those copies are appended; after a restart, the copies from it on are
-- read back, so that a record copied before a crash is not copied a second time.

CREATE TABLE share_dead_letter_marks (
    group_id       TEXT    NOT NULL,
    topic_id       INTEGER NOT NULL,
    partition      INTEGER NOT NULL CHECK (partition >= 0),
    dlq_topic_id   INTEGER NOT NULL,
    dlq_partition  INTEGER NOT NULL CHECK (dlq_partition >= 0),
    from_offset    INTEGER NOT NULL CHECK (from_offset >= 0),
    PRIMARY KEY (group_id, topic_id, partition)
) WITHOUT ROWID;
