// The groups of one process decode each message once (shared-decode.ts); no broker needed.
import { describe, expect, it } from 'vitest';
import { registerReader, sharedDecode, sharedDecodeSize } from './shared-decode.ts';

function counting() {
  const calls: string[] = [];
  const decode = (v: Buffer | null) => {
    calls.push(v!.toString());
    return { ok: true as const, value: { text: v!.toString() } };
  };
  return { calls, decode };
}

describe('sharedDecode', () => {
  it('decodes a message once for every group of the process that reads its topic', () => {
    const off = [registerReader('t1'), registerReader('t1'), registerReader('t1')];
    const { calls, decode } = counting();
    const msg = Buffer.from('a');
    const first = sharedDecode('t1', 0, '5', msg, decode);
    expect(sharedDecode('t1', 0, '5', Buffer.from('a'), decode)).toBe(first);
    expect(sharedDecode('t1', 0, '5', Buffer.from('a'), decode)).toBe(first);
    expect(calls).toEqual(['a']);
    expect(sharedDecodeSize()).toBe(0); // the last group took it: nothing kept
    off.forEach((f) => f());
  });

  it('decodes again when the bytes differ (a topic created again) and for another offset or partition', () => {
    const off = [registerReader('t2'), registerReader('t2')];
    const { calls, decode } = counting();
    sharedDecode('t2', 0, '1', Buffer.from('old'), decode);
    expect(sharedDecode('t2', 0, '1', Buffer.from('new'), decode)).toEqual({ ok: true, value: { text: 'new' } });
    sharedDecode('t2', 1, '1', Buffer.from('x'), decode);
    sharedDecode('t2', 0, '2', Buffer.from('y'), decode);
    expect(calls).toEqual(['old', 'new', 'x', 'y']);
    off.forEach((f) => f());
    expect(sharedDecodeSize()).toBe(0); // the topic's last reader gone: its entries too
  });

  it('keeps nothing when one group reads the topic, and gives up on a group lagging beyond the bound', () => {
    const one = registerReader('t3');
    const { calls, decode } = counting();
    sharedDecode('t3', 0, '1', Buffer.from('a'), decode);
    sharedDecode('t3', 0, '1', Buffer.from('a'), decode);
    expect(calls).toEqual(['a', 'a']);
    expect(sharedDecodeSize()).toBe(0);
    const two = registerReader('t3');
    for (let i = 0; i < 20_100; i++) sharedDecode('t3', 0, String(i), Buffer.from(`m${i}`), decode);
    expect(sharedDecodeSize()).toBeLessThanOrEqual(20_000);
    expect(sharedDecodeSize()).toBeGreaterThanOrEqual(10_000);
    // the lagging group finds the oldest gone and decodes them itself
    calls.length = 0;
    sharedDecode('t3', 0, '0', Buffer.from('m0'), decode);
    sharedDecode('t3', 0, '20099', Buffer.from('m20099'), decode);
    expect(calls).toEqual(['m0']);
    one();
    two();
  });

  it('keeps partitions and offsets apart at every size (offsets past 2^43 and 2^53, partitions past 1024)', () => {
    const off = [registerReader('t4'), registerReader('t4')];
    const { calls, decode } = counting();
    const at: [number, string][] = [
      [0, '1024'],
      [1, '0'],
      [1024, '0'],
      [0, '1'],
      [2000, '8796093022208'],
      [0, '8796093022208'],
      [0, '8796093022209'],
      [3, '9007199254740993'],
      [3, '9007199254740992'],
    ];
    for (const [p, o] of at) sharedDecode('t4', p, o, Buffer.from(`${p}/${o}`), decode);
    expect(calls).toEqual(at.map(([p, o]) => `${p}/${o}`));
    // each one's second group gets its own decode back
    for (const [p, o] of at)
      expect(sharedDecode('t4', p, o, Buffer.from(`${p}/${o}`), decode)).toEqual({ ok: true, value: { text: `${p}/${o}` } });
    expect(calls).toHaveLength(at.length);
    off.forEach((f) => f());
  });
});
