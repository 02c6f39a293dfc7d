-- Security (docs/security.md): API keys, ACLs and per-principal quotas.

-- An API key names a principal. Only a salted hash of its secret is kept; the secret is shown
-- once, when the key is created. A revoked key stays (revoked_ms set) so that its id is never
-- reused and the server keeps requiring keys.
CREATE TABLE api_keys (
    key_id       TEXT    PRIMARY KEY,
    principal    TEXT    NOT NULL CHECK (length(principal) BETWEEN 1 AND 255),
    salt         BLOB    NOT NULL,
    hash         BLOB    NOT NULL,
    description  TEXT    NOT NULL DEFAULT '',
    created_ms   INTEGER NOT NULL,
    revoked_ms   INTEGER
) WITHOUT ROWID;

-- ACL bindings as Kafka has them: (principal, resource type, pattern type, resource name,
-- operation, permission). Deny wins over allow.
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

-- Byte-rate quotas per principal (Kafka's producer_byte_rate and consumer_byte_rate); a
-- principal without a row has the server's defaults. NULL: the default for that kind.
CREATE TABLE quotas (
    principal           TEXT    PRIMARY KEY,
    producer_byte_rate  INTEGER CHECK (producer_byte_rate > 0),
    consumer_byte_rate  INTEGER CHECK (consumer_byte_rate > 0),
    updated_ms          INTEGER NOT NULL
) WITHOUT ROWID;
