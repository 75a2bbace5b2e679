// The import rules of .dependency-cruiser.cjs (ARCHITECTURE.md), shown to refuse what they should: small
// trees of files written under a temporary folder at the paths they would have in this repository are
// cruised with the real rules (dependency-cruiser's API), then the real tree with the real command.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The violations (`rule: from -> to`) of a tree of files (path in the repository -> source). */
async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
  dirs.push(dir);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const tops = [...new Set(Object.keys(files).map((p) => p.split('/')[0]!))];
  const r = await cruise(tops, {
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    baseDir: dir,
    tsPreCompilationDeps: config.options?.tsPreCompilationDeps,
  });
  const result = r.output as ICruiseResult;
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('import circles', () => {
  it('refuses a circle, a type-only one too', async () => {
    expect(
      await violations({
        'core/src/actions/latest-versions.ts':
          "import type { AgentKind } from './settings.ts';\nexport type Latest = AgentKind;\n",
        'core/src/actions/settings.ts':
          "import { load } from './latest-versions.ts';\nexport type AgentKind = 'linux';\nexport { load };\n",
      }),
    ).toEqual(['no-circular: core/src/actions/latest-versions.ts -> core/src/actions/settings.ts']);
    expect(
      await violations({
        'core/src/a.ts': "import type { B } from './b.ts';\nexport type A = B | 1;\n",
        'core/src/b.ts': "import type { A } from './a.ts';\nexport type B = 2;\nexport type C = A;\n",
      }),
    ).toEqual(['no-circular: core/src/a.ts -> core/src/b.ts']);
  });

  it('lets the same files through once the shared piece has a file of its own', async () => {
    expect(
      await violations({
        'core/src/actions/agent-kind.ts': "export type AgentKind = 'linux';\n",
        'core/src/actions/latest-versions.ts':
          "import type { AgentKind } from './agent-kind.ts';\nexport type Latest = AgentKind;\n",
        'core/src/actions/settings.ts': "import type { Latest } from './latest-versions.ts';\nexport type S = Latest;\n",
      }),
    ).toEqual([]);
  });

  it('refuses the two-file circle the session-action rework removed (agent-transport / winrm-host)', async () => {
    const pair = await violations({
      'processors/src/actions/agent-transport.ts': "import { w } from './handlers/winrm-host.ts';\nexport const a = () => w;\n",
      'processors/src/actions/handlers/winrm-host.ts': "import { a } from '../agent-transport.ts';\nexport const w = () => a;\n",
    });
    expect(pair).toHaveLength(1);
    expect(pair[0]).toMatch(/^no-circular: processors\/src\/actions\//);
  });
});

describe('processors role folders', () => {
  it('refuses an import of another role folder (the SSRF guard in deliver/, a job in correlate/)', async () => {
    expect(
      await violations({
        'processors/src/actions/git.ts': "import { guard } from '../deliver/ssrf.ts';\nexport const g = guard;\n",
        'processors/src/deliver/ssrf.ts': 'export const guard = 1;\n',
        'processors/src/scheduler/index.ts': "import { scan } from '../correlate/liveness.ts';\nexport const s = scan;\n",
        'processors/src/correlate/liveness.ts': 'export const scan = 1;\n',
      }),
    ).toEqual([
      'processors-role-folders-import-only-their-own: processors/src/actions/git.ts -> processors/src/deliver/ssrf.ts',
      'processors-role-folders-import-only-their-own: processors/src/scheduler/index.ts -> processors/src/correlate/liveness.ts',
    ]);
  });

  it('lets a role folder import its own folder, kafka/ and shared/; the entry puts roles together', async () => {
    expect(
      await violations({
        'processors/src/actions/git.ts':
          "import { guard } from '../shared/ssrf.ts';\nimport { o } from '../kafka/options.ts';\nimport { h } from './handlers/h.ts';\nexport const g = [guard, o, h];\n",
        'processors/src/actions/handlers/h.ts': 'export const h = 1;\n',
        'processors/src/shared/ssrf.ts': "import { o } from '../kafka/options.ts';\nexport const guard = o;\n",
        'processors/src/kafka/options.ts': 'export const o = 1;\n',
        'processors/src/correlate/index.ts': 'export const job = 1;\n',
        'processors/src/scheduler/index.ts': 'export const withJobs = (jobs: number[]) => jobs;\n',
        'processors/src/index.ts':
          "import { job } from './correlate/index.ts';\nimport { withJobs } from './scheduler/index.ts';\nexport const scheduler = withJobs([job]);\n",
        'processors/src/scheduler/scheduler.test.ts': "import { scheduler } from '../index.ts';\nexport const t = scheduler;\n",
      }),
    ).toEqual([]);
  });

  it("refuses the entry in a role's production code, and a role in a shared folder", async () => {
    expect(
      await violations({
        'processors/src/index.ts': 'export const all = 1;\n',
        'processors/src/scheduler/index.ts': "import { all } from '../index.ts';\nexport const s = all;\n",
        'processors/src/shared/html.ts': "import { r } from '../deliver/templates.ts';\nexport const e = r;\n",
        'processors/src/deliver/templates.ts': 'export const r = 1;\n',
        'processors/src/kafka/steps.ts': "import { r } from '../deliver/templates.ts';\nexport const k = r;\n",
      }),
    ).toEqual([
      'processors-role-folders-reach-the-entry-only-in-tests: processors/src/scheduler/index.ts -> processors/src/index.ts',
      'processors-shared-folders-import-no-role: processors/src/kafka/steps.ts -> processors/src/deliver/templates.ts',
      'processors-shared-folders-import-no-role: processors/src/shared/html.ts -> processors/src/deliver/templates.ts',
    ]);
  });
});

describe('core by area', () => {
  // Imports from a role's folder to core at the depth its files have here (`@watchpost/core/<area>` resolves to
  // the same entry files in the real tree).
  const core = (depth: number, file: string) => `${'../'.repeat(depth)}core/src/${file}`;

  it('refuses the barrel in production code of a role and of ops; tests, benches and the testkit use it', async () => {
    expect(
      await violations({
        'core/src/index.ts': "export * from './hosts/index.ts';\n",
        'core/src/hosts/index.ts': 'export const h = 1;\n',
        'api/src/routes/hosts.ts': `import { h } from '${core(3, 'index.ts')}';\nexport const r = h;\n`,
        'ops/src/cli/hosts.ts': `import { h } from '${core(3, 'index.ts')}';\nexport const c = h;\n`,
        'api/src/routes/hosts.test.ts': `import { h } from '${core(3, 'index.ts')}';\nexport const t = h;\n`,
        'processors/bench/hosts.bench.ts': `import { h } from '${core(2, 'index.ts')}';\nexport const b = h;\n`,
        'testkit/src/hosts.ts': `import { h } from '${core(2, 'index.ts')}';\nexport const k = h;\n`,
      }),
    ).toEqual([
      'roles-import-core-by-area: api/src/routes/hosts.ts -> core/src/index.ts',
      'roles-import-core-by-area: ops/src/cli/hosts.ts -> core/src/index.ts',
    ]);
  });

  it("refuses an area outside a role's list, and a file behind an allowed area's entry", async () => {
    expect(
      await violations({
        'core/src/users/index.ts': "export * from './users.ts';\n",
        'core/src/users/users.ts': 'export const u = 1;\n',
        'core/src/audit.ts': 'export const a = 1;\n',
        'core/src/hosts/index.ts': "export * from './store.ts';\n",
        'core/src/hosts/store.ts': 'export const h = 1;\n',
        'core/src/retention.ts': 'export const r = 1;\n',
        'ingest/src/app.ts': `import { u } from '${core(2, 'users/index.ts')}';\nexport const i = u;\n`,
        'processors/src/notify/decide.ts': `import { a } from '${core(3, 'audit.ts')}';\nexport const d = a;\n`,
        'api/src/routes/hosts.ts': `import { h } from '${core(3, 'hosts/store.ts')}';\nexport const r = h;\n`,
        'ops/src/cli/prune.ts': `import { r } from '${core(3, 'retention.ts')}';\nexport const p = r;\n`,
      }),
    ).toEqual([
      'api-imports-only-its-core-areas: api/src/routes/hosts.ts -> core/src/hosts/store.ts',
      'ingest-imports-only-its-core-areas: ingest/src/app.ts -> core/src/users/index.ts',
      'ops-imports-only-its-core-areas: ops/src/cli/prune.ts -> core/src/retention.ts',
      'processors-imports-only-its-core-areas: processors/src/notify/decide.ts -> core/src/audit.ts',
    ]);
  });

  it("lets each role import its areas' entries, and its tests and benches any area", async () => {
    expect(
      await violations({
        'core/src/users/index.ts': 'export const u = 1;\n',
        'core/src/hosts/index.ts': 'export const h = 1;\n',
        'core/src/agent-keys.ts': 'export const k = 1;\n',
        'core/src/retention.ts': 'export const r = 1;\n',
        'core/src/events/window-time.ts': 'export const w = 1;\n',
        'core/src/migrate/index.ts': 'export const m = 1;\n',
        'core/src/audit.ts': 'export const a = 1;\n',
        'api/src/routes/users.ts': `import { u } from '${core(3, 'users/index.ts')}';\nimport { h } from '${core(3, 'hosts/index.ts')}';\nexport const x = [u, h];\n`,
        'ingest/src/app.ts': `import { k } from '${core(2, 'agent-keys.ts')}';\nexport const i = k;\n`,
        'processors/src/scheduler/index.ts': `import { r } from '${core(3, 'retention.ts')}';\nimport { w } from '${core(3, 'events/window-time.ts')}';\nexport const s = [r, w];\n`,
        'ops/src/migrate/cli.ts': `import { m } from '${core(3, 'migrate/index.ts')}';\nexport const c = m;\n`,
        'ingest/src/app.test.ts': `import { u } from '${core(2, 'users/index.ts')}';\nexport const t = u;\n`,
        'processors/bench/audit.bench.ts': `import { a } from '${core(2, 'audit.ts')}';\nexport const b = a;\n`,
      }),
    ).toEqual([]);
  });
});

describe('the real tree', () => {
  it('passes every rule (npm run lint:boundaries)', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const [bin, ...args] = pkg.scripts['lint:boundaries']!.split(' ');
    expect(bin).toBe('depcruise');
    const r = await promisify(execFile)(join(ROOT, 'node_modules/.bin/depcruise'), args, { cwd: ROOT });
    expect(r.stdout).toMatch(/no dependency violations found/);
  });
});
