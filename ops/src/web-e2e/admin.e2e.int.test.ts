// The admin spec gaps of issue 23 in a real browser against the real API and stores: removing a user
// with a confirmation (gone from the list and the database, audited), the sidebar's system statistics
// showing the service's own health (ingest rate, consumer lag, queues, stores), a port of 99999
// refused in words and not saved (WinRM and SMTP forms), and no sideways scroll at 375 px on the
// settings, users, audit and remote-access pages (the shell's menu collapses); axe on each.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { migrateKafka } from '@watchpost/core/migrate';
import { addUser } from '@watchpost/testkit/api';
import { axeSerious, confirmDialog, screenshots } from './pages.ts';
import { browserTest, type WebUser } from './session.ts';

const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 375, height: 800 };

const ADELE: WebUser = { username: 'adele', role: 'admin', password: 'adele-admin-password-1' };

const t = browserTest('web_admin', {
  env: { SERVICE_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') },
  users: [ADELE],
});
const { pageErrors } = t;
let page: Page;

/** How far the page scrolls sideways (0: it does not). */
const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
const settingRow = async (key: string) =>
  (await t.srv.h.stores.pg.query('SELECT value FROM settings WHERE key = $1', [key])).rows[0]?.value as
    Record<string, unknown> | undefined;

beforeAll(async () => {
  await migrateKafka(t.srv.h.config); // the sidebar's Kafka probe reads this test's topics
  page = await t.openPage(WIDE, ADELE);
}, 180_000);

describe('admin pages (1440 px)', () => {
  it('the sidebar statistics show the service: ingest rate, consumer lag, queues and stores', async () => {
    await page.goto(`${t.srv.url}/settings/event-types`);
    const toggle = page.getByRole('switch', { name: 'Sidebar system statistics' });
    await toggle.waitFor();
    expect(await page.locator('[data-testid=system-status]').count()).toBe(0); // off by default
    await toggle.click();
    await expect.poll(async () => (await settingRow('ui.sidebar_stats')) !== undefined, { timeout: 5000 }).toBe(true);
    await page.reload();
    const box = page.locator('[data-testid=system-status]');
    await box.locator('[data-testid=side-stores]').waitFor();
    expect(await box.getByRole('heading', { name: 'System' }).count()).toBe(1);
    expect(await page.textContent('[data-testid=side-ingest-rate]')).toMatch(/^\s*\d+(\.\d+)? \/s\s*$/);
    for (const store of ['postgres', 'redis', 'clickhouse', 'kafka'])
      expect(await page.textContent(`[data-testid=side-store-${store}]`)).toMatch(/up, [\d.]+ ms/);
    const lag = await page.textContent('[data-testid=side-consumer-lag]');
    for (const group of ['store', 'correlate', 'stream', 'notify']) expect(lag).toContain(group);
    expect(await page.textContent('[data-testid=side-queues]')).toMatch(/Deliveries waiting\s*0/);
    // Fleet counters are the dashboard's, not the service's health.
    expect(await box.textContent()).not.toMatch(/Hosts online|Open problems/);
    expect(await axeSerious(page)).toEqual([]);
  });

  it('removes a user after a confirmation; your own row has no remove button', async () => {
    const gone = await addUser(t.srv.h, 'leaving-soon', 'monitor');
    await page.goto(`${t.srv.url}/settings/users`);
    await page.getByRole('button', { name: 'Remove leaving-soon' }).waitFor();
    expect(await axeSerious(page)).toEqual([]);
    await page.getByRole('button', { name: 'Remove leaving-soon' }).click();
    const dialog = page.locator('.n-dialog', { hasText: 'Remove leaving-soon?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('their sessions end now and their mobile devices are removed');
    // Cancel keeps the user.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await t.srv.h.stores.pg.query('SELECT 1 FROM users WHERE id = $1', [gone.id])).rowCount).toBe(1);
    await page.getByRole('button', { name: 'Remove leaving-soon' }).click();
    await confirmDialog(page, 'Remove leaving-soon', 'Remove leaving-soon?');
    await page.locator('tbody tr', { hasText: 'leaving-soon' }).waitFor({ state: 'detached' });
    expect((await t.srv.h.stores.pg.query('SELECT 1 FROM users WHERE id = $1', [gone.id])).rowCount).toBe(0);
    const audit = await t.srv.h.stores.pg.query("SELECT actor, target FROM audit_log WHERE action = 'user.remove'");
    expect(audit.rows).toEqual([{ actor: 'adele', target: 'leaving-soon' }]);
    expect(await page.getByRole('button', { name: 'Remove adele' }).count()).toBe(0);
    expect(await axeSerious(page)).toEqual([]);
    // The audit page lists it.
    await page.goto(`${t.srv.url}/settings/audit`);
    await page.locator('text=user.remove').first().waitFor();
  });

  it('a WinRM port of 99999 is refused in words before saving and nothing is saved', async () => {
    await page.goto(`${t.srv.url}/settings/remote-access`);
    const port = page.locator('#winrm-port-input');
    await port.waitFor();
    await port.fill('99999');
    await port.blur();
    const problem = page.locator('[data-testid=winrm-port-problem]');
    await problem.waitFor();
    expect((await problem.textContent())!.trim()).toBe('Port: must be between 1 and 65535');
    // Not clamped to 65535 behind the user's back.
    expect(await port.inputValue()).toBe('99999');
    expect(await port.getAttribute('aria-invalid')).toBe('true');
    const save = page.getByRole('button', { name: 'Save Windows administrator' });
    expect(await save.isDisabled()).toBe(true);
    await port.press('Enter'); // submitting the form another way saves nothing either
    await page.waitForTimeout(300);
    expect(await settingRow('actions.winrm')).toBeUndefined();
    expect(await axeSerious(page)).toEqual([]);
    // A valid port saves.
    await port.fill('5999');
    await port.blur();
    await problem.waitFor({ state: 'detached' });
    await save.click();
    await page.locator('.n-message', { hasText: 'Windows administrator saved' }).waitFor();
    expect(JSON.stringify(await settingRow('actions.winrm'))).toContain('5999');
  });

  it('an SMTP port of 99999 is refused in words, not saved', async () => {
    await page.goto(`${t.srv.url}/settings/notifications`);
    const port = page.getByRole('textbox', { name: 'SMTP port' });
    await port.waitFor();
    await port.fill('99999');
    await port.blur();
    expect(await port.inputValue()).toBe('99999');
    const panel = page.locator('[data-testid=notify-email]');
    await panel.getByRole('button', { name: 'Save e-mail' }).click();
    await panel.locator('.n-alert', { hasText: 'SMTP port: must be between 1 and 65535' }).waitFor();
    const stored = await t.srv.h.stores.pg.query("SELECT count(*)::int AS n FROM settings WHERE key LIKE '%email%'");
    expect(stored.rows[0].n).toBe(0);
  });
});

describe('admin pages at 375 px', () => {
  it('settings, users, audit and remote access do not scroll sideways; the menu collapses', async () => {
    await page.setViewportSize(NARROW);
    for (const path of ['/settings/event-types', '/settings/users', '/settings/audit', '/settings/remote-access']) {
      await page.goto(`${t.srv.url}${path}`);
      await page.locator('main h1').waitFor();
      await page.waitForTimeout(200);
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
          .slice(0, 5)
          .map((e) => `${e.tagName}.${e.className}`),
      );
      expect(await sideways(), `${path}: ${wide.join(', ')}`).toBeLessThanOrEqual(0);
    }
    // The shell: the navigation (and its statistics) sits behind the Menu button.
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await menu.isVisible()).toBe(true);
    expect(await page.locator('#main-nav').isVisible()).toBe(false);
    await menu.click();
    await page.locator('#main-nav').waitFor({ state: 'visible' });
    expect(await sideways()).toBeLessThanOrEqual(0);
    await screenshots(page, 'admin-remote-access');
    await page.setViewportSize(WIDE);
    expect(pageErrors).toEqual([]);
  });
});
