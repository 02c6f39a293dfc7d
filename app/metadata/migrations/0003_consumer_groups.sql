-- Consumer groups (KIP-848 style): membership, committed offsets and pending transactional
-- offsets (KIP-447). Session timers are not stored: they restart when the server loads.

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
    target                TEXT    NOT NULL,  -- JSON [[topic, partition], …]
    PRIMARY KEY (group_id, member_id)
);

CREATE UNIQUE INDEX consumer_group_members_instance
    ON consumer_group_members (group_id, group_instance_id)
    WHERE group_instance_id IS NOT NULL;

-- Offsets are keyed by topic id: topic ids are never reused, so a deleted topic's offsets are
-- never shown for a new topic of the same name.
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

-- Transactional offsets staged by a producer, invisible until its transaction commits.
-- commit_seq is the group's sequence at staging: a plain commit with a larger one wins.
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
