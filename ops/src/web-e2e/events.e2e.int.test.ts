// The events page as an investigation tool (issue 23) in a real browser against the real API and stores:
// Search and its URL, the time range with the zone, top values that filter, drag-to-zoom on the
// histogram, drill-down links in the table, "N new events" after an event is stored; no mid-word wraps
// at 1440 px and no sideways scroll at 375 px; axe on the page.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { EventEnvelope } from '@watchpost/schemas';
import { loadFixture, type Fixture } from '@watchpost/testkit/api';
import { axeSerious, chooseOption, screenshots } from './pages.ts';
import { MONA, browserTest, sshMonitorEvent } from './session.ts';

const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 375, height: 800 };

const t = browserTest('web_events', { users: [MONA] });
const { pageErrors } = t;
let fx: Fixture;
let page: Page;

const totalText = () => page.textContent('[data-testid=events-total]');
const waitTotal = (n: number) =>
  page.waitForFunction((n) => document.querySelector('[data-testid=events-total]')?.textContent?.startsWith(`${n} events`), n);
const param = (k: string) => new URL(page.url()).searchParams.get(k);

const newEvent = (): EventEnvelope =>
  sshMonitorEvent(
    { hostname: 'alpha', displayName: 'Alpha Web', agoMs: 5000 },
    {
      category: 'auth',
      type: 'ssh.login.failed',
      severity: 'warning',
      title: 'late arrival',
      summary: 'stored while the page is open',
      details: { user: 'mallory', source_ip: '198.51.100.23' },
    },
  );

beforeAll(async () => {
  fx = await loadFixture(t.srv.h.stores.pg, t.srv.h.stores.ch);
  page = await t.openPage(WIDE, MONA);
}, 180_000);

describe('events page (1440 px)', () => {
  it('Search: typed text filters the list and lands in the URL', async () => {
    await page.goto(`${t.srv.url}/events`);
    await waitTotal(12); // the last 24 h by default (hidden type left out)
    await page.fill('input[aria-label=Search]', 'roo');
    await page.press('input[aria-label=Search]', 'Enter');
    await page.waitForURL(/q=roo/);
    await waitTotal(1);
    expect(await page.textContent('.n-data-table-tbody')).toContain('E1 ssh.login.failed on alpha');
    await page.reload();
    await waitTotal(1);
    expect(await page.inputValue('input[aria-label=Search]')).toBe('roo');
    // The display name as the table shows it finds the host.
    await page.goto(`${t.srv.url}/events?hostname=${encodeURIComponent('Beta DC')}`);
    await waitTotal(7);
  });

  it('time range: a preset in the URL, times shown with their zone', async () => {
    await page.goto(`${t.srv.url}/events`);
    await waitTotal(12);
    expect(await page.textContent('[data-testid=time-range-zone]')).toMatch(/UTC[+-]\d{2}:\d{2}/);
    await chooseOption(page, '[data-testid=time-range]', 'Last 7 days');
    await page.waitForURL(/range=7d/);
    await waitTotal(14);
    const time = await page.textContent('.n-data-table-tbody tr td:first-child');
    // The time cell names its zone (UTC, GMT+1, CET, ...).
    expect(time).toMatch(/\b(UTC|GMT|[A-Z]{2,5})([+-]\d+)?\s*$/);
  });

  it('top values: clicking one adds it as a filter', async () => {
    await page.goto(`${t.srv.url}/events?range=24h`);
    await page.waitForSelector('[data-testid=facet-user]');
    const users = await page.locator('[data-testid=facet-user]').allTextContents();
    expect(users.map((u) => u.replace(/\s+\d+$/, '').trim())).toEqual(['bob', 'carol', 'root']);
    expect(await page.locator('[data-testid=facet-hostname]').first().textContent()).toMatch(/Beta DC\s+7/);
    await page.click('[data-testid=facet-user]:has-text("carol")');
    await page.waitForURL(/user=carol/);
    expect(param('range')).toBe('24h');
    await waitTotal(1);
  });

  it('histogram: every bucket drawn; dragging across it zooms to an absolute range in the URL', async () => {
    await page.goto(`${t.srv.url}/events?range=24h`);
    await waitTotal(12);
    const bars = await page.locator('[data-testid=histogram-bar]').count();
    expect(bars).toBeGreaterThanOrEqual(24);
    const box = (await page.locator('[data-testid=histogram] svg').boundingBox())!;
    // From the middle of the range to its end: the last 12 h hold E1-E8, E11, E12, E15 (11 visible).
    await page.mouse.move(box.x + box.width * 0.52, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, { steps: 5 });
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForURL(/from=/);
    expect(param('range')).toBeNull();
    const from = new Date(param('from')!);
    const to = new Date(param('to')!);
    expect(to.getTime()).toBeGreaterThanOrEqual(fx.base.getTime());
    expect(to.getTime() - from.getTime()).toBeLessThan(14 * 3600_000);
    expect(to.getTime() - from.getTime()).toBeGreaterThan(9 * 3600_000);
    await page.waitForFunction(() => !document.querySelector('[data-testid=events-total]')?.textContent?.startsWith('12 events'));
    expect(await totalText()).toMatch(/^1[01] events/);
    // Keyboard: a bar is a button; Enter zooms into its bucket (one hour of the 24 h view).
    await page.goto(`${t.srv.url}/events?range=24h`);
    await waitTotal(12);
    await page.locator('[data-testid=histogram-bar]').last().focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/from=/);
    expect(new Date(param('to')!).getTime() - new Date(param('from')!).getTime()).toBe(3600_000);
  });

  it('drill-down: type and user cells filter the list; the host name opens the host page', async () => {
    await page.goto(`${t.srv.url}/events?range=24h&hostname=alpha`);
    await waitTotal(5);
    await page.click('.n-data-table-tbody a[aria-label="Filter events by type report.daily.ssh"]');
    await page.waitForURL(/type=report.daily.ssh/);
    expect(param('hostname')).toBe('alpha');
    await waitTotal(1);
    await page.goto(`${t.srv.url}/events?range=24h&q=203.0.113`);
    await waitTotal(1);
    await page.click('.n-data-table-tbody a[aria-label="Filter events by address 203.0.113.7"]');
    await page.waitForURL(/source_ip=203.0.113.7/);
    await waitTotal(1);
    await page.click('.n-data-table-tbody a[aria-label="Filter events by user root"]');
    await page.waitForURL(/user=root/);
    await page.click('[data-testid=host-link]');
    await page.waitForURL(/\/hosts\/\d+$/);
    const id = (await t.srv.h.stores.pg.query<{ id: number }>("SELECT id FROM hosts WHERE hostname = 'alpha'")).rows[0]!.id;
    expect(new URL(page.url()).pathname).toBe(`/hosts/${id}`);
  });

  it('"N new events" appears after an event is stored, and shows it on click', async () => {
    await page.goto(`${t.srv.url}/events?range=1h&hostname=alpha`);
    await waitTotal(1); // E3 (E1, 1 h before the fixture's base, is just out)
    expect(await page.locator('[data-testid=events-new]').count()).toBe(0);
    const e = newEvent();
    await t.srv.store([e]);
    await t.srv.publishLive([e]);
    await page.waitForSelector('[data-testid=events-new]', { timeout: 15_000 });
    expect(await page.textContent('[data-testid=events-new]')).toMatch(/1 new event\b/);
    await page.click('[data-testid=events-new]');
    await waitTotal(2);
    expect(await page.textContent('.n-data-table-tbody')).toContain('late arrival');
    expect(await page.locator('[data-testid=events-new]').count()).toBe(0);
  });

  it('no mid-word wraps of times, hosts and types at 1440 px; axe finds nothing serious', async () => {
    await page.setViewportSize(WIDE);
    await page.goto(`${t.srv.url}/events?range=7d`);
    await page.waitForSelector('.n-data-table-tbody tr');
    const wrapped = await page.evaluate(() =>
      [...document.querySelectorAll('.n-data-table-tbody td.nowrap')]
        .filter((td) => {
          const r = document.createRange();
          r.selectNodeContents(td);
          // Boxes on one line may differ by a few pixels (badges, baselines); a new line is a line-height lower.
          const tops = [...r.getClientRects()].map((x) => x.top);
          return Math.max(...tops) - Math.min(...tops) > 10;
        })
        .map((td) => td.textContent),
    );
    expect(wrapped).toEqual([]);
    expect(await page.locator('.n-data-table-tbody td.nowrap').count()).toBeGreaterThan(20);
    expect(await axeSerious(page)).toEqual([]);
    await screenshots(page, '23-events');
  });
});

describe('events page (375 px)', () => {
  it('no sideways page scroll; the table scrolls in its own box; search still works', async () => {
    await page.setViewportSize(NARROW);
    await page.goto(`${t.srv.url}/events?range=24h`);
    await waitTotal(13); // the fixture's 12 and the event stored above
    await page.waitForSelector('[data-testid=histogram-bar]');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.fill('input[aria-label=Search]', 'carol');
    await page.press('input[aria-label=Search]', 'Enter');
    await page.waitForURL(/q=carol/);
    await waitTotal(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect(await axeSerious(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
