// Page helpers for the browser tests: login, axe-core, screenshots at desktop and phone width.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
export const SCREENSHOTS = fileURLToPath(new URL('../../../web/screenshots/', import.meta.url));

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

export async function loginAs(page: Page, base: string, username: string, password: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.fill('#login-user', username);
  await page.fill('#login-password', password);
  await page.click('button[type=submit]');
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations on the current page (evaluated through the debugger, not a script tag, so the CSP stays on). */
export async function axeSerious(page: Page): Promise<AxeViolation[]> {
  // Colours mid-transition (naive-ui fades cell and badge backgrounds, a busy machine stretches that)
  // are no contrast defect: measure the settled page. Endless animations (spinners) are not waited for.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Full-page screenshots at desktop and phone width under web/screenshots/ (git-ignored). */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await page.waitForTimeout(150);
  await page.screenshot({ path: `${SCREENSHOTS}${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(150);
  await page.screenshot({ path: `${SCREENSHOTS}${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
}

/**
 * Clicks the positive button of a naive-ui confirm dialog (the newest, or the one showing `title`)
 * once it is on screen, then waits until the dialog is gone.
 */
export async function confirmDialog(page: Page, button: string, title?: string): Promise<void> {
  // The newest: an earlier dialog may still be in its leave transition.
  const dialog = page.locator('.n-dialog', title ? { hasText: title } : {}).last();
  await dialog.waitFor();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

/**
 * Picks `label` in the naive-ui select `select` and waits until the select shows it. On a loaded machine
 * a click landing while the menu is still entering can be lost (seen in CI): the pick is then made
 * again, at most three times, before the wait fails.
 */
export async function chooseOption(page: Page, select: string, label: string): Promise<void> {
  const shown = async () => ((await page.textContent(select)) ?? '').includes(label);
  for (let attempt = 1; ; attempt++) {
    await page.click(select);
    await page.locator('.n-base-select-option', { hasText: label }).last().click();
    try {
      await page.waitForFunction(([s, l]) => (document.querySelector(s!)?.textContent ?? '').includes(l!), [select, label], {
        timeout: 3000,
      });
      return;
    } catch (err) {
      if (await shown()) return;
      if (attempt >= 3) throw err;
    }
  }
}
