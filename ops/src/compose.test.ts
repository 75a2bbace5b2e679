// There is no Docker engine here: the compose file is kept valid by parsing and checking it.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '@watchpost/runtime';
import { ROLES } from '@watchpost/runtime';

type Service = { image?: string; build?: { dockerfile: string }; command?: string[]; environment?: Record<string, string> };
const compose = parse(readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};

describe('docker-compose.yml', () => {
  it('runs the four servers on current images', () => {
    const s = compose.services;
    expect(s.kafka!.image).toMatch(/^apache\/kafka:3\.9\./);
    expect(s.kafka!.environment!.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(s.clickhouse!.image).toMatch(/^clickhouse\/clickhouse-server:\d{2}\.\d+/);
    expect(s.postgres!.image).toMatch(/^postgres:\d+/);
    expect(s.redis!.image).toMatch(/^redis:7/);
    expect(s.redis!.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
  });

  it('builds every service role from the one Dockerfile with a known role', () => {
    const roles = Object.entries(compose.services).filter(([, s]) => s.build);
    expect(roles.length).toBeGreaterThanOrEqual(4);
    for (const [name, s] of roles) {
      expect(s.build!.dockerfile, name).toBe('ops/Dockerfile');
      const [node, script, role] = s.command!;
      expect(node).toBe('node');
      expect(existsSync(join(repoRoot, script!)), `${name}: ${script}`).toBe(true);
      if (script === 'ops/src/start.ts') expect(ROLES).toContain(role);
    }
    expect(existsSync(join(repoRoot, 'ops/Dockerfile'))).toBe(true);
  });

  it('the image creates its state folder for the service user and declares it a volume; compose mounts it there', () => {
    const lines = readFileSync(join(repoRoot, 'ops/Dockerfile'), 'utf8').split('\n');
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    const dir = /^ENV SERVICE_STATE_DIR=(\S+)$/.exec(lines[at(/^ENV SERVICE_STATE_DIR=/)] ?? '')?.[1];
    expect(dir).toBe('/var/lib/watchpost');
    const run = lines[at(/^RUN mkdir -p \/var\/lib\/watchpost /)] ?? '';
    expect(run).toContain('chown node:node /var/lib/watchpost');
    // Created and owned before the switch to the unprivileged user, declared a volume after the chown
    // (a VOLUME line freezes the folder's content and ownership).
    expect(at(/^RUN mkdir -p \/var\/lib\/watchpost /)).toBeLessThan(at(/^VOLUME \["\/var\/lib\/watchpost"\]$/));
    expect(at(/^VOLUME /)).toBeLessThan(at(/^USER node$/));
    const roles = Object.values(compose.services).filter((s) => s.build && s.command?.[1] === 'ops/src/start.ts');
    for (const s of roles) expect(s.environment?.SERVICE_STATE_DIR).toBe(dir);
  });
});
