// A valid event for tests and benchmarks (every optional block present), built fresh on each call.
import { randomUUID } from 'node:crypto';
import type { EventV1 } from './event-v1.ts';

export function sampleEvent(overrides: Partial<EventV1> = {}): EventV1 {
  return {
    schema_version: '1.0',
    event_id: randomUUID(),
    occurred_at: new Date().toISOString(),
    source: { product: 'ssh-monitor', product_version: '2.4.1', agent_instance_id: 'a1b2c3' },
    host: {
      hostname: 'web-01',
      os_family: 'linux',
      display_name: 'Web 01',
      fqdn: 'web-01.example.org',
      ipv4: '10.0.0.5',
      timezone: 'Europe/Berlin',
    },
    category: 'auth',
    type: 'ssh.login.failed',
    severity: 'warning',
    title: 'Failed SSH login for root',
    summary: 'Failed password for root from 203.0.113.7 port 52144 ssh2',
    details: { user: 'root', source_ip: '203.0.113.7', port: 52144 },
    raw: { format: 'journal', payload: 'sshd[1234]: Failed password for root from 203.0.113.7 port 52144 ssh2' },
    tags: ['ssh', 'bruteforce'],
    dedup_key: 'web-01:ssh.login.failed:root',
    fingerprint: 'f00dfeed',
    enrichment: { attempt_number: 3, threshold: 5, risk_level: 'medium', filtered_out: false },
    ...overrides,
  };
}
