// runActionJob's bookkeeping on the real Postgres: expired, re-delivered (stalled) and finished jobs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStores, memoryLogger, testConfig, type TestStores } from '@watchpost/testkit';
import { createAction, getAction, startAction } from '@watchpost/core';
import type { ActionJob } from '@watchpost/schemas';
import { randomBytes } from 'node:crypto';
import { runActionJob } from './index.ts';

let stores: TestStores;
const target = { host_id: 1, hostname: 'h', address: '127.0.0.1', os_family: 'linux' };

beforeAll(async () => {
  stores = await createTestStores(testConfig('actions_runjob'), { kafka: false });
});
afterAll(async () => {
  await stores?.drop();
});

const deps = () => ({ pg: stores.pg, config: stores.config, log: memoryLogger().log, secretsKey: randomBytes(32) });
const newAction = () =>
  createAction(stores.pg, { kind: 'ssh.check', hostId: 1, hostname: 'h', actor: 'ada', address: null, params: {} });

describe('runActionJob', () => {
  it('fails a job past its deadline as expired without running it', async () => {
    const a = await newAction();
    const job: ActionJob = { kind: 'ssh.check', action_id: a.id, target, deadline: new Date(Date.now() - 1).toISOString() };
    expect(await runActionJob(deps(), job)).toEqual({ status: 'failed' });
    expect(await getAction(stores.pg, a.id)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^expired/),
      started_at: null,
    });
  });

  it('a stalled job handed out again is failed as interrupted, not run twice', async () => {
    const a = await newAction();
    expect(await startAction(stores.pg, a.id)).toBe(true);
    const job: ActionJob = { kind: 'ssh.check', action_id: a.id, target, deadline: new Date(Date.now() + 60_000).toISOString() };
    expect(await runActionJob(deps(), job)).toEqual({ status: 'failed' });
    expect(await getAction(stores.pg, a.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^interrupted/) });
    // a finished action is left alone
    expect(await runActionJob(deps(), job)).toEqual({ status: 'skipped' });
  });

  it('a remote failure is recorded with its reason and duration', async () => {
    const a = await newAction();
    const job: ActionJob = { kind: 'ssh.check', action_id: a.id, target, deadline: new Date(Date.now() + 60_000).toISOString() };
    expect(await runActionJob(deps(), job)).toEqual({ status: 'failed' });
    const done = await getAction(stores.pg, a.id);
    expect(done).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/SSH is not configured/),
      result: { error_class: 'remote' },
    });
    expect(done!.duration_ms).toBeGreaterThanOrEqual(0);
  });
});
