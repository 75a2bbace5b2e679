// The partition writer without a broker: a fake step (the sink), a fake commit and a fake dead-letter
// topic. What the consume loop's correctness rests on: commit after the work (and after the dead
// letters), one write at a time in offset order, isolation of a bad message, pause while failing and
// resume after, nothing committed for a batch given up at stop.
import { describe, expect, it } from 'vitest';
import type { Message } from 'kafkajs';
import { createLogger } from '@watchpost/runtime';
import { PartitionWriter, type PartitionWriterDeps } from './partition-writer.ts';
import { decodedStep, rawStep, type BatchStep, type FetchedMessage, type RawResult } from './steps.ts';

const log = createLogger('silent', 'test');
const msg = (offset: number, value = `v${offset}`): FetchedMessage => ({
  key: Buffer.from('k'),
  value: Buffer.from(value),
  offset: String(offset),
});

/** A world of fakes around one writer; `events` is the order in which the sink, DLQ and commit saw things. */
function harness<I>(step: BatchStep<I>, over: Partial<PartitionWriterDeps<I>> = {}) {
  const events: string[] = [];
  const dlq: Message[] = [];
  let stopping = { stopping: false, deadline: Infinity };
  let pauses = 0;
  let resumes = 0;
  const w = new PartitionWriter<I>({
    topic: 't',
    partition: 0,
    name: 'test',
    log,
    step,
    maxBatchSize: 3,
    maxBatchMs: 50,
    maxBatchBytes: 1 << 20,
    attempts: 2,
    maxBackoffMs: 1,
    sendDeadLetters: async (records) => {
      events.push(`dlq ${records.length}`);
      dlq.push(...records.splice(0));
    },
    commit: async (next) => {
      events.push(`commit ${next}`);
    },
    pause: () => {
      pauses++;
      return true;
    },
    resume: () => {
      resumes++;
    },
    heartbeat: () => {},
    heartbeatMs: 1000,
    stopping: () => stopping,
    ...over,
  });
  return {
    w,
    events,
    dlq,
    counts: () => ({ pauses, resumes }),
    stop: (deadline: number) => (stopping = { stopping: true, deadline }),
  };
}

/** A raw step whose write records the batch and fails as `fail` says. */
function sink(fail: (values: string[], call: number) => Error | RawResult | null = () => null) {
  const written: string[][] = [];
  let calls = 0;
  const step = rawStep(async (batch) => {
    const values = batch.map((m) => m.value!.toString());
    const r = fail(values, ++calls);
    if (r instanceof Error) throw r;
    written.push(values);
    return r ?? { poison: [] };
  });
  return { step, written, calls: () => calls };
}

async function takeAll<I>(w: PartitionWriter<I>, offsets: number[]): Promise<void> {
  for (const o of offsets) w.take(msg(o), Date.now());
  await w.flush();
  await w.drain();
}

describe('PartitionWriter', () => {
  it('writes a batch, sends its poison to the dead-letter topic, then commits after the last offset', async () => {
    const s = sink((values) => (values.includes('v2') ? { poison: [{ index: values.indexOf('v2'), reason: 'bad row' }] } : null));
    const h = harness(s.step);
    await takeAll(h.w, [1, 2, 3]);
    expect(s.written).toEqual([['v1', 'v2', 'v3']]);
    expect(h.events).toEqual(['dlq 1', 'commit 4']);
    expect(JSON.parse(h.dlq[0]!.value as string)).toMatchObject({ reason: 'bad row', partition: 0, offset: '2' });
  });

  it('an undecodable message is dead-lettered at fetch and the rest still reaches the handler', async () => {
    const handled: number[][] = [];
    const decode = (v: Buffer | null) =>
      v?.toString() === 'junk' ? ({ ok: false, reason: 'not JSON' } as const) : ({ ok: true, value: Number(v) } as const);
    const step = decodedStep(new Map([['t', decode]]), async (batch) => {
      handled.push(batch.map((m) => m.envelope));
    });
    const h = harness(step);
    h.w.take(msg(7, '70'), 0);
    h.w.take(msg(8, 'junk'), 0);
    h.w.take(msg(9, '90'), 0);
    await h.w.flush();
    await h.w.drain();
    expect(handled).toEqual([[70, 90]]);
    expect(h.events).toEqual(['dlq 1', 'commit 10']);
    expect(JSON.parse(h.dlq[0]!.value as string)).toMatchObject({ reason: 'not JSON', offset: '8' });
  });

  it('retries a failing write with the partition paused, commits only once it went through, and resumes', async () => {
    const s = sink((_, call) => (call <= 3 ? Object.assign(new Error('connection reset'), { code: 'ECONNRESET' }) : null));
    const h = harness(s.step);
    await takeAll(h.w, [1, 2]);
    expect(s.written).toEqual([['v1', 'v2']]);
    expect(h.events).toEqual(['commit 3']);
    expect(h.counts()).toEqual({ pauses: 1, resumes: 1 });
    expect(h.w.failingSince).toBe(0);
  });

  it('isolates the message that fails deterministically: the others are written, it is dead-lettered with the error', async () => {
    const s = sink((values) => (values.includes('v2') ? new Error('value too long for column') : null));
    const h = harness(s.step);
    await takeAll(h.w, [1, 2, 3]);
    expect(s.written.flat().sort()).toEqual(['v1', 'v3']);
    expect(h.events).toEqual(['dlq 1', 'commit 4']);
    expect(JSON.parse(h.dlq[0]!.value as string).reason).toMatch(/test could not write it: .*value too long/);
  });

  it('dead letters that cannot be sent are retried before the commit, never skipped', async () => {
    let sends = 0;
    const s = sink((values) => ({ poison: values.map((_, index) => ({ index, reason: 'bad' })) }));
    const h = harness(s.step, {
      sendDeadLetters: async (records) => {
        if (++sends < 3) throw new Error('broker away');
        records.splice(0);
        h.events.push('dlq sent');
      },
    });
    await takeAll(h.w, [1]);
    expect(sends).toBe(3);
    expect(h.events).toEqual(['dlq sent', 'commit 2']);
  });

  it('writes one batch at a time, in offset order', async () => {
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const step = rawStep(async (batch) => {
      order.push(`start ${batch[0]!.offset}`);
      if (batch[0]!.offset === '1') await first;
      order.push(`end ${batch[0]!.offset}`);
      return { poison: [] };
    });
    const h = harness(step);
    for (const o of [1, 2, 3]) h.w.take(msg(o), 0);
    await h.w.flush();
    for (const o of [4, 5, 6]) h.w.take(msg(o), 0);
    const second = h.w.flush(); // waits for the first write before handing over the next batch
    await Promise.resolve();
    expect(order).toEqual(['start 1']);
    release();
    await second;
    await h.w.drain();
    expect(order).toEqual(['start 1', 'end 1', 'start 4', 'end 4']);
    expect(h.events).toEqual(['commit 4', 'commit 7']);
  });

  it('a batch still failing when the consumer stops past its deadline is given up, uncommitted', async () => {
    const s = sink(() => Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }));
    const h = harness(s.step);
    h.stop(Date.now() - 1);
    await takeAll(h.w, [1, 2]);
    expect(await h.w.drain()).toBe(false);
    expect(h.events).toEqual([]);
  });
});
