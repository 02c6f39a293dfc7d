-- Producer ids and transactions (idempotent producer, transactions with zombie fencing).

-- Producer ids are handed out from blocks: the next block start is reserved here before any id
-- of the block is issued, so ids never repeat across restarts.
CREATE TABLE producer_id_blocks (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    next_start  INTEGER NOT NULL CHECK (next_start >= 0)
);

-- One row per transactional id: the durable half of the coordinator's state. Every field retry
-- detection uses is here: the (producer id, epoch) that the current epoch replaced
-- (last_producer_id, last_epoch) and the epoch a timeout aborted (timed_out_epoch).
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
);

CREATE INDEX transactions_state ON transactions (state);
