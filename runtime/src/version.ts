import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './config/config.ts';

/** The service version: the root package.json's, so one number names the whole image. */
export const VERSION: string = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
