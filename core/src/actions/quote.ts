// The one way to put a value into a remote command line. Every value that reaches a shell on a managed
// host (git URL, branch, bundle URL, user name) goes through one of these; callers never concatenate.
//   POSIX sh: single quotes, where nothing is special except the quote itself ('\'' closes, escapes, reopens).
//   PowerShell: single-quoted literal, where PowerShell also treats the typographic quotes U+2018, U+2019,
//   U+201A and U+201B as quote characters; doubling any of them yields that character literally.
// NUL cannot be carried in an argument by either shell (C strings, Windows command lines): refused.

export class UnsafeValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeValueError';
  }
}

function refuseNul(s: string): void {
  if (s.includes('\0')) throw new UnsafeValueError('a value for a remote command may not contain NUL');
}

/** One POSIX shell word that stands for exactly `s` (sh, dash, bash, zsh). */
export function quotePosix(s: string): string {
  refuseNul(s);
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Every character PowerShell's tokenizer takes as a single quote. */
export const POWERSHELL_SINGLE_QUOTES = "'\u2018\u2019\u201A\u201B";
const PS_QUOTE_RE = /['\u2018\u2019\u201A\u201B]/g;

/** One PowerShell single-quoted string literal that stands for exactly `s`. */
export function quotePowerShell(s: string): string {
  refuseNul(s);
  return `'${s.replace(PS_QUOTE_RE, '$&$&')}'`;
}

/**
 * A PowerShell script as `powershell.exe -EncodedCommand` takes it (base64 of UTF-16LE): no cmd.exe or
 * argv quoting layer is left between the script and PowerShell's parser.
 */
export function encodePowerShellCommand(script: string): string {
  refuseNul(script);
  return Buffer.from(script, 'utf16le').toString('base64');
}

/** The full command line that runs `script` in Windows PowerShell without loading profiles. */
export function powerShellCommandLine(script: string): string {
  return `powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand ${encodePowerShellCommand(script)}`;
}
