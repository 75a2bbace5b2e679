// One decode per message per process. With several consumer groups in one process (`npm run up` runs
// role `all`: correlate, notify and stream read events.v1 side by side) each group fetched and decoded
// every event itself: JSON.parse and the schema v1 check three times over, a fifth of the process's
// time in the drain profile (processors/README.md, "Where the time goes"). The first group to take a
// message decodes it and leaves the result for the others; the last one to take it removes it. A group
// that lags far behind finds nothing (the memo is bounded) and decodes on its own. The bytes are
// compared before a result is reused, so a topic deleted and created again under the same name never
// yields another message's envelope. Handlers must not mutate what they are given (none does: correlate
// copies what it keeps, notify and stream only read).
import { decodeEnvelope, type EventEnvelope } from '@watchpost/schemas';
import type { Decoded, MessageAt } from './steps.ts';

/** At most this many decoded messages of a topic wait for the other groups (~3 KB each), at least half of it. */
const MAX_ENTRIES = 20_000;

interface Entry {
  raw: Buffer;
  decoded: Decoded<unknown>;
  /** how many more of the process's groups will take it */
  left: number;
}

/**
 * A topic's decoded messages by partition and offset. Two generations instead of one map evicted from its
 * front: deleting the oldest key of a Map again and again makes V8 skip ever more holes to find the next
 * one (a profile showed it above JSON.parse). When the young generation is full it becomes the old one
 * and the old one is dropped: O(1) per message.
 */
interface Memo {
  young: Map<number | string, Entry>;
  old: Map<number | string, Entry>;
}

const readers = new Map<string, number>();
const memos = new Map<string, Memo>();

/**
 * The memo's key of a partition's offset: a number while offset x 1024 + partition is exact (offsets below
 * 2^43, partitions below 1024). A string key built per lookup (topic, partition and offset joined) cost
 * 4 % of the drain's main thread in hashing alone.
 */
function keyOf(partition: number, offset: string): number | string {
  const n = Number(offset);
  return n < 2 ** 43 && partition < 1024 ? n * 1024 + partition : `${partition}:${offset}`;
}

/** A group of this process reads `topic` with the shared decoder; the returned function ends that. */
export function registerReader(topic: string): () => void {
  readers.set(topic, (readers.get(topic) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const n = (readers.get(topic) ?? 1) - 1;
    if (n > 0) readers.set(topic, n);
    else {
      readers.delete(topic);
      memos.delete(topic);
    }
  };
}

/** The decoded message at topic/partition/offset: from another group's decode when it is the same bytes. */
export function sharedDecode<T>(
  topic: string,
  partition: number,
  offset: string,
  value: Buffer | null,
  decode: (value: Buffer | null) => Decoded<T>,
): Decoded<T> {
  const others = (readers.get(topic) ?? 1) - 1;
  if (others <= 0 || value === null) return decode(value);
  let memo = memos.get(topic);
  if (!memo) memos.set(topic, (memo = { young: new Map(), old: new Map() }));
  const key = keyOf(partition, offset);
  const inYoung = memo.young.get(key);
  const hit = inYoung ?? memo.old.get(key);
  if (hit && hit.raw.equals(value)) {
    if (--hit.left <= 0) (inYoung ? memo.young : memo.old).delete(key);
    return hit.decoded as Decoded<T>;
  }
  const decoded = decode(value);
  if (memo.young.size >= MAX_ENTRIES / 2) {
    memo.old = memo.young;
    memo.young = new Map();
  }
  memo.young.set(key, { raw: value, decoded, left: others });
  return decoded;
}

/** For tests: what waits in the memo. */
export function sharedDecodeSize(): number {
  let n = 0;
  for (const m of memos.values()) n += m.young.size + m.old.size;
  return n;
}

function decodeEvent(value: Buffer | null): Decoded<EventEnvelope> {
  const d = decodeEnvelope(value);
  return d.ok ? { ok: true, value: d.envelope } : d;
}

/** An event of events.v1 decoded once for all the groups of this process that read it. */
export const decodeEventShared = (value: Buffer | null, at: MessageAt): Decoded<EventEnvelope> =>
  sharedDecode(at.topic, at.partition, at.offset, value, decodeEvent);
