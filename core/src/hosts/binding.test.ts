import { describe, expect, it } from 'vitest';
import { identitySuspects, planHosts, plausibleInstanceId, type ConfirmedHost, type HostObservation } from './binding.ts';

const T0 = Date.parse('2030-01-01T00:00:00Z');
let seq = 0;
function obs(over: Partial<HostObservation> = {}): HostObservation {
  seq++;
  return {
    hostname: 'h',
    event_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    received_at: new Date(T0 + seq * 1000),
    live: false,
    agent_instance_id: 'a',
    key_id: 1,
    os_family: 'linux',
    product: 'ssh-monitor',
    product_version: '1.0',
    display_name: null,
    os_version: null,
    fqdn: null,
    ipv4: '10.0.0.5',
    ipv6: null,
    timezone: null,
    ...over,
  };
}
const known = (over: Partial<ConfirmedHost> = {}): Map<string, ConfirmedHost> =>
  new Map([
    [
      'h',
      {
        hostname: 'h',
        agent_instance_id: 'a',
        bound_key_id: 1,
        os_family: 'linux',
        product: 'ssh-monitor',
        product_version: '0.9',
        fqdn: null,
        ipv4: '10.0.0.5',
        internal_address: '10.0.0.5',
        last_beat_at: null,
        beat_gaps: [],
        heartbeat_interval_seconds: null,
        pending: {},
        known_ipv4: [],
        ...over,
      },
    ],
  ]);

describe('plausibleInstanceId', () => {
  it.each([
    ['a1b2', 'a1b2'],
    ['x'.repeat(128), 'x'.repeat(128)],
    ['', null],
    ['   ', null],
    ['x'.repeat(129), null],
    ['a\u0000b', null],
    ['a\nb', null],
    ['a\u007fb', null],
    ['a\u0085b', null],
    [undefined, null],
    [null, null],
  ])('%j -> %j', (v, want) => expect(plausibleInstanceId(v)).toBe(want));
});

describe('planHosts', () => {
  it.each<[string, Map<string, ConfirmedHost>, Partial<HostObservation>, string]>([
    ['a new host is bound', new Map(), {}, 'bind'],
    ['the bound agent, same facts', known(), {}, 'bound'],
    // Issue 33 item 3: bound to an instance, an event without one is not the bound agent.
    ['no instance id, host bound to one: a conflict', known(), { agent_instance_id: undefined }, 'conflict'],
    [
      'no instance id and key unknown, host bound to one: a conflict',
      known(),
      { agent_instance_id: null, key_id: null },
      'conflict',
    ],
    [
      'no instance id, host bound to none: its agent',
      known({ agent_instance_id: null }),
      { agent_instance_id: undefined },
      'bound',
    ],
    ['key unknown: not a conflict', known(), { key_id: null }, 'bound'],
    ['another instance', known(), { agent_instance_id: 'b' }, 'conflict'],
    ['another key', known(), { key_id: 2 }, 'conflict'],
    ['an implausible instance counts as absent: a conflict', known(), { agent_instance_id: 'x'.repeat(200) }, 'conflict'],
    ['a blank instance, host bound to one: a conflict', known(), { agent_instance_id: '  ' }, 'conflict'],
    [
      'an implausible instance, host bound to none: its agent',
      known({ agent_instance_id: null }),
      { agent_instance_id: 'a\u0000b' },
      'bound',
    ],
    ['other ipv4', known(), { ipv4: '10.0.0.6' }, 'facts'],
    ['absent ipv4 is no change', known(), { ipv4: null }, 'bound'],
    ['an ipv4 accepted before (another leg)', known({ known_ipv4: ['192.168.50.4'] }), { ipv4: '192.168.50.4' }, 'bound'],
    [
      'another leg, with another fact: only that fact',
      known({ known_ipv4: ['192.168.50.4'] }),
      { ipv4: '192.168.50.4', fqdn: 'h.lan' },
      'facts',
    ],
    ['an address never accepted', known({ known_ipv4: ['192.168.50.4'] }), { ipv4: '192.168.50.5' }, 'facts'],
    ['an fqdn where none is confirmed', known(), { fqdn: 'h.lan' }, 'facts'],
    ['other product', known(), { product: 'rdp-login-monitor' }, 'facts'],
    ['a host bound before: instance filled', known({ agent_instance_id: null }), { agent_instance_id: 'b' }, 'bind'],
    ['a host bound before: key filled', known({ bound_key_id: null }), { key_id: 7 }, 'bind'],
  ])('%s', (_, k, o, want) => {
    const plan = planHosts(k, [obs(o)]);
    expect(plan.verdicts.map((v) => v.kind)).toEqual([want]);
    if (k.size > 0) {
      const h = plan.hosts[0]!;
      // A known host's facts in the refresh are the confirmed ones, whatever the event said.
      expect([h.os_family, h.product, h.fqdn, h.ipv4]).toEqual(['linux', 'ssh-monitor', null, '10.0.0.5']);
    }
  });

  it('decides in order against the batch so far; a conflict neither binds nor refreshes descriptive fields', () => {
    const plan = planHosts(new Map(), [
      obs({ agent_instance_id: undefined, key_id: null, display_name: 'first' }),
      obs({ agent_instance_id: 'a', display_name: 'bound' }),
      obs({ agent_instance_id: 'b', display_name: 'impostor', product_version: '9', live: true }),
      obs({ agent_instance_id: 'a', key_id: 1, ipv4: '10.0.0.9' }),
    ]);
    expect(plan.verdicts.map((v) => v.kind)).toEqual(['bind', 'bind', 'conflict', 'facts']);
    const [h] = plan.hosts;
    expect(h).toMatchObject({ agent_instance_id: 'a', bound_key_id: 1, display_name: 'bound', product_version: '1.0' });
    expect(h!.last_heartbeat).not.toBeNull(); // the conflicting heartbeat is still a sign of life
    // The new host's first facts wait for an admin (issue 33); the later address replaces the proposal.
    expect(plan.changes.map((c) => [c.kind, c.proposed, c.seen_count])).toEqual([
      ['facts', { ipv4: '10.0.0.9', internal_address: '10.0.0.9' }, 2],
      [
        'identity',
        {
          agent_instance_id: 'b',
          key_id: 1,
          os_family: 'linux',
          product: 'ssh-monitor',
          ipv4: '10.0.0.5',
          internal_address: '10.0.0.5',
        },
        1,
      ],
    ]);
  });

  it('an event without an instance id for a host bound to one is held as an identity change that unbinds the instance', () => {
    const plan = planHosts(known(), [
      obs({ agent_instance_id: undefined, display_name: 'impostor', product_version: '9', ipv4: '10.6.6.6', live: true }),
      obs({ agent_instance_id: '', key_id: 2, ipv4: '10.6.6.7' }),
    ]);
    expect(plan.verdicts).toEqual([
      { kind: 'conflict', bound: { agent_instance_id: 'a', key_id: 1 }, agent_instance_id: null, key_id: 1 },
      { kind: 'conflict', bound: { agent_instance_id: 'a', key_id: 1 }, agent_instance_id: null, key_id: 2 },
    ]);
    // Neither a facts change of the bound agent nor its names and version: one identity change, the latest proposal.
    const [h] = plan.hosts;
    expect(h).toMatchObject({ agent_instance_id: null, display_name: null, product_version: '0.9', ipv4: '10.0.0.5' });
    expect(h!.last_heartbeat).not.toBeNull();
    expect(plan.changes).toEqual([
      expect.objectContaining({
        kind: 'identity',
        // null, not left out: accepting binds the host to an agent that sends no instance id.
        proposed: {
          agent_instance_id: null,
          key_id: 2,
          os_family: 'linux',
          product: 'ssh-monitor',
          ipv4: '10.6.6.7',
          internal_address: '10.6.6.7',
        },
        current: expect.objectContaining({ agent_instance_id: 'a', key_id: 1 }),
        agent_instance_id: null,
        key_id: 2,
        seen_count: 2,
      }),
    ]);
  });

  it('within a batch: once a new host is bound to an instance, an event without one is a conflict', () => {
    const plan = planHosts(new Map(), [obs({ agent_instance_id: 'a' }), obs({ agent_instance_id: undefined })]);
    expect(plan.verdicts.map((v) => v.kind)).toEqual(['bind', 'conflict']);
    // A host first bound without one (ssh-monitor's e-mails) stays open to events without one, and is filled by the first that has one.
    const smtp = planHosts(new Map(), [
      obs({ agent_instance_id: undefined }),
      obs({ agent_instance_id: undefined }),
      obs({ agent_instance_id: 'a' }),
    ]);
    expect(smtp.verdicts.map((v) => v.kind)).toEqual(['bind', 'bound', 'bind']);
  });

  it("a new host's first facts are a pending change with nothing confirmed before (issue 33)", () => {
    const plan = planHosts(new Map(), [obs({ agent_instance_id: 'a', fqdn: 'web-01.corp', ipv4: '10.0.0.5' })]);
    expect(plan.verdicts.map((v) => v.kind)).toEqual(['bind']);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        kind: 'facts',
        proposed: {
          os_family: 'linux',
          product: 'ssh-monitor',
          fqdn: 'web-01.corp',
          ipv4: '10.0.0.5',
          internal_address: '10.0.0.5',
        },
        current: {
          agent_instance_id: 'a',
          key_id: 1,
          os_family: null,
          product: null,
          fqdn: null,
          ipv4: null,
          internal_address: null,
        },
        seen_count: 1,
      }),
    ]);
    // Its row shows what the event said; whether credentials may go there is the row's confirmed_at, not these.
    expect(plan.hosts[0]).toMatchObject({ fqdn: 'web-01.corp', ipv4: '10.0.0.5' });
  });

  it('counts an event toward a stored pending change only when it is newer', () => {
    const stored = { last_seen: new Date(T0 + 10_000_000), event_id: 'e-last', seen_count: 4 };
    const k = known({ pending: { facts: stored } });
    const older = obs({ ipv4: '10.0.0.6', received_at: new Date(T0) });
    const repeat = obs({ ipv4: '10.0.0.6', received_at: stored.last_seen, event_id: 'e-last' });
    expect(planHosts(k, [older, repeat]).changes).toEqual([]);
    const newer = obs({ ipv4: '10.0.0.7', received_at: new Date(T0 + 20_000_000) });
    expect(planHosts(k, [older, newer]).changes).toEqual([
      expect.objectContaining({ kind: 'facts', proposed: { ipv4: '10.0.0.7', internal_address: '10.0.0.7' }, seen_count: 5 }),
    ]);
  });
});

describe('identitySuspects', () => {
  it('names the hosts where two instances or two keys meet', () => {
    const k = known();
    expect(identitySuspects(k, [obs(), obs({ key_id: null })])).toEqual(new Set());
    // Bound to an instance: an event without one (issue 33).
    expect(identitySuspects(k, [obs(), obs({ agent_instance_id: undefined })])).toEqual(new Set(['h']));
    expect(identitySuspects(known({ agent_instance_id: null }), [obs({ agent_instance_id: undefined })])).toEqual(new Set());
    expect(identitySuspects(k, [obs({ agent_instance_id: 'b' })])).toEqual(new Set(['h']));
    expect(identitySuspects(k, [obs({ key_id: 3 })])).toEqual(new Set(['h']));
    expect(
      identitySuspects(new Map(), [
        obs({ hostname: 'n', agent_instance_id: 'x' }),
        obs({ hostname: 'n', agent_instance_id: 'y' }),
      ]),
    ).toEqual(new Set(['n']));
    expect(identitySuspects(new Map(), [obs({ hostname: 'n', key_id: null }), obs({ hostname: 'n', key_id: 5 })])).toEqual(
      new Set(),
    );
  });
});
