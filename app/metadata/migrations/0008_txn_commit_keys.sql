-- Idempotency keys of POST /v1/transactions:commit-all (docs/semantics.md#commit-all). A key is
-- written in the same SQLite commit as the PrepareCommit rows of the transactions it commits, so
-- finding it means they were committed. The key is scoped by the principal that sent it when the
-- server requires API keys ("<principal>\0<key>"). The transaction sweeper deletes keys older
-- than SLUICE_TXN_COMMIT_KEY_RETENTION_MS.
CREATE TABLE txn_commit_keys (
    key                TEXT    PRIMARY KEY,
    transactional_ids  TEXT    NOT NULL,
    committed_ms       INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX txn_commit_keys_committed ON txn_commit_keys (committed_ms);
