import { describe, expect, it } from 'vitest';
import { newKafkaClusterId } from './kafka-broker.ts';

describe('newKafkaClusterId', () => {
  it("is Kafka's 22-character base64url id and never starts with '-' (taken for an option by kafka-storage)", () => {
    // 1 in 64 random ids starts with '-': 20,000 draws meet about 300 of them.
    const ids = Array.from({ length: 20_000 }, newKafkaClusterId);
    expect(ids.filter((id) => !/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
