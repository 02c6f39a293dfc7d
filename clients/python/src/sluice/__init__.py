"""Sluice's Python client: ``Sluice`` (sync) and ``AsyncSluice`` (asyncio), with the same
names and methods; ``errors`` holds one exception class per error code of the server."""

from sluice._batches import RecordMetadata
from sluice._push import PushSessionEnded
from sluice.admin import DeadLetter
from sluice.client import AsyncSluice, Sluice
from sluice.consumer import AsyncShareConsumer, ShareConsumer, ShareRecord
from sluice.errors import SluiceError
from sluice.groups import AsyncConsumer, Consumer, ConsumerRecord
from sluice.producer import AsyncProducer, Producer
from sluice.transactions import AsyncTransactionalProducer, GroupMetadata, TransactionalProducer

__all__ = [
    "AsyncConsumer",
    "AsyncProducer",
    "AsyncShareConsumer",
    "AsyncSluice",
    "AsyncTransactionalProducer",
    "Consumer",
    "ConsumerRecord",
    "DeadLetter",
    "GroupMetadata",
    "Producer",
    "PushSessionEnded",
    "RecordMetadata",
    "ShareConsumer",
    "ShareRecord",
    "Sluice",
    "SluiceError",
    "TransactionalProducer",
]
