// Generates the web UI's typed API client contract (web/src/api/schema.d.ts) from the API's OpenAPI
// document, built from the route schemas (api/src/openapi-document.ts). `--check` exits 1 when the
// checked-in file differs (the UI drifted from the API); api/src/openapi-contract.test.ts runs the same check.
//   npm run gen:api-client            regenerate
//   npm run gen:api-client -- --check  compare only
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import * as prettier from 'prettier';
import { openApiDocument } from '../src/openapi-document.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('../../web/src/api/schema.d.ts', import.meta.url));

export async function renderWebSchema(doc?: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS((doc ?? (await openApiDocument())) as never, { alphabetize: false });
  const header =
    '// Generated from the API OpenAPI document by `npm run gen:api-client` (api/scripts/web-client.ts). Do not edit.\n' + '';
  const options = (await prettier.resolveConfig(SCHEMA_FILE)) ?? {};
  return prettier.format(header + astToString(ast), { ...options, filepath: SCHEMA_FILE });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const next = await renderWebSchema();
  if (process.argv.includes('--check')) {
    const current = readFileSync(SCHEMA_FILE, 'utf8');
    if (current !== next) {
      console.error(`${SCHEMA_FILE} is out of date with the API: run npm run gen:api-client`);
      process.exit(1);
    }
    console.log('web/src/api/schema.d.ts matches the API');
  } else {
    writeFileSync(SCHEMA_FILE, next);
    console.log(`wrote ${SCHEMA_FILE}`);
  }
}
