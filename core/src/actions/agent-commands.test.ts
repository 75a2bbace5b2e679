// Who is a host's bound agent (the agent poll and command results serve only that agent).
import { describe, expect, it } from 'vitest';
import { isBoundAgent } from './agent-commands.ts';

describe('isBoundAgent', () => {
  const who = { keyId: 7, agentInstanceId: 'inst-a' };
  it('needs the bound key and the bound instance, each when the host has one', () => {
    expect(isBoundAgent({ bound_key_id: 7, agent_instance_id: 'inst-a' }, who)).toBe(true);
    expect(isBoundAgent({ bound_key_id: 8, agent_instance_id: 'inst-a' }, who)).toBe(false);
    expect(isBoundAgent({ bound_key_id: 7, agent_instance_id: 'inst-b' }, who)).toBe(false);
    expect(isBoundAgent({ bound_key_id: 7, agent_instance_id: 'inst-a' }, { keyId: 7, agentInstanceId: null })).toBe(false);
    // A host whose agent sends no instance id: the key alone.
    expect(isBoundAgent({ bound_key_id: 7, agent_instance_id: null }, { keyId: 7, agentInstanceId: null })).toBe(true);
    // A host from before the binding (no key bound yet): its instance id.
    expect(isBoundAgent({ bound_key_id: null, agent_instance_id: 'inst-a' }, who)).toBe(true);
  });
  it('serves nobody for an unknown host or one bound to nothing', () => {
    expect(isBoundAgent(null, who)).toBe(false);
    expect(isBoundAgent({ bound_key_id: null, agent_instance_id: null }, who)).toBe(false);
  });
});
