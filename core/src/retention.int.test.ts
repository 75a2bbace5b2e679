import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { pruneByAge } from './retention.ts';

let s: TestStores;
beforeAll(async () => {
  s = await createTestStores(testConfig('retention'), { kafka: false });
});
afterAll(async () => s?.drop());

const DAY = 86_400_000;

describe('pruneByAge', () => {
  it('removes what is past each retention and keeps the rest', async () => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    await s.pg.query(
      `INSERT INTO processed_events (event_id, processed_at) VALUES (gen_random_uuid(), $1), (gen_random_uuid(), $2)`,
      [ago(9 * DAY), ago(7 * DAY)],
    );
    await s.pg.query(
      `INSERT INTO problem_outbox (message_id, problem_id, kind, payload, created_at, sent_at) VALUES
         ('old', gen_random_uuid(), 'problem.opened', '{}', $1, $1), ('recent', gen_random_uuid(), 'problem.opened', '{}', $2, $2),
         ('unsent', gen_random_uuid(), 'problem.opened', '{}', $1, NULL)`,
      [ago(8 * DAY), ago(DAY)],
    );
    await s.pg.query(`INSERT INTO audit_log (at, action) VALUES ($1, 'old'), ($2, 'recent')`, [ago(400 * DAY), ago(300 * DAY)]);
    const u = await s.pg.query<{ id: number }>(
      `INSERT INTO users (username, password_hash, role) VALUES ('ret', 'x', 'monitor') RETURNING id`,
    );
    await s.pg.query(
      `INSERT INTO refresh_tokens (token_hash, user_id, family_id, token_version, expires_at, revoked_at) VALUES
         ('expired', $1, gen_random_uuid(), 1, $2, NULL), ('revoked', $1, gen_random_uuid(), 1, $4, $3),
         ('live', $1, gen_random_uuid(), 1, $4, NULL)`,
      [u.rows[0]!.id, ago(3 * DAY), ago(2 * DAY), new Date(now.getTime() + DAY)],
    );
    await s.pg.query(
      `INSERT INTO enrollment_codes (code_hash, user_id, created_by, expires_at, used_at) VALUES
         ('expired', $1, 't', $2, NULL), ('spent', $1, 't', $4, $3), ('open', $1, 't', $4, NULL)`,
      [u.rows[0]!.id, ago(3 * DAY), ago(2 * DAY), new Date(now.getTime() + DAY)],
    );
    await s.pg.query(
      `INSERT INTO notification_decisions (subject_key, subject_kind, subject_id, rule, reason, routes, created_at) VALUES
         ('event:old', 'event', 'old', 'min_severity', 'r', '[]', $1), ('event:new', 'event', 'new', 'min_severity', 'r', '[]', $2)`,
      [ago(31 * DAY), ago(29 * DAY)],
    );
    await s.pg.query(
      `INSERT INTO notification_deliveries (id, subject_key, rule, channel, destination) VALUES ('d-old', 'event:old', 'min_severity', 'chat', 'ops'), ('d-new', 'event:new', 'min_severity', 'chat', 'ops')`,
    );
    const r = await pruneByAge(
      s.pg,
      { ledgerHours: 192, outboxSentDays: 7, auditDays: 365, refreshTokenDays: 1, notificationDays: 30 },
      now,
    );
    expect(r).toEqual({ ledger: 1, outbox: 1, audit: 1, refreshTokens: 2, enrollmentCodes: 2, notifications: 1 });
    const left = async (sql: string) => (await s.pg.query(sql)).rows.map((x) => Object.values(x as object)[0]);
    expect(await left('SELECT id FROM notification_deliveries')).toEqual(['d-new']);
    expect(await left('SELECT count(*)::int FROM processed_events')).toEqual([1]);
    expect((await left('SELECT message_id FROM problem_outbox ORDER BY message_id')).sort()).toEqual(['recent', 'unsent']);
    expect(await left('SELECT action FROM audit_log')).toEqual(['recent']);
    expect(await left('SELECT token_hash FROM refresh_tokens')).toEqual(['live']);
    expect(await left('SELECT code_hash FROM enrollment_codes')).toEqual(['open']);
  });
});
