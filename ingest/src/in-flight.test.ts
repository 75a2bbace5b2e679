import { describe, expect, it } from 'vitest';
import { CountByKey, RecentById } from './in-flight.ts';

describe('RecentById', () => {
  it('finds what is held and forgets what settled', () => {
    const m = new RecentById<string>(4);
    m.set('a', 'A');
    expect(m.get('a')).toBe('A');
    m.settle('a', 'A');
    expect(m.get('a')).toBeUndefined();
    // A new value for a settled id is held again; settling an old value leaves the new one.
    m.set('a', 'A2');
    m.settle('a', 'A');
    expect(m.get('a')).toBe('A2');
  });

  it('keeps the previous generation and drops the one before it', () => {
    const m = new RecentById<number>(3);
    for (let i = 0; i < 3; i++) m.set(`g1-${i}`, i);
    for (let i = 0; i < 3; i++) m.set(`g2-${i}`, i); // the first of these starts generation 2
    expect(m.get('g1-0')).toBe(0);
    expect(m.get('g2-2')).toBe(2);
    m.settle('g1-1', 1);
    expect(m.get('g1-1')).toBeUndefined();
    m.set('g3-0', 0); // generation 3: generation 1 is dropped
    expect(m.get('g1-0')).toBeUndefined();
    expect(m.get('g1-2')).toBeUndefined();
    expect(m.get('g2-0')).toBe(0);
    expect(m.get('g3-0')).toBe(0);
  });

  it('overwrites an id of the current generation without starting a new one', () => {
    const m = new RecentById<number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.set('b', 3);
    m.set('a', 4);
    expect([m.get('a'), m.get('b')]).toEqual([4, 3]);
  });
});

describe('CountByKey', () => {
  it('counts per key and the keys above zero', () => {
    const c = new CountByKey();
    c.add('h1');
    c.add('h1');
    c.add('h2');
    expect([c.has('h1'), c.has('h2'), c.has('h3'), c.busy]).toEqual([true, true, false, 2]);
    c.remove('h1');
    expect([c.has('h1'), c.busy]).toEqual([true, 2]);
    c.remove('h1');
    c.remove('h1'); // below zero is ignored
    expect([c.has('h1'), c.busy]).toEqual([false, 1]);
    c.add('h1');
    expect([c.has('h1'), c.busy]).toEqual([true, 2]);
  });

  it('drops idle keys when it holds too many, and keeps the busy ones', () => {
    const c = new CountByKey(4);
    c.add('busy');
    for (const k of ['a', 'b', 'c']) {
      c.add(k);
      c.remove(k);
    }
    c.add('d'); // 4 keys held: the idle ones go
    expect([c.has('busy'), c.has('a'), c.has('d'), c.busy]).toEqual([true, false, true, 2]);
    c.remove('busy');
    c.remove('d');
    expect(c.busy).toBe(0);
  });

  it('does not rebuild on every new key while most keys are busy', () => {
    const c = new CountByKey(4);
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) c.add(k); // all busy: nothing to drop, nothing dropped
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => c.has(k))).toEqual([true, true, true, true, true, true]);
    expect(c.busy).toBe(6);
    for (const k of ['a', 'b', 'c', 'd', 'e']) c.remove(k);
    c.add('g'); // 7 keys held, 2 busy: the idle ones go
    c.remove('f');
    c.remove('g');
    expect(c.busy).toBe(0);
    for (const k of ['a', 'f', 'g']) expect(c.has(k)).toBe(false);
  });
});
