"""Request bodies in, answers out: one module per area, each body declared once on one kit.

- ``body``: the kit: the base of every body, the shared field types (names, partitions,
  64-bit integers…), the decode of a body's bytes into its declaration, and msgspec's
  refusals in the wire's words;
- ``bounded_json``: the count of a body's (or frame's) values and nesting before it is parsed;
- ``records``: records in the three encodings (produce, read);
- ``txn``: producer ids, stateful produce, transactional offsets and acknowledgements;
- ``groups``: consumer-group heartbeat and offset commit;
- ``topics``: topic create / patch / delete-records, topic descriptions;
- ``share``: share-group heartbeat, fetch, acknowledge, config and offsets reset;
- ``frames``: the client frames of a push session;
- ``acls``, ``quotas``, ``keys``: the admin bodies.
"""
