"""Request bodies in, answers out: one module per area, all built on one field kit.

- ``_fields``: the checks every body is parsed with (integers, names, member ids, lists…);
- ``bounded_json``: the count of a body's (or frame's) values and nesting before it is parsed;
- ``records``: records in the three encodings (produce, read);
- ``txn``: producer ids, stateful produce, transactional offsets and acknowledgements;
- ``groups``: consumer-group heartbeat and offset commit;
- ``topics``: topic create / patch / delete-records, topic descriptions;
- ``share``: share-group heartbeat, fetch, acknowledge, config and offsets reset.
"""
