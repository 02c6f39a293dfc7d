-- What a principal made belongs to it (docs/security.md#ownership).
--
-- Producer ids are reserved in blocks, each block for one principal: the row naming the
-- principal is written in the same SQLite commit that reserves the block, before any id of it
-- is answered, so a restart never forgets whose an id is. '' is the principal of a server
-- without API keys. Ids reserved before this migration have no row: they belong to no
-- principal, and a server that requires keys answers them as unknown.
CREATE TABLE producer_id_owners (
    block_start  INTEGER PRIMARY KEY CHECK (block_start >= 0),
    block_end    INTEGER NOT NULL CHECK (block_end > block_start),
    principal    TEXT    NOT NULL
);

-- The principal that joined a consumer-group member; '' without API keys. Members saved before
-- this migration have '' too: on a server that requires keys they are unknown to everyone and
-- rejoin, as after their session ends.
ALTER TABLE consumer_group_members ADD COLUMN principal TEXT NOT NULL DEFAULT '';
