// What the action UI says about the transport that ran a Windows session action (issue 22).
import { describe, expect, it } from 'vitest';
import { transportReason, transportText } from './actions';

describe('transportText', () => {
  it('names WinRM, and for the agent where the action stands', () => {
    expect(transportText({ transport: 'winrm', status: 'succeeded' })).toBe('over WinRM');
    expect(transportText({ transport: 'agent', status: 'queued' })).toBe('queued for the agent (polls every 60 s)');
    expect(transportText({ transport: 'agent', status: 'running' })).toBe('the agent is running it');
    expect(transportText({ transport: 'agent', status: 'failed' })).toBe('through the agent');
    expect(transportText({ transport: null, status: 'succeeded' })).toBeNull();
  });

  it("gives the reason only for the agent's actions", () => {
    const result = { transport_reason: 'WinRM is not configured (no Windows administrator set)' };
    expect(transportReason({ transport: 'agent', result })).toBe(result.transport_reason);
    expect(transportReason({ transport: 'winrm', result })).toBeNull();
    expect(transportReason({ transport: 'agent', result: null })).toBeNull();
  });
});
