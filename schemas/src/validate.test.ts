import { describe, expect, it } from 'vitest';
import {
  validateEvent,
  eventSchemaV1,
  type EventV1,
  SEVERITIES,
  CATEGORIES,
  PRODUCTS,
  OS_FAMILIES,
  RAW_FORMATS,
  RISK_LEVELS,
  severityRank,
} from './index.ts';
import { sampleEvent } from './fixtures.ts';

type Obj = Record<string, unknown>;

/** A sample event with one value set at a JSON-pointer-like path (undefined deletes it). */
function withValue(path: string, value: unknown): Obj {
  const ev = structuredClone(sampleEvent()) as unknown as Obj;
  const parts = path.split('/').filter(Boolean);
  let cur = ev;
  for (const p of parts.slice(0, -1)) cur = cur[p] as Obj;
  const last = parts.at(-1)!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return ev;
}

function pointers(x: unknown): string[] {
  const r = validateEvent(x);
  return r.ok ? [] : r.errors.map((e) => e.pointer);
}

const ASTRAL = '😀'; // 1 character, 2 UTF-16 units, 4 UTF-8 bytes
const TWO_BYTE = 'é';

describe('event schema v1: the sample', () => {
  it('accepts a full valid event and the minimal one', () => {
    expect(validateEvent(sampleEvent())).toMatchObject({ ok: true });
    const minimal = sampleEvent();
    for (const k of ['details', 'raw', 'tags', 'dedup_key', 'correlation_id', 'fingerprint', 'enrichment'] as const)
      delete minimal[k];
    minimal.source = { product: 'rdp-login-monitor', product_version: '1' };
    minimal.host = { hostname: 'h', os_family: 'windows' };
    expect(validateEvent(minimal)).toEqual({ ok: true, event: minimal });
  });

  it('rejects what is not an object', () => {
    for (const x of [null, 'x', 1, [], true]) expect(validateEvent(x).ok).toBe(false);
    expect(pointers([])).toEqual(['']);
  });
});

describe('length limits at their edges (characters, not bytes)', () => {
  const cases: [path: string, max: number][] = [
    ['/title', 256],
    ['/summary', 8192],
    ['/raw/payload', 16384],
    ['/dedup_key', 512],
    ['/fingerprint', 128],
  ];
  for (const [path, max] of cases) {
    for (const ch of ['a', TWO_BYTE, ASTRAL]) {
      it(`${path}: ${max} × ${JSON.stringify(ch)} ok, ${max + 1} rejected`, () => {
        expect(pointers(withValue(path, ch.repeat(max)))).toEqual([]);
        expect(pointers(withValue(path, ch.repeat(max + 1)))).toEqual([path]);
      });
    }
  }

  it('tags: 32 items ok, 33 rejected', () => {
    expect(
      pointers(
        withValue(
          '/tags',
          Array.from({ length: 32 }, (_, i) => `t${i}`),
        ),
      ),
    ).toEqual([]);
    expect(
      pointers(
        withValue(
          '/tags',
          Array.from({ length: 33 }, (_, i) => `t${i}`),
        ),
      ),
    ).toEqual(['/tags']);
  });
  for (const ch of ['a', TWO_BYTE, ASTRAL]) {
    it(`tags: an item of 64 × ${JSON.stringify(ch)} ok, 65 rejected (pointer names the item)`, () => {
      expect(pointers(withValue('/tags', ['ok', ch.repeat(64)]))).toEqual([]);
      expect(pointers(withValue('/tags', ['ok', ch.repeat(65)]))).toEqual(['/tags/1']);
    });
  }
  it('tags must be strings', () => {
    expect(pointers(withValue('/tags', ['a', 5]))).toEqual(['/tags/1']);
  });
});

describe('enums', () => {
  const enums: [path: string, values: readonly string[]][] = [
    ['/category', CATEGORIES],
    ['/severity', SEVERITIES],
    ['/source/product', PRODUCTS],
    ['/host/os_family', OS_FAMILIES],
    ['/raw/format', RAW_FORMATS],
    ['/enrichment/risk_level', RISK_LEVELS],
  ];
  for (const [path, values] of enums) {
    it(`${path}: each of ${values.join(', ')} ok; others rejected`, () => {
      for (const v of values) expect(pointers(withValue(path, v))).toEqual([]);
      for (const bad of ['', 'other', values[0]!.toUpperCase(), ` ${values[0]}`])
        expect(pointers(withValue(path, bad))).toEqual([path]);
    });
  }
  it('the enum lists are the spec lists', () => {
    expect(CATEGORIES).toEqual(['auth', 'privilege', 'network', 'session', 'report', 'agent']);
    expect(SEVERITIES).toEqual(['info', 'warning', 'high', 'critical']);
    expect(PRODUCTS).toEqual(['ssh-monitor', 'rdp-login-monitor']);
    expect(OS_FAMILIES).toEqual(['linux', 'windows']);
    expect(RAW_FORMATS).toEqual(['journal', 'windows_event_xml', 'text']);
    expect(RISK_LEVELS).toEqual(['low', 'medium', 'high', 'critical']);
  });
  it('severityRank orders the severities', () => {
    expect(SEVERITIES.map(severityRank)).toEqual([0, 1, 2, 3]);
  });
});

describe('closed and open objects', () => {
  for (const level of ['', '/source', '/host', '/raw']) {
    it(`an extra property at ${level || 'the top level'} is rejected by its pointer`, () => {
      expect(pointers(withValue(`${level}/extra`, 'x'))).toEqual([`${level}/extra`]);
    });
  }
  it('escapes the pointer of an extra property name', () => {
    expect(pointers(withValue('/host/a~b', 1))).toEqual(['/host/a~0b']);
  });
  it('extra properties are accepted in details and enrichment', () => {
    expect(pointers(withValue('/details/anything', { nested: [1, 2, { x: null }] }))).toEqual([]);
    expect(pointers(withValue('/enrichment/geo', { country: 'DE' }))).toEqual([]);
  });
  it('details and enrichment must be objects; enrichment fields keep their types', () => {
    expect(pointers(withValue('/details', []))).toEqual(['/details']);
    expect(pointers(withValue('/enrichment', 'x'))).toEqual(['/enrichment']);
    expect(pointers(withValue('/enrichment/attempt_number', -1))).toEqual(['/enrichment/attempt_number']);
    expect(pointers(withValue('/enrichment/attempt_number', 0))).toEqual([]);
    expect(pointers(withValue('/enrichment/threshold', 1.5))).toEqual(['/enrichment/threshold']);
    expect(pointers(withValue('/enrichment/threshold', -1))).toEqual(['/enrichment/threshold']);
    expect(pointers(withValue('/enrichment/filtered_out', 'yes'))).toEqual(['/enrichment/filtered_out']);
    expect(pointers(withValue('/enrichment/filter_reason', 3))).toEqual(['/enrichment/filter_reason']);
  });
  it('raw has no required fields', () => {
    expect(pointers(withValue('/raw', {}))).toEqual([]);
  });
});

describe('required fields', () => {
  const required = [
    'schema_version',
    'event_id',
    'occurred_at',
    'source',
    'host',
    'category',
    'type',
    'severity',
    'title',
    'summary',
  ];
  it('lists exactly the spec required fields', () => {
    expect([...eventSchemaV1.required].sort()).toEqual([...required].sort());
  });
  for (const f of required) {
    it(`missing ${f} is reported at /${f}`, () => expect(pointers(withValue(`/${f}`, undefined))).toEqual([`/${f}`]));
  }
  for (const f of ['/source/product', '/source/product_version', '/host/hostname', '/host/os_family']) {
    it(`missing ${f} is reported at ${f}`, () => expect(pointers(withValue(f, undefined))).toEqual([f]));
  }
  it('wrong types are reported by pointer', () => {
    expect(pointers(withValue('/title', 5))).toEqual(['/title']);
    expect(pointers(withValue('/host/ipv4', 5))).toEqual(['/host/ipv4']);
    expect(pointers(withValue('/source', 'ssh'))).toEqual(['/source']);
  });
});

describe('identifiers, times and version', () => {
  it('schema_version must be exactly "1.0"', () => {
    for (const v of ['1.1', '1', '2.0', 1.0]) expect(pointers(withValue('/schema_version', v))).toEqual(['/schema_version']);
  });
  it('event_id and correlation_id must be UUIDs', () => {
    for (const p of ['/event_id', '/correlation_id']) {
      expect(pointers(withValue(p, '6f1c2a9e-3b7d-4c1e-9a2f-0d8e7b6a5c4d'))).toEqual([]);
      expect(pointers(withValue(p, '6F1C2A9E-3B7D-4C1E-9A2F-0D8E7B6A5C4D'))).toEqual([]);
      for (const bad of [
        '',
        'not-a-uuid',
        '6f1c2a9e3b7d4c1e9a2f0d8e7b6a5c4d',
        'urn:uuid:6f1c2a9e-3b7d-4c1e-9a2f-0d8e7b6a5c4d',
        '6f1c2a9e-3b7d-4c1e-9a2f-0d8e7b6a5c4',
      ]) {
        const r = validateEvent(withValue(p, bad));
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errors).toEqual([{ pointer: p, message: expect.stringMatching(/UUID/) }]);
      }
    }
  });
  it('occurred_at needs a date-time with an offset (Z counts)', () => {
    for (const ok of [
      '2024-05-01T12:00:00Z',
      '2024-05-01T12:00:00.123Z',
      '2024-05-01T12:00:00+02:00',
      '2024-05-01T12:00:00-05:30',
      '2024-05-01t12:00:00z',
      '2024-05-01T12:00:00+0200',
    ]) {
      expect(pointers(withValue('/occurred_at', ok)), ok).toEqual([]);
    }
    for (const bad of [
      '2024-05-01T12:00:00',
      '2024-05-01',
      '2024-05-01T12:00:00+02',
      '2024-02-30T12:00:00Z',
      '2024-05-01T25:00:00Z',
      'yesterday',
      '1714564800',
    ]) {
      expect(pointers(withValue('/occurred_at', bad)), bad).toEqual(['/occurred_at']);
    }
  });
});

describe('EventV1 type (derived from the schema)', () => {
  it('types the enums and required fields', () => {
    const ev: EventV1 = sampleEvent();
    // @ts-expect-error severity is the enum from the schema, not any string
    const bad: EventV1 = { ...ev, severity: 'urgent' };
    // @ts-expect-error title is required
    const missing: EventV1 = { ...ev, title: undefined };
    expect([bad.severity, missing.title]).toEqual(['urgent', undefined]);
  });
});
