import { describe, expect, it } from 'vitest';
import { deadLetterRecord, MAX_DEAD_LETTER_VALUE } from './dead-letter.ts';

describe('deadLetterRecord', () => {
  it('keeps the original bytes and where they came from', () => {
    const value = Buffer.from([0xff, 0x00, 0x7b]);
    expect(deadLetterRecord('value is not JSON', 'events.v1', 3, '42', Buffer.from('host-1'), value)).toEqual({
      reason: 'value is not JSON',
      source_topic: 'events.v1',
      partition: 3,
      offset: '42',
      key: 'host-1',
      value_base64: value.toString('base64'),
    });
    expect(deadLetterRecord('empty message value', 't', 0, '0', null, null)).toMatchObject({ key: null, value_base64: null });
  });
});

describe('deadLetterRecord of a huge value', () => {
  it('cuts the value and says so', () => {
    const rec = deadLetterRecord('too big', 't', 0, '1', null, Buffer.alloc(MAX_DEAD_LETTER_VALUE + 10, 0x61));
    expect(rec.value_truncated).toBe(true);
    expect(Buffer.from(rec.value_base64!, 'base64')).toHaveLength(MAX_DEAD_LETTER_VALUE);
  });
});
