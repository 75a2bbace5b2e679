// Pending host changes (issue 21) in a real browser against the real API and Postgres: the hosts list
// tags hosts with a pending change or an identity conflict; on "Host changes" an admin accepts one change
// and bulk-accepts two selected ones (a selected identity conflict is left out and said so: issue 33,
// accepted one by one; there is no "Accept all"); on the host page the identity conflict is accepted
// (binding moved, problem resolved); a monitor reads the list without any decision control and without
// agent instance ids. axe on every page.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createApiKey } from '@watchpost/core';
import { makeEnvelope } from '@watchpost/testkit';
import { insertBoundHost, openIdentityConflict, recordPendingChange } from '@watchpost/testkit/api';
import { axeSerious, confirmDialog, DESKTOP, screenshots } from './pages.ts';
import { ADA, MONA, browserTest } from './session.ts';

const t = browserTest('web_host_changes', { users: [ADA, MONA] });
const { pageErrors } = t;
let page: Page;
const hosts: Record<string, { id: number; change: number }> = {};
let identity = { change: 0, problem: '' };
let keyB = 0;

const ipv4Of = async (id: number) =>
  (await t.srv.h.stores.pg.query<{ ipv4: string }>('SELECT ipv4 FROM hosts WHERE id = $1', [id])).rows[0]!.ipv4;
const statusOf = async (id: number) =>
  (await t.srv.h.stores.pg.query<{ status: string }>('SELECT status FROM host_changes WHERE id = $1', [id])).rows[0]!.status;

beforeAll(async () => {
  const pg = t.srv.h.stores.pg;
  const keyA = (await createApiKey(pg, 'fleet-a')).id;
  keyB = (await createApiKey(pg, 'fleet-b')).id;
  for (const [i, name] of ['hc-web-1', 'hc-web-2', 'hc-web-3'].entries()) {
    const id = await insertBoundHost(pg, {
      hostname: name,
      ipv4: `10.0.0.${i + 1}`,
      agent_instance_id: `inst-${i + 1}`,
      bound_key_id: keyA,
    });
    const change = await recordPendingChange(pg, {
      hostId: id,
      kind: 'facts',
      proposed: { ipv4: `10.8.0.${i + 1}`, internal_address: `10.8.0.${i + 1}` },
      current: { ipv4: `10.0.0.${i + 1}`, internal_address: `10.0.0.${i + 1}` },
      agent_instance_id: `inst-${i + 1}`,
      key_id: keyA,
    });
    hosts[name] = { id, change };
  }
  const winId = await insertBoundHost(pg, {
    hostname: 'hc-win',
    os_family: 'windows',
    product: 'rdp-login-monitor',
    ipv4: '10.0.1.1',
    agent_instance_id: 'old-instance',
    bound_key_id: keyA,
  });
  hosts['hc-win'] = { id: winId, change: 0 };
  identity = {
    problem: await openIdentityConflict(pg, 'hc-win'),
    change: await recordPendingChange(pg, {
      hostId: winId,
      kind: 'identity',
      proposed: { agent_instance_id: 'reinstalled-instance', key_id: keyB },
      current: { agent_instance_id: 'old-instance', key_id: keyA },
      agent_instance_id: 'reinstalled-instance',
      key_id: keyB,
    }),
  };
  // The reinstalled agent's event (stored only: correlate's side is T1a's; the change above is what it records).
  await t.srv.store([
    makeEnvelope({
      type: 'rdp.login.success',
      severity: 'info',
      source: { product: 'rdp-login-monitor', product_version: '5.0.0', agent_instance_id: 'reinstalled-instance' },
      host: { hostname: 'hc-win', os_family: 'windows', ipv4: '10.0.1.1' },
    }),
  ]);
  page = await t.openPage(DESKTOP, ADA);
}, 180_000);

describe('host changes in the browser', () => {
  it('the hosts list tags hosts with a pending change or an identity conflict', async () => {
    await page.goto(`${t.srv.url}/hosts?search=hc-`);
    await page.waitForSelector('[data-testid=host-change-tag]');
    const rowOf = (name: string) => page.locator('.n-data-table-tbody tr', { hasText: name });
    expect(await rowOf('hc-win').locator('[data-testid=host-change-tag]').allInnerTexts()).toEqual(['Identity conflict']);
    expect(await rowOf('hc-web-1').locator('[data-testid=host-change-tag]').allInnerTexts()).toEqual(['Pending change']);
    expect(await page.textContent('[data-testid=hosts-pending-note]')).toMatch(/Host changes/);
    expect(await axeSerious(page)).toEqual([]);
  });

  it('an admin accepts one change, then selects two and accepts them in bulk', async () => {
    await page.click('nav[aria-label=Main] >> text=Host changes');
    await page.waitForSelector('table[data-testid=host-changes] tbody tr');
    expect(await page.locator('table[data-testid=host-changes] tbody tr').count()).toBe(4);
    const row1 = page.locator(`tr[data-change-id="${hosts['hc-web-1']!.change}"]`);
    expect((await row1.innerText()).replace(/\s+/g, ' ')).toMatch(/IPv4: 10\.0\.0\.1 → changes to 10\.8\.0\.1/);
    await screenshots(page, '40-host-changes');
    expect(await axeSerious(page)).toEqual([]);

    await page.getByRole('button', { name: 'Accept the change of hc-web-1' }).click();
    await page.waitForSelector('.n-message >> text=Accepted the change of hc-web-1');
    await row1.waitFor({ state: 'detached' });
    expect(await ipv4Of(hosts['hc-web-1']!.id)).toBe('10.8.0.1');

    // Accepting in bulk takes only what is shown, never everything pending.
    expect(await page.getByRole('button', { name: /Accept all/ }).count()).toBe(0);
    await page.getByRole('checkbox', { name: 'Select the identity conflict of hc-win' }).check();
    expect(await page.getByRole('button', { name: 'Accept selected (0)' }).isDisabled()).toBe(true);
    expect(await page.textContent('[data-testid=host-changes-one-by-one]')).toMatch(/1 selected identity or certificate change/);
    await page.getByRole('checkbox', { name: 'Select the pending change of hc-web-2' }).check();
    await page.getByRole('checkbox', { name: 'Select the pending change of hc-web-3' }).check();
    await page.getByRole('button', { name: 'Accept selected (2)' }).click();
    await confirmDialog(page, 'Accept 2', 'Accept 2 selected change(s)?');
    await page.waitForSelector('.n-message >> text=Accepted 2 change(s)');
    await page.waitForFunction(() => document.querySelectorAll('table[data-testid=host-changes] tbody tr').length === 1);
    expect(await ipv4Of(hosts['hc-web-2']!.id)).toBe('10.8.0.2');
    expect(await ipv4Of(hosts['hc-web-3']!.id)).toBe('10.8.0.3');
    expect([await statusOf(hosts['hc-web-2']!.change), await statusOf(hosts['hc-web-3']!.change)]).toEqual([
      'accepted',
      'accepted',
    ]);
    // the identity conflict is left, untouched
    expect(await statusOf(identity.change)).toBe('pending');
  });

  it('a monitor reads the pending changes without any decision control', async () => {
    const p = await t.openPage(DESKTOP, MONA);
    await p.goto(`${t.srv.url}/host-changes`);
    await p.waitForSelector(`tr[data-change-id="${identity.change}"]`);
    expect(await p.locator('table[data-testid=host-changes] input[type=checkbox]').count()).toBe(0);
    expect(await p.getByRole('button', { name: /Accept|Reject/ }).count()).toBe(0);
    expect(await p.textContent('main')).toMatch(/Only an admin decides/);
    // Agent instance ids reach admins only (issue 33): the identity conflict shows its keys alone.
    const main = await p.textContent('main');
    expect(main).not.toContain('old-instance');
    expect(main).not.toContain('reinstalled-instance');
    expect((await p.locator(`tr[data-change-id="${identity.change}"]`).innerText()).replace(/\s+/g, ' ')).toMatch(
      /Agent key: fleet-a \(#\d+\) → changes to fleet-b \(#\d+\)/,
    );
    expect(await axeSerious(p)).toEqual([]);
    await p.context().close();
  });

  it('the host page shows the identity conflict; accepting it binds the new agent and resolves the problem', async () => {
    await page.goto(`${t.srv.url}/hosts/${hosts['hc-win']!.id}`);
    await page.waitForSelector('[data-testid=host-pending-changes]');
    const section = page.locator('[data-testid=host-pending-changes]');
    expect((await section.innerText()).replace(/\s+/g, ' ')).toMatch(
      /Agent instance: old-instance → changes to reinstalled-instance.*Agent key: fleet-a \(#\d+\) → changes to fleet-b \(#\d+\)/,
    );
    await screenshots(page, '41-host-pending-change');
    expect(await axeSerious(page)).toEqual([]);
    await section.getByRole('button', { name: 'Accept new agent' }).click();
    await section.waitFor({ state: 'detached' });
    const host = (
      await t.srv.h.stores.pg.query('SELECT agent_instance_id, bound_key_id FROM hosts WHERE id = $1', [hosts['hc-win']!.id])
    ).rows[0];
    expect(host).toEqual({ agent_instance_id: 'reinstalled-instance', bound_key_id: keyB });
    const problem = (
      await t.srv.h.stores.pg.query('SELECT status, resolved_by_user FROM problems WHERE id = $1', [identity.problem])
    ).rows[0];
    expect(problem).toEqual({ status: 'resolved', resolved_by_user: 'ada' });
    expect(await page.textContent('main')).toContain('reinstalled-instance');
    expect(pageErrors).toEqual([]);
  });
});
