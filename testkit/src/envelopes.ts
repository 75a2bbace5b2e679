// Valid schema-v1 events and envelopes for processor tests and benchmarks.
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@watchpost/schemas';
import type { EventV1 } from '@watchpost/schemas';

export function makeEvent(overrides: Partial<EventV1> = {}, i = 0): EventV1 {
  return {
    schema_version: '1.0',
    event_id: randomUUID(),
    occurred_at: new Date(Date.now() - 1000).toISOString(),
    source: { product: 'ssh-monitor', product_version: '2.4.1', agent_instance_id: `agent-${i % 50}` },
    host: { hostname: `host-${i % 50}.example.org`, os_family: 'linux', display_name: `Host ${i % 50}`, ipv4: '10.0.0.5' },
    category: 'auth',
    type: 'ssh.login.failed',
    severity: 'warning',
    title: `Failed SSH login for root from 203.0.113.${i % 250}`,
    summary: 'Authentication failure for user root from 203.0.113.7 port 52144 ssh2 (attempt 3 of 5).',
    details: { user: 'root', source_ip: `203.0.113.${i % 250}`, port: 52144, method: 'password' },
    raw: { format: 'journal', payload: 'sshd[1234]: Failed password for root from 203.0.113.7 port 52144 ssh2' },
    tags: ['ssh', 'bruteforce'],
    dedup_key: `ssh-fail-root-host-${i % 50}`,
    fingerprint: 'f3a9c2',
    enrichment: { attempt_number: 3, threshold: 5, risk_level: 'medium' },
    ...overrides,
  };
}

export function makeEnvelope(overrides: Partial<EventV1> = {}, i = 0, receivedAt = new Date()): EventEnvelope {
  return { received_at: receivedAt.toISOString(), event: makeEvent(overrides, i) };
}
