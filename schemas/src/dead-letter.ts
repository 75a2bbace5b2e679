// The dead-letter record: what a processor writes to `events.v1.dlq` for a message it cannot handle
// (processors/README.md, "Dead letters").
export interface DeadLetter {
  reason: string;
  source_topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value_base64: string | null;
  value_truncated?: true;
}

/** Larger values are cut (value_truncated: true) so the record fits the broker's message limit. */
export const MAX_DEAD_LETTER_VALUE = 512 * 1024;

export function deadLetterRecord(
  reason: string,
  topic: string,
  partition: number,
  offset: string,
  key: Buffer | null,
  value: Buffer | null,
): DeadLetter {
  return {
    reason,
    source_topic: topic,
    partition,
    offset,
    key: key === null ? null : key.toString('utf8'),
    value_base64: value === null ? null : value.subarray(0, MAX_DEAD_LETTER_VALUE).toString('base64'),
    ...(value !== null && value.length > MAX_DEAD_LETTER_VALUE ? { value_truncated: true } : {}),
  };
}
