// The contract between the API and the web UI: the checked-in web/src/api/schema.d.ts must be what the
// generator makes from today's route schemas (so the UI cannot drift from the API), every operation has
// an operationId, and the document passes `@redocly/cli lint` (rules in redocly.yaml).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi-document.ts';
import { renderWebSchema, SCHEMA_FILE } from '../scripts/web-client.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let doc: Record<string, unknown>;
let tmp: string;

beforeAll(async () => {
  doc = await openApiDocument();
  tmp = mkdtempSync(join(tmpdir(), 'openapi-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('OpenAPI document and the web client', () => {
  it('web/src/api/schema.d.ts is up to date (npm run gen:api-client)', async () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8') === (await renderWebSchema(doc)), 'run npm run gen:api-client').toBe(true);
  });

  it('every operation has a unique operationId', () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>))
      for (const op of Object.values(item)) ids.push(op.operationId ?? '');
    expect(ids.length).toBeGreaterThan(20);
    expect(ids.filter((i) => !i)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('passes @redocly/cli lint', () => {
    const file = join(tmp, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = spawnSync(join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--config', join(ROOT, 'redocly.yaml')], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/valid/i);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/warning/i);
  });
});
