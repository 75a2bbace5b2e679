// The service logger batches the lines of one event-loop turn into one write.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import pino from 'pino';
import { TurnBatchedDestination, eventLineWriter } from './logger.ts';

function recorder() {
  const writes: string[] = [];
  return { writes, out: { write: (s: string) => writes.push(s) } as unknown as ReturnType<typeof pino.destination> };
}

it('writes the lines of one turn in one write, in order, at the end of the turn', async () => {
  const { writes, out } = recorder();
  const log = pino({ base: null, timestamp: false }, new TurnBatchedDestination(out));
  for (let i = 0; i < 50; i++) log.info({ i }, 'line');
  expect(writes).toEqual([]);
  await new Promise((r) => setImmediate(r));
  expect(writes).toHaveLength(1);
  const lines = writes[0]!
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { i: number });
  expect(lines.map((l) => l.i)).toEqual([...Array(50).keys()]);
  // A later turn gets a write of its own; nothing is written for a turn without lines.
  log.info({ i: 50 }, 'line');
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  expect(writes).toHaveLength(2);
  expect(JSON.parse(writes[1]!).i).toBe(50);
});

it('writes what a turn logged when the process exits in that same turn', () => {
  const logger = fileURLToPath(new URL('./logger.ts', import.meta.url));
  const script = `import { createLogger } from ${JSON.stringify(logger)};
    const log = createLogger('info', 'exit-test');
    log.info('first'); log.fatal('last words'); process.exit(3);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.status).toBe(3);
  const msgs = r.stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { msg: string }).msg);
  expect(msgs).toEqual(['first', 'last words']);
});

it('eventLineWriter writes the line pino writes for the same fields, in the same stream', () => {
  const { writes, out } = recorder();
  // The service logger's options (createLogger), a child with bindings of its own, and a fixed clock.
  const base = pino({ level: 'info', name: 'ingest', base: { pid: 7, host: 'vm' }, timestamp: () => ',"time":42' }, out);
  const log = base.child({ role: 'ingest' }, { redact: [] });
  const line = eventLineWriter(log, 'info', 'ingest');
  const values = [
    'plain',
    'quote " backslash \\ slash /',
    'control \u0000 \u0001 \n \t \u001f',
    'unicode é 中 😀 \u2028',
    'x'.repeat(300),
    '',
  ];
  for (const v of values) {
    const fields = { event_id: v, hostname: 'host-1', outcome: 'created', reason: null };
    log.info(fields, 'ingest');
    line(fields);
  }
  line({ event_id: 'e', hostname: null, outcome: 'rejected', reason: 'r' });
  log.info({ event_id: 'e', hostname: null, outcome: 'rejected', reason: 'r' }, 'ingest');
  expect(writes).toHaveLength(2 * values.length + 2);
  for (let i = 0; i < values.length; i++) expect(writes[2 * i + 1]).toBe(writes[2 * i]);
  expect(writes.at(-2)).toBe(writes.at(-1));
  expect(JSON.parse(writes[0]!)).toEqual({
    level: 30,
    time: 42,
    pid: 7,
    host: 'vm',
    name: 'ingest',
    role: 'ingest',
    event_id: 'plain',
    hostname: 'host-1',
    outcome: 'created',
    reason: null,
    msg: 'ingest',
  });
  // Not written where the logger would not log the level.
  log.level = 'warn';
  line({ event_id: 'x' });
  expect(writes).toHaveLength(2 * values.length + 2);
});
