// Who is a host's bound agent (the agent poll serves only that agent), how a result names the delivery it
// answers, and the command as the Windows agent reads it.
import { describe, expect, it } from 'vitest';
import { commandResultRef, isBoundAgent, windowsAgentCommand, type DeliveredCommand } from './agent-commands.ts';

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

describe('commandResultRef (issue 33: a result names the delivery it answers)', () => {
  it('our body names the command id, its host and the instance it polled with', () => {
    expect(commandResultRef(42, { hostname: 'lnx-a', agent_instance_id: 'inst-a' })).toEqual({
      id: 42,
      hostname: 'lnx-a',
      agentInstanceId: 'inst-a',
    });
    expect(commandResultRef(42, { hostname: 'lnx-a' })).toEqual({ id: 42, hostname: 'lnx-a', agentInstanceId: null });
  });
  it("the Windows agent's body names nothing but the id its poll handed out: the delivery handle", () => {
    expect(commandResultRef(4503599627370497, {})).toEqual({ handle: 4503599627370497, agentInstanceId: null });
    // An instance id sent anyway is kept: it must then be the fetcher's.
    expect(commandResultRef(7, { agent_instance_id: 'inst-x' })).toEqual({ handle: 7, agentInstanceId: 'inst-x' });
  });
});

describe('windowsAgentCommand', () => {
  const delivered = (kind: string, params: Record<string, unknown>): DeliveredCommand => ({
    id: 42,
    hostname: 'WIN-A',
    kind,
    params,
    status: 'delivered',
    created_by: 'ada',
    created_at: '2025-01-01T00:00:00.000Z',
    delivered_at: '2025-01-01T00:01:00.000Z',
    finished_at: null,
    result: null,
    action_id: null,
    delivery_handle: 6755399441055744,
  });
  it("hands out the delivery's handle as the id, never the command id (issue 33)", () => {
    expect(windowsAgentCommand(delivered('logoff', { session_id: 3 }))).toEqual({
      id: 6755399441055744,
      type: 'logoff',
      params: { session_id: 3 },
      run_as: null,
    });
  });
  it('always sends session_id and run_as (the agent reads them under strict mode); a bad session id is null', () => {
    expect(windowsAgentCommand(delivered('qwinsta', {}))).toMatchObject({ params: { session_id: null }, run_as: null });
    expect(windowsAgentCommand(delivered('logoff', { session_id: 0 })).params).toEqual({ session_id: null });
    expect(windowsAgentCommand(delivered('logoff', { session_id: '4' })).params).toEqual({ session_id: 4 });
  });
});
