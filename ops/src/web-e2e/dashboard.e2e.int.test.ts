// The dashboard as the start of an investigation (issue 23) in a real browser against the real API and
// stores: the "Time range" control (24 h by default, exact), every tile and bar opening the filtered
// events list with the same range (an hour bar: that hour), every hour of the range drawn (empty ones as
// 0), severity colours, the problem list refreshed by the live stream; no mid-word wraps at 1440 px,
// no sideways scroll at 375 px; axe on the page.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { LiveProblemsMessage } from '@watchpost/schemas';
import { loadFixture, type Fixture } from '@watchpost/testkit/api';
import { axeSerious, chooseOption, screenshots } from './pages.ts';
import { MONA, browserTest, sshMonitorEvent } from './session.ts';

const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 375, height: 800 };

const t = browserTest('web_dashboard', { env: { SERVICE_HEARTBEAT_STALE_MINUTES: '60' }, users: [MONA] });
const { pageErrors } = t;
let fx: Fixture;
let page: Page;

const param = (k: string) => new URL(page.url()).searchParams.get(k);
const num = async (sel: string) => Number((await page.textContent(sel))!.replace(/\D/g, ''));
const waitTotal = (n: number) =>
  page.waitForFunction((n) => document.querySelector('[data-testid=events-total]')?.textContent?.startsWith(`${n} event`), n, {
    timeout: 10_000,
  });
/** Links laid over the bars of a chart (each bar's accessible name ends with "N events"). */
const barLinks = (chart: string) => page.locator(`[data-testid=${chart}] a.bar-link`);
const countOf = (name: string | null) => Number(/([\d,.\s]+) events$/.exec(name ?? '')![1]!.replace(/\D/g, ''));

async function openDashboard(path = '/') {
  await page.goto(`${t.srv.url}${path}`);
  await page.waitForSelector('[data-testid=kpi-events]');
  await page.waitForSelector('[data-testid=chart-hours] a.bar-link');
}

beforeAll(async () => {
  fx = await loadFixture(t.srv.h.stores.pg, t.srv.h.stores.ch);
  page = await t.openPage(WIDE, MONA);
}, 180_000);

describe('dashboard (1440 px)', () => {
  it('has the Time range control, 24 h by default, counting exactly what the events list counts', async () => {
    await openDashboard();
    expect(await page.textContent('#time-range-l')).toBe('Time range');
    expect(await page.textContent('[data-testid=time-range]')).toContain('Last 24 hours');
    // The fixture's visible events of the last 24 h: 12 (E13 at 23 h 30 min in, E14 at 25 h 5 min out).
    expect(await num('[data-testid=kpi-events]')).toBe(12);
    expect(await num('[data-testid=kpi-warning]')).toBe(3);
    await chooseOption(page, '[data-testid=time-range]', 'Last 7 days');
    await page.waitForURL(/range=7d/);
    await page.waitForFunction(() => document.querySelector('[data-testid=kpi-events]')?.textContent === '14');
    // 7 days of hours, every one drawn.
    expect(await barLinks('chart-hours').count()).toBeGreaterThanOrEqual(168);
  });

  it('a severity tile opens the events list filtered by that severity, with the same range', async () => {
    await openDashboard('/?range=7d');
    const n = await num('[data-testid=kpi-warning]');
    expect(n).toBe(4); // E14 (25 h ago) is in the 7 days
    await page.getByRole('link', { name: new RegExp(`^warning events\\s*${n}$`) }).click();
    await page.waitForURL(/\/events\?/);
    expect(param('severity')).toBe('warning');
    expect(param('range')).toBe('7d');
    await waitTotal(n);
    // The default range: the tile's count is the list's total.
    await openDashboard();
    const c = await num('[data-testid=kpi-critical]');
    await page.click('[data-testid=tile-critical]');
    await page.waitForURL(/severity=critical/);
    expect(param('range')).toBe('24h');
    await waitTotal(c);
  });

  it('events by hour: every hour of the range, empty ones as 0; a bar opens that hour', async () => {
    await openDashboard();
    const bars = barLinks('chart-hours');
    // [now - 24 h, now] touches 25 UTC hours (the first and the last partly).
    expect(await bars.count()).toBe(25);
    const names = await bars.evaluateAll((as) => as.map((a) => a.getAttribute('aria-label')));
    const counts = names.map(countOf);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(12);
    expect(counts.filter((c) => c === 0).length).toBeGreaterThanOrEqual(10);
    // The bar of E13 (23 h 30 min ago) holds one event; open it.
    const i = counts.findIndex((c) => c > 0);
    await bars.nth(i).click();
    await page.waitForURL(/from=/);
    const from = Date.parse(param('from')!);
    const to = Date.parse(param('to')!);
    expect(param('range')).toBeNull();
    expect(to - from).toBeLessThanOrEqual(3_600_000);
    expect(to - from).toBeGreaterThan(0);
    await waitTotal(counts[i]!);
  });

  it('severity chart in severity colours; top hosts and types open their filtered lists', async () => {
    await openDashboard();
    const fills = await page.evaluate(() => {
      const css = getComputedStyle(document.documentElement);
      return ['info', 'warning', 'high', 'critical'].map((k) => css.getPropertyValue(`--sev-${k}-bg`).trim());
    });
    expect(new Set(fills).size).toBe(4);
    // The severity bars take those colours: sample the canvas at the middle bottom of each bar's band.
    const sampled = await page.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=chart-severity] canvas')!;
      const ctx = canvas.getContext('2d')!;
      const cb = canvas.getBoundingClientRect();
      const ratio = canvas.width / cb.width;
      return [...document.querySelectorAll<HTMLElement>('[data-testid=chart-severity] a.bar-link')].map((a) => {
        const b = a.getBoundingClientRect();
        const [r, g, bl] = ctx.getImageData((b.left - cb.left + b.width / 2) * ratio, (b.bottom - cb.top - 3) * ratio, 1, 1).data;
        return `#${[r, g, bl].map((x) => x!.toString(16).padStart(2, '0')).join('')}`;
      });
    });
    expect(sampled).toEqual(fills);
    const sevNames = await barLinks('chart-severity').evaluateAll((as) => as.map((a) => a.getAttribute('aria-label')));
    expect(sevNames).toEqual(['info: 7 events', 'warning: 3 events', 'high: 1 events', 'critical: 1 events']);
    await barLinks('chart-severity').nth(1).click();
    await page.waitForURL(/severity=warning/);
    await waitTotal(3);

    await openDashboard();
    await page.getByRole('link', { name: 'Beta DC: 7 events' }).click();
    await page.waitForURL(/hostname=beta/);
    expect(param('range')).toBe('24h');
    await waitTotal(7);
    await openDashboard();
    await page.getByRole('link', { name: 'ssh.login.failed: 3 events' }).click();
    await page.waitForURL(/type=ssh.login.failed/);
    await waitTotal(3);
  });

  it('stale hosts stand out and open the hosts list filtered by status', async () => {
    await openDashboard();
    // gamma last reported 30 h ago: stale (the stale rule is 60 min here).
    expect(await num('[data-testid=kpi-stale]')).toBe(1);
    const color = await page.$eval('[data-testid=kpi-stale]', (e) => getComputedStyle(e).color);
    const plain = await page.$eval('[data-testid=kpi-events]', (e) => getComputedStyle(e).color);
    expect(color).not.toBe(plain);
    await page.click('[data-testid=tile-stale]');
    await page.waitForURL(/\/hosts\?status=stale/);
    await page.waitForFunction(() => document.body.textContent?.toLowerCase().includes('gamma'));
  });

  it('the problem list follows the live stream; a host in it opens its events', async () => {
    await openDashboard();
    await page.waitForSelector('.live-dot.on');
    await page.waitForSelector('[data-testid=dash-problems] li');
    expect(await page.textContent('[data-testid=dash-problems]')).not.toContain('delta');
    // A new problem as the correlate processor opens it, announced as the stream processor does.
    const env = sshMonitorEvent(
      { hostname: 'delta', displayName: 'Delta', agoMs: 2000, receivedAfterMs: 0 },
      {
        category: 'auth',
        type: 'ssh.bruteforce.mass',
        severity: 'critical',
        title: 'brute force on delta',
        summary: 'many failures',
      },
    );
    await t.srv.store([env], { correlate: true });
    const p = (
      await t.srv.h.stores.pg.query<{ id: string; title: string }>("SELECT id, title FROM problems WHERE host = 'delta'")
    ).rows[0]!;
    const msg: LiveProblemsMessage = {
      kind: 'problems',
      action: 'opened',
      problem: { id: p.id, host: 'delta', type: 'ssh.bruteforce.mass', title: p.title, severity: 'critical' },
    } as LiveProblemsMessage;
    await t.srv.h.redis.publish(t.srv.h.config.stream.channel, JSON.stringify(msg));
    await page.waitForFunction(
      () => document.querySelector('[data-testid=dash-problems]')?.textContent?.includes('delta'),
      null,
      {
        timeout: 10_000,
      },
    );
    await page.getByRole('link', { name: 'Events of delta' }).click();
    await page.waitForURL(/hostname=delta/);
    await waitTotal(1);
  });

  it('no mid-word wraps at 1440 px; axe finds nothing serious', async () => {
    await page.setViewportSize(WIDE);
    await openDashboard();
    await page.waitForSelector('[data-testid=dash-problems] li');
    const broken = await page.evaluate(() => {
      const out: string[] = [];
      const walker = document.createTreeWalker(document.querySelector('.dash')!, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const tops = [...r.getClientRects()].map((x) => x.top);
          if (tops.length > 1 && Math.max(...tops) - Math.min(...tops) > 10) out.push(m[0]);
        }
      }
      return out;
    });
    expect(broken).toEqual([]);
    expect(await axeSerious(page)).toEqual([]);
    await screenshots(page, '23-dashboard');
  });
});

describe('dashboard (375 px)', () => {
  it('no sideways scroll; the time range control and drill-down still work', async () => {
    await page.setViewportSize(NARROW);
    await openDashboard();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.isVisible('[data-testid=time-range]')).toBe(true);
    expect(await barLinks('chart-hours').count()).toBe(25);
    await page.click('[data-testid=tile-high]');
    await page.waitForURL(/severity=high/);
    await waitTotal(1);
    expect(pageErrors).toEqual([]);
    // The fixture is what the figures were checked against.
    expect(fx.base.getTime()).toBeLessThanOrEqual(Date.now());
  });
});
