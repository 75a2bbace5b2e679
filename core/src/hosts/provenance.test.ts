import { describe, expect, it } from 'vitest';
import { judgeProvenance, type ProvenanceEvent, type ProvenanceHost } from './provenance.ts';

const host: ProvenanceHost = { bound_key_id: '7', agent_instance_id: 'inst-a', confirmed: true };
const ev = (over: Partial<ProvenanceEvent> = {}, instance: string | null = 'inst-a'): ProvenanceEvent => ({
  hostname: 'gw-01',
  agent_key_id: 7,
  event: { source: { product: 'rdp-login-monitor', ...(instance === null ? {} : { agent_instance_id: instance }) } },
  ...over,
});

describe('judgeProvenance', () => {
  it("believes the host's bound key and instance on a confirmed host", () => {
    expect(judgeProvenance(ev(), host)).toMatchObject({ verdict: 'bound', agent_key_id: 7 });
  });

  it('names each way an event is not from the bound agent', () => {
    expect(judgeProvenance(ev({ agent_key_id: 8 }), host).verdict).toBe('other_key');
    expect(judgeProvenance(ev({}, 'inst-b'), host).verdict).toBe('other_instance');
    // An instance the host is bound to and the event leaves out (or makes implausible) is not the bound agent.
    expect(judgeProvenance(ev({}, null), host).verdict).toBe('other_instance');
    expect(judgeProvenance(ev({}, ' '), host).verdict).toBe('other_instance');
    expect(judgeProvenance(ev(), { ...host, confirmed: false })).toMatchObject({
      verdict: 'unconfirmed_host',
      reason: expect.stringContaining('Accept'),
    });
    expect(judgeProvenance(ev(), { ...host, bound_key_id: null }).verdict).toBe('unbound_host');
    expect(judgeProvenance(ev(), null).verdict).toBe('unknown_host');
  });

  it('trusts nothing stored without a verified key', () => {
    expect(judgeProvenance(ev({ agent_key_id: null }), host)).toMatchObject({ verdict: 'no_key', agent_key_id: null });
    expect(judgeProvenance(ev({ agent_key_id: 0 }), host)).toMatchObject({ verdict: 'no_key', agent_key_id: null });
  });

  it('a host bound to no instance takes its key alone', () => {
    expect(judgeProvenance(ev({}, null), { ...host, agent_instance_id: null }).verdict).toBe('bound');
  });
});
