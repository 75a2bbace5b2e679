import { describe, expect, it } from 'vitest';
import { AGENT_KEY_HEADER, agentKeyIdOf, decodeEnvelope, encodeEnvelope, rawEventJson } from './envelope.ts';
import { sampleEvent } from './fixtures.ts';

describe('event envelope', () => {
  it('round-trips', () => {
    const env = { received_at: '2024-05-01T12:00:00.123Z', event: sampleEvent() };
    const buf = encodeEnvelope(env);
    expect(JSON.parse(buf.toString())).toEqual(env);
    expect(decodeEnvelope(buf)).toEqual({ ok: true, envelope: env });
    expect(decodeEnvelope(buf, { eventJson: true })).toEqual({ ok: true, envelope: env, eventJson: JSON.stringify(env.event) });
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

describe('the event text cut out of an envelope', () => {
  const at = '2024-05-01T12:00:00.123Z';
  const wrap = (event: string, tail = '}') => `{"received_at":"${at}","event":${event}${tail}`;

  it('is the text the agent sent, braces, brackets, quotes and escapes in strings included', () => {
    const ev = JSON.stringify(sampleEvent({ title: 'a } ] { [ "quoted" \\ \\" end', details: { k: ['}', { '{': '"' }] } }));
    const pretty = `{\n  "x" : "}\\"{" ,\n  "y": [1, {"z": "]"}]\n}`;
    expect(rawEventJson(wrap(ev))).toBe(ev);
    expect(rawEventJson(wrap(pretty, ' }\n'))).toBe(pretty);
    expect(JSON.parse(rawEventJson(wrap(pretty))!)).toEqual(JSON.parse(pretty));
  });

  it('is not guessed for any other layout', () => {
    const ev = JSON.stringify(sampleEvent());
    expect(rawEventJson(wrap(ev, ',"event":{}}'))).toBeUndefined(); // a repeated key: JSON.parse keeps the last
    expect(rawEventJson(wrap(ev, `,"received_at":"${at}"}`))).toBeUndefined();
    expect(rawEventJson(`{"event":${ev},"received_at":"${at}"}`)).toBeUndefined();
    expect(rawEventJson(`{ "received_at":"${at}","event":${ev}}`)).toBeUndefined();
    expect(rawEventJson(wrap('[1]'))).toBeUndefined();
  });

  it('decodeEnvelope leaves it out when the layout differs, and the row serialises the event then', () => {
    const event = sampleEvent();
    const r = decodeEnvelope(Buffer.from(`{"event":${JSON.stringify(event)},"received_at":"${at}"}`), { eventJson: true });
    expect(r).toEqual({ ok: true, envelope: { received_at: at, event } });
  });

  it('reads the agent key id header: a positive decimal id, else unknown', () => {
    const h = (v: unknown) => ({ [AGENT_KEY_HEADER]: v });
    expect(agentKeyIdOf(h(Buffer.from('42')))).toBe(42);
    expect(agentKeyIdOf(h('7'))).toBe(7);
    expect(agentKeyIdOf(h([Buffer.from('9'), Buffer.from('8')]))).toBe(9);
    for (const bad of [undefined, null, '', '0', '-1', '01', '1.5', ' 1', 'x', '99999999999999999', Buffer.from('1e3'), 5])
      expect(agentKeyIdOf(h(bad)), String(bad)).toBeNull();
    expect(agentKeyIdOf(undefined)).toBeNull();
    expect(agentKeyIdOf({})).toBeNull();
  });
});
