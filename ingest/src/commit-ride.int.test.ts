// Commits ride along with the next claim call (one Redis call instead of two per micro-batch), at most a
// micro-batch's worth per call, and go alone within milliseconds when no claim call comes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memoryLogger, openIngestStores, sampleEvent, type IngestStores } from '@watchpost/testkit';
import { createApiKey } from '@watchpost/core';
import { buildIngestApp } from './app.ts';

let s: IngestStores;

beforeAll(async () => {
  s = await openIngestStores(
    'ingest_commit_ride',
    { SERVICE_INGEST_LINGER_MS: '10', SERVICE_INGEST_MICROBATCH_MAX_EVENTS: '16' },
    'ingest-commit-ride-test',
  );
});
afterAll(async () => s?.close());

it('commits ride with claim calls; every event ends committed once; a lone event is committed within ms', async () => {
  const { stores, redis, kafka } = s;
  const { app, ingest } = await buildIngestApp({ config: stores.config, log: memoryLogger().log, redis, pg: stores.pg, kafka });
  const calls: { claims: number; commits: string[]; held: (boolean | undefined)[] }[] = [];
  const real = ingest.claims.claimAndCommit.bind(ingest.claims);
  ingest.claims.claimAndCommit = (ids, token, groups) => {
    calls.push({ claims: ids.length, commits: groups.flatMap((g) => g.eventIds), held: groups.map((g) => g.held) });
    return real(ids, token, groups);
  };
  try {
    const key = (await createApiKey(stores.pg, 'ride')).key;
    const post = (ev: ReturnType<typeof sampleEvent>) =>
      app
        .inject({ method: 'POST', url: '/api/v1/events', headers: { 'x-api-key': key }, payload: JSON.stringify(ev) })
        .then((r) => r.statusCode);
    const events: ReturnType<typeof sampleEvent>[] = [];
    const statuses: number[] = [];
    // Each wave once the one before is answered: its commits then wait (2 x linger) while this wave's
    // claim call (after one linger) goes out, however slow Kafka is on a loaded machine.
    for (let wave = 0; wave < 20; wave++) {
      const posts: Promise<number>[] = [];
      for (let i = 0; i < 10; i++) {
        const ev = sampleEvent({ host: { hostname: `ride-${i}`, os_family: 'linux' } });
        events.push(ev);
        posts.push(post(ev));
      }
      statuses.push(...(await Promise.all(posts)));
    }
    expect(statuses.every((s) => s === 201)).toBe(true);
    const stored = async () =>
      (await Promise.all(events.map((e) => ingest.claims.state(e.event_id)))).every((s) => s.state === 'stored');
    await expect.poll(stored, { timeout: 3000, interval: 10 }).toBe(true);
    // Each event was committed exactly once, and commits went out with claims, not each on a call of its own.
    const committed = calls.flatMap((c) => c.commits);
    expect(committed.sort()).toEqual(events.map((e) => e.event_id.toLowerCase()).sort());
    expect(calls.filter((c) => c.claims > 0 && c.commits.length > 0).length).toBeGreaterThan(0);
    expect(calls.length).toBeLessThan(2 * calls.filter((c) => c.claims > 0).length);
    // No call carries more commits than a micro-batch holds (a long script would hold up Redis's other clients).
    expect(Math.max(...calls.map((c) => c.commits.length))).toBeLessThanOrEqual(16);
    // Acknowledged well within the provisional TTL: every commit writes its claims without reading them.
    expect(calls.flatMap((c) => c.held).every((h) => h === true)).toBe(true);

    // Alone: no claim call follows, the commit goes by itself within milliseconds.
    const lone = sampleEvent();
    const before = calls.length;
    expect(await post(lone)).toBe(201);
    await expect.poll(async () => (await ingest.claims.state(lone.event_id)).state, { timeout: 500, interval: 5 }).toBe('stored');
    expect(calls.slice(before).map((c) => [c.claims, c.commits.length])).toEqual([
      [1, 0],
      [0, 1],
    ]);
  } finally {
    await app.close();
  }
});
