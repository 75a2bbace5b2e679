import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { pruneByAge, type RetentionSettings } from './retention.ts';

let s: TestStores;
beforeAll(async () => {
  s = await createTestStores(testConfig('retention'), { kafka: false });
});
afterAll(async () => s?.drop());

const DAY = 86_400_000;
const SETTINGS: RetentionSettings = {
  ledgerHours: 192,
  outboxSentDays: 7,
  auditDays: 365,
  refreshTokenDays: 1,
  notificationDays: 30,
  problemDays: 90,
  actionDays: 90,
  agentCommandDays: 30,
  reportDays: 365,
  // Small chunks: every table below holds more rows to delete than one statement takes.
  chunkRows: 2,
};
const now = new Date();
const ago = (ms: number) => new Date(now.getTime() - ms);
const prune = () => pruneByAge(s.pg, SETTINGS, now);
const col = async (sql: string, params: unknown[] = []) =>
  (await s.pg.query(sql, params)).rows.map((x) => Object.values(x as object)[0]);

describe('pruneByAge', () => {
  it('removes what is past each retention and keeps the rest', async () => {
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
    const r = await prune();
    expect(r).toMatchObject({ ledger: 1, outbox: 1, audit: 1, refreshTokens: 2, enrollmentCodes: 2, notifications: 1 });
    expect(await col('SELECT id FROM notification_deliveries')).toEqual(['d-new']);
    expect(await col('SELECT count(*)::int FROM processed_events')).toEqual([1]);
    expect((await col('SELECT message_id FROM problem_outbox ORDER BY message_id')).sort()).toEqual(['recent', 'unsent']);
    expect(await col('SELECT action FROM audit_log')).toEqual(['recent']);
    expect(await col('SELECT token_hash FROM refresh_tokens')).toEqual(['live']);
    expect(await col('SELECT code_hash FROM enrollment_codes')).toEqual(['open']);
  });

  it('deletes resolved problems past the retention with their timeline and flap pairs, in chunks; live and recent stay', async () => {
    const problem = async (name: string, status: string, resolvedAt: Date | null, events: number, receivedAt: Date) => {
      const id = (
        await s.pg.query<{ id: string }>(
          `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, created_at, last_seen, resolved_at, resolved_by)
           VALUES (gen_random_uuid(), $1, $2, 'h1', 't', 'r', $2, 'high', $3, $3, $4, CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE 'auto' END)
           RETURNING id::text`,
          [status, name, ago(200 * DAY), resolvedAt],
        )
      ).rows[0]!.id;
      await s.pg.query(
        `INSERT INTO problem_events (problem_id, event_id, occurred_at, received_at, type, severity, title)
         SELECT $1, gen_random_uuid(), $2, $2, 't', 'high', 'e' FROM generate_series(1, $3)`,
        [id, receivedAt, events],
      );
      // A flap pair on two of its events (as the rdg_flap rule writes them).
      await s.pg.query(
        `INSERT INTO rdg_flap_events (event_id, problem_id, role, partner_event_id, session_id)
         SELECT event_id, problem_id, 'connect', gen_random_uuid(), 's' FROM problem_events WHERE problem_id = $1 LIMIT 2`,
        [id],
      );
      return id;
    };
    // Five resolved problems past 90 days (more than one chunk of 2), each with 5 timeline rows.
    const old: string[] = [];
    for (let i = 0; i < 5; i++) old.push(await problem(`old${i}`, 'resolved', ago(91 * DAY), 5, ago(100 * DAY)));
    const recent = await problem('recent', 'resolved', ago(89 * DAY), 3, ago(95 * DAY));
    const live = await problem('live', 'open', null, 3, ago(150 * DAY));
    await s.pg.query(
      `INSERT INTO problem_events (problem_id, event_id, occurred_at, received_at, type, severity, title)
       VALUES ($1, gen_random_uuid(), $2, $2, 't', 'high', 'fresh'), ($3, gen_random_uuid(), $2, $2, 't', 'high', 'fresh')`,
      [live, ago(DAY), recent],
    );
    const acked = await problem('acked', 'acknowledged', null, 2, ago(DAY));

    const r = await prune();
    expect(r.problems).toBe(5);
    // 25 of the old problems, 3 old entries of the live problem, 3 old entries of the recently resolved one.
    expect(r.problemEvents).toBe(31);
    // 10 of the old problems; the live one's and the recent one's lost their timeline entries.
    expect(r.flapEvents).toBe(14);
    expect(await col('SELECT id::text FROM problems WHERE id = ANY($1::uuid[])', [old])).toEqual([]);
    expect((await col('SELECT id::text FROM problems')).sort()).toEqual([recent, live, acked].sort());
    // A live problem keeps its row; its timeline keeps what was received within the retention.
    expect(await col('SELECT title FROM problem_events WHERE problem_id = $1', [live])).toEqual(['fresh']);
    expect(await col('SELECT title FROM problem_events WHERE problem_id = $1', [recent])).toEqual(['fresh']);
    expect(await col('SELECT count(*)::int FROM problem_events WHERE problem_id = $1', [acked])).toEqual([2]);
    expect(await col('SELECT count(*)::int FROM rdg_flap_events WHERE problem_id = $1', [acked])).toEqual([2]);
    expect(await col('SELECT count(*)::int FROM rdg_flap_events')).toEqual([2]);
  });

  it('never deletes a problem reopened after it was picked (the delete re-checks the row)', async () => {
    // A problem resolved long ago that correlate holds locked (FOR UPDATE) is skipped, not waited on.
    const id = (
      await s.pg.query<{ id: string }>(
        `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, created_at, last_seen, resolved_at, resolved_by)
         VALUES (gen_random_uuid(), 'resolved', 'locked', 'h1', 't', 'r', 'x', 'high', $1, $1, $1, 'auto') RETURNING id::text`,
        [ago(200 * DAY)],
      )
    ).rows[0]!.id;
    const c = await s.pg.connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT 1 FROM problems WHERE id = $1 FOR UPDATE', [id]);
      const r = await prune();
      expect(r.problems).toBe(0);
      await c.query(`UPDATE problems SET status = 'open', resolved_at = NULL, resolved_by = NULL WHERE id = $1`, [id]);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    expect((await prune()).problems).toBe(0);
    expect(await col('SELECT status FROM problems WHERE id = $1', [id])).toEqual(['open']);
  });

  it('deletes gateway halves that waited past the problem retention (by receive time)', async () => {
    const half = (table: string, prefix: string, session: string, receivedAt: Date) =>
      s.pg.query(
        `INSERT INTO ${table} (host, session_id, ${prefix}_event_id, ${prefix}_occurred_at, ${prefix}_received_at, ${prefix}_type, ${prefix}_severity, ${prefix}_title)
         VALUES ('gw', $1, gen_random_uuid(), $3, $2, 'rdg', 'info', 't')`,
        // The host's clock says "now" (skewed): only the receive time counts.
        [session, receivedAt, now],
      );
    for (const [table, prefix] of [
      ['rdg_sessions', 'connect'],
      ['rdg_pending_disconnects', 'disconnect'],
    ] as const) {
      for (let i = 0; i < 3; i++) await half(table, prefix, `old${i}`, ago(91 * DAY));
      await half(table, prefix, 'recent', ago(89 * DAY));
    }
    const r = await prune();
    expect([r.rdgSessions, r.rdgPendingDisconnects]).toEqual([3, 3]);
    expect(await col('SELECT session_id FROM rdg_sessions')).toEqual(['recent']);
    expect(await col('SELECT session_id FROM rdg_pending_disconnects')).toEqual(['recent']);
  });

  it('deletes finished actions and agent commands past their retention; queued, running and pending stay', async () => {
    const action = (status: string, created: Date, finished: Date | null) =>
      s.pg.query(`INSERT INTO actions (kind, actor, status, created_at, finished_at) VALUES ('ssh.test', $1, $2, $3, $4)`, [
        `${status}-${finished ? Math.round((now.getTime() - finished.getTime()) / DAY) : 'open'}`,
        status,
        created,
        finished,
      ]);
    for (const st of ['succeeded', 'failed', 'succeeded']) await action(st, ago(100 * DAY), ago(91 * DAY));
    await action('succeeded', ago(100 * DAY), ago(89 * DAY));
    await action('queued', ago(100 * DAY), null);
    await action('running', ago(100 * DAY), null);
    const command = (status: string, finished: Date | null) =>
      s.pg.query(`INSERT INTO agent_commands (hostname, kind, status, created_at, finished_at) VALUES ('h1', $1, $2, $3, $4)`, [
        `${status}-${finished && finished < ago(30 * DAY) ? 'old' : 'new'}`,
        status,
        ago(60 * DAY),
        finished,
      ]);
    for (const st of ['succeeded', 'failed', 'expired']) await command(st, ago(31 * DAY));
    await command('succeeded', ago(29 * DAY));
    await command('pending', null);
    await command('delivered', null);

    const r = await prune();
    expect(r.actions).toBe(3);
    expect(r.agentCommands).toBe(3);
    expect((await col('SELECT actor FROM actions')).sort()).toEqual(['queued-open', 'running-open', 'succeeded-89']);
    expect((await col('SELECT kind FROM agent_commands')).sort()).toEqual(['delivered-new', 'pending-new', 'succeeded-new']);
  });

  it('deletes settled update offers the poll no longer makes; open, recently offered and running fallbacks stay', async () => {
    const running = (
      await s.pg.query<{ id: number }>(
        `INSERT INTO actions (kind, actor, status) VALUES ('agent.update', 'fallback', 'running') RETURNING id`,
      )
    ).rows[0]!.id;
    const offer = (host: string, lastOffered: Date, done: Date | null, fallback: number | null) =>
      s.pg.query(
        `INSERT INTO agent_update_offers (hostname, version, offered_at, last_offered_at, done_at, fallback_action_id) VALUES ($1, '2.1.7', $2, $2, $3, $4)`,
        [host, lastOffered, done, fallback],
      );
    await offer('done-old-1', ago(31 * DAY), ago(31 * DAY), null);
    await offer('done-old-2', ago(31 * DAY), ago(31 * DAY), null);
    await offer('fallback-old', ago(31 * DAY), null, 999_999);
    await offer('done-still-offered', ago(DAY), ago(31 * DAY), null);
    await offer('open-old', ago(31 * DAY), null, null);
    await offer('fallback-running', ago(31 * DAY), null, running);

    const r = await prune();
    expect(r.updateOffers).toBe(3);
    expect((await col('SELECT hostname FROM agent_update_offers')).sort()).toEqual([
      'done-still-offered',
      'fallback-running',
      'open-old',
    ]);
  });

  it('keeps the newest bundle per kind, repository and branch and any an open offer waits for', async () => {
    await s.pg.query('DELETE FROM agent_update_offers');
    const bundle = (branch: string, commit: string, version: string, created: Date) =>
      s.pg.query(
        `INSERT INTO agent_bundles (kind, git_url, branch, commit, version, sha256, size, zip, created_at)
         VALUES ('windows', 'https://git.example/agent.git', $1, $2, $3, 'x', 1, '\\x00', $4)`,
        [branch, commit, version, created],
      );
    for (let i = 1; i <= 4; i++) await bundle('main', `c${i}`, `2.1.${i}`, ago(10 * DAY - i));
    await bundle('main', 'c5', '2.1.5', ago(10 * DAY - 5)); // wanted by an open offer
    await bundle('main', 'c6', '2.1.6', ago(DAY / 2)); // built within the grace period
    await bundle('main', 'c7', '2.1.7', ago(DAY / 4)); // the newest of main
    await bundle('test', 't1', '2.2.0', ago(30 * DAY)); // the only (so newest) one of branch test
    await s.pg.query(
      `INSERT INTO agent_update_offers (hostname, version, done_at) VALUES ('h1', '2.1.5', NULL), ('h2', '2.1.2', now())`,
    );

    const r = await prune();
    expect(r.bundles).toBe(4);
    expect((await col('SELECT commit FROM agent_bundles')).sort()).toEqual(['c5', 'c6', 'c7', 't1']);
  });

  it('deletes daily reports past the retention but always keeps the newest of each time zone', async () => {
    const report = (day: string, tz: string, created: Date) =>
      s.pg.query(
        `INSERT INTO daily_reports (day, timezone, period_start, period_end, figures, html, text, created_at)
         VALUES ($1, $2, $3, $3, '{}', '', '', $3)`,
        [day, tz, created],
      );
    for (let i = 0; i < 3; i++) await report(`2020-01-0${i + 1}`, 'UTC', ago((400 - i) * DAY));
    await report('2021-01-01', 'UTC', ago(364 * DAY));
    await report('2020-01-01', 'Europe/Berlin', ago(400 * DAY));
    await report('2019-12-31', 'Europe/Berlin', ago(401 * DAY));

    const r = await prune();
    expect(r.reports).toBe(4);
    expect((await col(`SELECT timezone || ' ' || day::text FROM daily_reports`)).sort()).toEqual([
      'Europe/Berlin 2020-01-01',
      'UTC 2021-01-01',
    ]);
  });

  it('deletes decided host changes past the audit retention; pending ones stay', async () => {
    const host = (
      await s.pg.query<{ id: number }>(
        `INSERT INTO hosts (hostname, os_family, product, product_version, first_seen, last_seen) VALUES ('hc', 'windows', 'p', '1', now(), now()) RETURNING id`,
      )
    ).rows[0]!.id;
    const change = (kind: string, status: string, decided: Date | null, tag: string) =>
      s.pg.query(
        `INSERT INTO host_changes (host_id, kind, proposed, status, decided_at, decided_by, first_seen) VALUES ($1, $2, $3, $4, $5, 'admin', $6)`,
        [host, kind, JSON.stringify({ tag }), status, decided, ago(500 * DAY)],
      );
    await change('facts', 'accepted', ago(366 * DAY), 'old1');
    await change('facts', 'rejected', ago(366 * DAY), 'old2');
    await change('identity', 'accepted', ago(366 * DAY), 'old3');
    await change('identity', 'rejected', ago(364 * DAY), 'recent');
    await change('facts', 'pending', null, 'pending');

    const r = await prune();
    expect(r.hostChanges).toBe(3);
    expect((await col(`SELECT proposed->>'tag' FROM host_changes`)).sort()).toEqual(['pending', 'recent']);
  });
});
