// The quoting helpers against hostile strings. POSIX: each generated string goes through a real dash and
// bash (printf '%s\0' <quoted>...), which must print it back byte for byte. PowerShell (not installed
// here): the quoted form is read back by a tokenizer written from the language specification's
// verbatim-string rule (§2.3.5.2: any of ' ‘ ’ ‚ ‛ opens and closes; two in a row are one literal),
// which must consume the whole literal and yield the original.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodePowerShellCommand, quotePosix, quotePowerShell, UnsafeValueError } from './quote.ts';

// From the specification, not from the code under test: a character missing there must fail here.
const SPEC_SINGLE_QUOTES = ["'", '\u2018', '\u2019', '\u201a', '\u201b'];

const HOSTILE = [
  "'",
  '"',
  '`',
  '$',
  '(',
  ')',
  '$(',
  '${',
  '\\',
  '\n',
  '\r',
  '\t',
  ';',
  '|',
  '&',
  '&&',
  '>',
  '<',
  '*',
  '?',
  '~',
  '!',
  '#',
  '%',
  '^',
  ' ',
  '-',
  '--',
  '{',
  '}',
  '[',
  ']',
  '\u2018',
  '\u2019',
  '\u201A',
  '\u201B',
  '\u201C',
  '\u201D',
  '\u201E',
  '\u00A0',
  '\u2028',
  '\u0085',
  '\u200B',
  '\uFEFF',
  'é',
  '😀',
  '\u0007',
  '\u001b',
  'rm -rf /',
  '$(id)',
  '`id`',
  "'; id; '",
  '$env:PATH',
  '@(1)',
  '&{id}',
  'a',
];
const hostileChar = fc.constantFrom(...HOSTILE);
/** Strings built from hostile pieces and arbitrary unicode (no NUL: that is refused, tested below). */
const hostile = fc
  .array(fc.oneof({ weight: 3, arbitrary: hostileChar }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme' }) }), {
    maxLength: 24,
  })
  .map((parts) => parts.join('').replace(/\0/g, ''));

function throughShell(shell: string, values: string[]): string[] {
  const script = `printf '%s\\0' ${values.map(quotePosix).join(' ')}`;
  const out = execFileSync(shell, ['-c', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out.split('\0').slice(0, -1);
}

/** Reads one PowerShell verbatim string literal at the start of `s`; returns its value and the rest. */
function readPowerShellLiteral(s: string): { value: string; rest: string } {
  const isQ = (c: string | undefined) => c !== undefined && SPEC_SINGLE_QUOTES.includes(c);
  if (!isQ(s[0])) throw new Error('no opening quote');
  let value = '';
  let i = 1;
  for (;;) {
    if (i >= s.length) throw new Error('unterminated literal');
    const c = s[i]!;
    if (isQ(c)) {
      if (isQ(s[i + 1])) {
        value += s[i + 1];
        i += 2;
        continue;
      }
      return { value, rest: s.slice(i + 1) };
    }
    value += c;
    i++;
  }
}

describe('quotePosix', () => {
  it('survives dash and bash unchanged for generated hostile strings', () => {
    const samples = fc.sample(hostile, { numRuns: 2000, seed: 42 });
    samples.push('', "'", "''", "'\\''", '\n', '$(touch /tmp/pwned)', '`touch /tmp/pwned`');
    for (const shell of ['dash', 'bash']) expect(throughShell(shell, samples)).toEqual(samples);
  });

  it('holds for fresh random strings on every run (property)', () => {
    fc.assert(
      fc.property(fc.array(hostile, { minLength: 1, maxLength: 50 }), (values) => {
        expect(throughShell('dash', values)).toEqual(values);
      }),
      { numRuns: 40 },
    );
  });

  it('refuses NUL', () => {
    expect(() => quotePosix('a\0b')).toThrow(UnsafeValueError);
  });
});

describe('quotePowerShell', () => {
  it('is one literal that reads back as the original (property)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const q = quotePowerShell(s);
        const { value, rest } = readPowerShellLiteral(q);
        expect(rest).toBe('');
        expect(value).toBe(s);
      }),
      { numRuns: 5000 },
    );
  });

  it('doubles every PowerShell quote character, typographic ones included', () => {
    expect(quotePowerShell("it's")).toBe("'it''s'");
    expect(quotePowerShell('a\u2019b')).toBe("'a\u2019\u2019b'");
    expect(quotePowerShell('\u2018$(whoami)\u201B')).toBe("'\u2018\u2018$(whoami)\u201B\u201B'");
    // Reading the naive form ('' doubling only) would close the literal at the typographic quote:
    const naive = `'${'x\u2019; whoami; \u2019'.replace(/'/g, "''")}'`;
    expect(readPowerShellLiteral(naive).rest).not.toBe('');
  });

  it('refuses NUL', () => {
    expect(() => quotePowerShell('\0')).toThrow(UnsafeValueError);
    expect(() => encodePowerShellCommand('Write-Output 1\0')).toThrow(UnsafeValueError);
  });

  it('encodes a script as UTF-16LE base64 for -EncodedCommand', () => {
    const script = `Write-Output ${quotePowerShell('é\u2019😀')}`;
    expect(Buffer.from(encodePowerShellCommand(script), 'base64').toString('utf16le')).toBe(script);
  });
});
