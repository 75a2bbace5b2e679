import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope } from './envelope.ts';
import { sampleEvent } from './fixtures.ts';

describe('event envelope', () => {
  it('round-trips', () => {
    const env = { received_at: '2024-05-01T12:00:00.123Z', event: sampleEvent() };
    const buf = encodeEnvelope(env);
    expect(JSON.parse(buf.toString())).toEqual(env);
    expect(decodeEnvelope(buf)).toEqual({ ok: true, envelope: env });
  });

  it('gives a reason for every poison message', () => {
    const cases: [Buffer | null, RegExp][] = [
      [null, /empty/],
      [Buffer.alloc(0), /empty/],
      [Buffer.from('{not json'), /not JSON/],
      [Buffer.from('[1]'), /not a JSON object/],
      [Buffer.from(JSON.stringify({ event: sampleEvent() })), /received_at/],
      [Buffer.from(JSON.stringify({ received_at: '2024-05-01T12:00:00+02:00', event: sampleEvent() })), /received_at/],
      [
        Buffer.from(
          JSON.stringify({ received_at: '2024-05-01T12:00:00.000Z', event: { ...sampleEvent(), title: 'x'.repeat(257) } }),
        ),
        /\/title/,
      ],
      [Buffer.from(JSON.stringify({ received_at: '2024-05-01T12:00:00.000Z' })), /schema v1/],
    ];
    for (const [buf, reason] of cases) {
      const r = decodeEnvelope(buf);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(reason);
    }
  });
});
