// Terminal input for the CLI: a secret from stdin (piped: the first line; a terminal: a prompt
// without echo).
import { createInterface } from 'node:readline';

/** Wrong command line: exit code 2. */
export class UsageError extends Error {}
/** The command was understood but refused (no such user, last admin): exit code 1. */
export class RefusedError extends Error {}

export async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(c as Buffer);
    return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
  }
  const rl = createInterface({ input: stdin, output: process.stderr, terminal: true });
  process.stderr.write(prompt);
  // Mute the echo of typed characters.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  const line = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stderr.write('\n');
  return line;
}
