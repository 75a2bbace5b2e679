// Tests run against the local stack; `npm test` starts and migrates it first. A direct `vitest`
// run without it fails here with one clear message instead of dozens of connection errors.
import { stackSettings } from './settings.ts';
import { probe } from './probe.ts';

export default async function setup(): Promise<void> {
  const s = stackSettings();
  const down: string[] = [];
  for (const server of ['postgres', 'redis', 'clickhouse', 'kafka'] as const) if (!(await probe(server, s))) down.push(server);
  if (down.length) throw new Error(`local stack not up (${down.join(', ')}): run \`npm run stack -- up\` or \`npm test\``);
}
