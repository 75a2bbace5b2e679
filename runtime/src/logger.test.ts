// The service logger batches the lines of one event-loop turn into one write.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import pino from 'pino';
import { TurnBatchedDestination } from './logger.ts';

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
