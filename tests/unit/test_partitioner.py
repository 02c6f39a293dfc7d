import pytest

from app.partitioner import murmur2, partition_for_key

# Kafka's UtilsTest.testMurmur2 vectors: keys must land where a Kafka producer puts them.
KAFKA_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}


@pytest.mark.parametrize(("key", "expected"), KAFKA_VECTORS.items())
def test_murmur2_matches_kafka(key: bytes, expected: int) -> None:
    assert murmur2(key) == expected


def test_partition_uses_the_positive_hash() -> None:
    # toPositive(-790332482) = 1357151166; 1357151166 % 50 = 16
    assert partition_for_key(b"foobar", 50) == 16
    assert all(0 <= partition_for_key(bytes([i]) * i, 7) < 7 for i in range(64))


def test_every_tail_length_is_hashed() -> None:
    seen = {murmur2(b"abcdefgh"[:n]) for n in range(9)}
    assert len(seen) == 9
