// One browser test's set-up and tear-down, shared by the web e2e tests: the web server (server.ts), Debian's chromium,
// the users the test signs in as (created while the browser starts: each costs a password hash), and
// pages whose uncaught errors are collected, so that every file can end by expecting none.
import { afterAll, beforeAll } from 'vitest';
import type { Browser, Page, ViewportSize } from 'playwright-core';
import { randomUUID } from 'node:crypto';
import type { UserRole } from '@watchpost/core';
import type { EventEnvelope, EventV1 } from '@watchpost/schemas';
import { addUser } from '@watchpost/testkit/api';
import { launchChromium } from './chromium.ts';
import { loginAs } from './pages.ts';
import { startWebServer, type WebServer } from './server.ts';

export interface WebUser {
  username: string;
  role: UserRole;
  password: string;
}

/** The admin and the monitor most browser tests sign in as. */
export const ADA: WebUser = { username: 'ada', role: 'admin', password: 'ada-admin-password-1' };
export const MONA: WebUser = { username: 'mona', role: 'monitor', password: 'mona-monitor-password-1' };

export interface BrowserTestOptions {
  env?: Record<string, string>;
  users?: WebUser[];
}

export interface BrowserTest {
  /** The server and the browser: there once the file's own beforeAll hooks run. */
  readonly srv: WebServer;
  readonly browser: Browser;
  /** Uncaught errors of the pages opened with openPage (and of any page the test watches itself). */
  pageErrors: string[];
  /**
   * A page in a new browser context at `viewport`, its uncaught errors collected; logged in as `user`
   * when given, at `base` (the server's own URL unless the test puts something in between).
   */
  openPage(viewport: ViewportSize, user?: WebUser, base?: string): Promise<Page>;
}

/**
 * Registers the file's set-up and tear-down; call it at the top level, before the file's own hooks, so
 * that they run with the server up and the browser open, and that the file's afterAll (its own peers)
 * runs before the browser and the server close. `options` may be a function: the file's peers the
 * server's environment names are started there, first.
 */
export function browserTest(name: string, options: BrowserTestOptions | (() => Promise<BrowserTestOptions>) = {}): BrowserTest {
  let started: { srv: WebServer; browser: Browser } | undefined;
  const up = () => {
    if (!started) throw new Error(`${name}: the browser test has not started (its beforeAll failed or has not run)`);
    return started;
  };
  const pageErrors: string[] = [];
  beforeAll(async () => {
    const opts = typeof options === 'function' ? await options() : options;
    const srv = await startWebServer(name, opts.env);
    const [browser] = await Promise.all([
      launchChromium(),
      Promise.all((opts.users ?? []).map((u) => addUser(srv.h, u.username, u.role, u.password))),
    ]);
    started = { srv, browser };
  }, 180_000);
  afterAll(async () => {
    await started?.browser.close();
    await started?.srv.close();
  });
  return {
    get srv() {
      return up().srv;
    },
    get browser() {
      return up().browser;
    },
    pageErrors,
    async openPage(viewport, user, base = up().srv.url) {
      const page = await (await up().browser.newContext({ viewport })).newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      if (user) await loginAs(page, base, user.username, user.password);
      return page;
    },
  };
}

/** What sshMonitorEvent builds on: the host, and when the event happened and reached the service. */
export interface EventAt {
  hostname: string;
  displayName: string;
  /** how long before now it occurred (cut to the second: stored times have second precision) */
  agoMs: number;
  /** how long after it occurred the service received it (default 1 s) */
  receivedAfterMs?: number;
}

/** An ssh-monitor event as the store keeps it, a fresh id each time; `fields` give the rest of schema v1. */
export function sshMonitorEvent(
  at: EventAt,
  fields: Partial<EventV1> & Pick<EventV1, 'category' | 'type' | 'severity' | 'title' | 'summary'>,
): EventEnvelope {
  const occurred = new Date(Date.now() - at.agoMs);
  occurred.setMilliseconds(0);
  return {
    received_at: new Date(occurred.getTime() + (at.receivedAfterMs ?? 1000)).toISOString(),
    event: {
      schema_version: '1.0',
      event_id: randomUUID(),
      occurred_at: occurred.toISOString(),
      source: { product: 'ssh-monitor', product_version: '2.4.1' },
      host: { hostname: at.hostname, os_family: 'linux', display_name: at.displayName },
      ...fields,
    } as EventV1,
  };
}
