import { randomBytes } from 'node:crypto';

/** A name no other test run uses, always containing "test" (destructive helpers refuse others). */
export function uniqueTestName(prefix: string): string {
  return `test_${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

export function assertTestName(name: string): void {
  if (!/(^|_)test(_|$)/.test(name)) throw new Error(`refusing a destructive operation on "${name}": its name does not say test`);
}
