import { describe, expect, it } from 'vitest';
import { tableDifferences, type CorrelateDump } from './correlate.ts';

const dump = (over: Partial<CorrelateDump> = {}): CorrelateDump => ({
  hosts: [{ hostname: 'a', last_seen: new Date('2025-03-01T00:00:00Z'), inventory_software: { b: 1, a: [1, 2] } }],
  host_changes: [],
  problems: [{ id: 'p1', count: 2 }],
  problem_events: [],
  rdg_sessions: [],
  rdg_pending_disconnects: [],
  rdg_flap_events: [],
  problem_outbox: [],
  ...over,
});

describe('tableDifferences', () => {
  it('is empty for equal dumps (jsonb key order does not matter)', () => {
    const other = dump({
      hosts: [{ hostname: 'a', last_seen: new Date('2025-03-01T00:00:00Z'), inventory_software: { a: [1, 2], b: 1 } }],
    });
    expect(tableDifferences(other, dump())).toEqual({});
  });

  it('names the table, the row counts and the rows that differ', () => {
    const got = dump({ problems: [{ id: 'p1', count: 3 }], rdg_pending_disconnects: [{ host: 'a', session_id: 'S-1' }] });
    expect(tableDifferences(got, dump())).toEqual({
      problems: { rows: '1 (want 1)', first: [{ row: 0, got: { id: 'p1', count: 3 }, want: { id: 'p1', count: 2 } }] },
      rdg_pending_disconnects: {
        rows: '1 (want 0)',
        first: [{ row: 0, got: { host: 'a', session_id: 'S-1' }, want: undefined }],
      },
    });
  });

  it('tells a time that differs by a millisecond', () => {
    const got = dump({ hosts: [{ ...dump().hosts[0]!, last_seen: new Date('2025-03-01T00:00:00.001Z') }] });
    expect(Object.keys(tableDifferences(got, dump()))).toEqual(['hosts']);
  });
});
