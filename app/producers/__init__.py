"""Producing: the one append path (``appender``) and the ways clients produce over it
(``produce``), producer ids (``ids``) and the producer state of each partition (``manager``,
``state``: epochs, sequences and the duplicate window)."""
