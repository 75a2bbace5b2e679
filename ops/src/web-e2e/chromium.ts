// Debian's chromium for the browser tests and the web bench: installed with apt-get when missing (as the
// stack installs its servers), driven by playwright-core, one instance shared by a test file.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const pre = process.getuid?.() === 0 ? [] : ['sudo'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['apt-get', 'update', '-q'],
    ['apt-get', 'install', '-y', '-q', '--no-install-recommends', 'chromium'],
  ]) {
    const [cmd, ...rest] = [...pre, ...args];
    const r = spawnSync(cmd!, rest, { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed: the browser tests need Debian's chromium`);
  }
}

export async function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
