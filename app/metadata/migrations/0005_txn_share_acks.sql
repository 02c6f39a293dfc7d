-- Transactional share acknowledgements (docs/semantics.md#transactional-acknowledgements): the
-- share groups that joined each transaction, and the acknowledgements staged under an open
-- transaction. A staged row keeps its records ACQUIRED by the member, lock suspended, until the
-- transaction ends; the end applies (commit) or releases (abort) them and deletes the rows in the
-- same SQLite transaction as the share state it writes.

ALTER TABLE transactions ADD COLUMN share_groups TEXT NOT NULL DEFAULT '[]';

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

CREATE INDEX share_txn_acks_by_producer ON share_txn_acks (group_id, producer_id);
