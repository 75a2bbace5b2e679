import { describe, expect, it } from 'vitest';
import { stalledUpdateFinding, type StalledUpdate } from './stalled-updates.ts';

const deployedAt = new Date('2026-11-28T10:00:00Z');
const base: StalledUpdate = {
  hostname: 'WS-01',
  version: '2.1.8-SAC',
  deployed: '2.1.8-SAC',
  deployedAt,
  lastSeen: new Date(deployedAt.getTime() - 60_000),
  reported: '2.1.7-SAC',
  actionId: 7,
};

describe('stalledUpdateFinding', () => {
  it('nothing since the deploy: high, the monitor does not start (settings kept only as a quoted key literal)', () => {
    for (const lastSeen of [base.lastSeen, null]) {
      const f = stalledUpdateFinding({ ...base, lastSeen });
      expect(f).toMatchObject({
        silent: true,
        severity: 'high',
        title: 'WS-01: no event from the agent since its update to 2.1.8-SAC',
      });
      expect(f.cause).toMatch(/does not start.*\$SacApiKey is a quoted 'sac_…' literal.*forces \$UseSAC to fallback/);
    }
  });

  it('events of the old version after the deploy: warning, the running monitor was not restarted', () => {
    const f = stalledUpdateFinding({ ...base, lastSeen: new Date(deployedAt.getTime() + 30_000) });
    expect(f).toMatchObject({
      silent: false,
      severity: 'warning',
      title: 'WS-01: the agent still reports 2.1.7-SAC after its update to 2.1.8-SAC',
    });
    expect(f.cause).toMatch(/not restarted/);
  });
});
