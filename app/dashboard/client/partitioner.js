// Kafka's default partitioner for keyed records: murmur2 of the key bytes, made positive,
// modulo the partition count (the partition a Kafka client, and the server, pick).

export function murmur2(data) {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = (0x9747b28c ^ length) >>> 0;
  const whole = length - (length % 4);
  for (let i = 0; i < whole; i += 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const rest = length % 4;
  if (rest === 3) h ^= data[whole + 2] << 16;
  if (rest >= 2) h ^= data[whole + 1] << 8;
  if (rest >= 1) {
    h ^= data[whole];
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

export function partitionForKey(key, partitions) {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
