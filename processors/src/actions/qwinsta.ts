// Parses `qwinsta` (query session) output. Columns are fixed-width and their headers are localised, so
// the columns are found by the positions of the header's tokens, not by their names, and a session by its
// numeric id (a ru-RU host's text, as the agent reads it, is first turned back: repairOemText), into
// core's WindowsSession (core/src/actions/sessions.ts, where the session actions' rules live):
//  SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE
// >console           Administrator             1  Active
//                    bob                       3  Disc
import type { WindowsSession } from '@watchpost/core/actions';

/** The bytes a string of windows-1251 characters came from (null when a character is not one of them). */
let ansiBytes: Map<string, number> | null = null;
function asAnsiBytes(text: string): Uint8Array | null {
  if (!ansiBytes) {
    const ansi = new TextDecoder('windows-1251');
    ansiBytes = new Map();
    for (let b = 0; b < 256; b++) ansiBytes.set(ansi.decode(Uint8Array.of(b)), b);
  }
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const b = ansiBytes.get(text[i]!);
    if (b === undefined) return null;
    out[i] = b;
  }
  return out;
}

/** Header words of ru-RU qwinsta: they tell a repaired text from one that needed no repair. */
const RU_HEADER = /СЕАНС|ПОЛЬЗОВАТЕЛЬ|СТАТУС/;

/**
 * qwinsta's text as written: on a ru-RU host it writes the console's OEM code page (866), and
 * rdp-login-monitor's command channel reads those bytes as the ANSI code page (1251), so its result
 * holds "‘…ЂЌ‘" for "СЕАНС" (issue 31). Such text is turned back (to 1251 bytes, read as 866) when that
 * gives the Russian header; anything else (WinRM's UTF-8, English, German) is returned as it is. Both
 * code pages are one byte per character: the columns stay where they were.
 */
export function repairOemText(output: string): string {
  if (RU_HEADER.test(output)) return output;
  const bytes = asAnsiBytes(output);
  if (!bytes) return output;
  const repaired = new TextDecoder('ibm866').decode(bytes);
  return RU_HEADER.test(repaired) ? repaired : output;
}

export function parseQwinsta(output: string): WindowsSession[] {
  const lines = repairOemText(output).replace(/\r/g, '').split('\n');
  const headerIdx = lines.findIndex((l) => l.trim() !== '');
  if (headerIdx < 0) return [];
  const header = lines[headerIdx]!;
  const starts: number[] = [];
  const re = /\S+/g;
  for (let m = re.exec(header); m; m = re.exec(header)) starts.push(m.index);
  // SESSIONNAME ends where the second header token starts; after it: USERNAME (may be empty or hold
  // spaces), ID, STATE. Only that split uses a position, so a column drifting by a few characters still reads.
  if (starts.length < 4) return [];
  const userStart = starts[1]!;
  const sessions: WindowsSession[] = [];
  for (const line of lines.slice(headerIdx + 1)) {
    if (line.trim() === '') continue;
    const current = line.startsWith('>');
    const sessionName = line.slice(1, userStart).trim();
    const m = /^(.*?)(?:^|\s+)(\d+)\s+(\S+)/.exec(line.slice(userStart).trim());
    if (!m) continue;
    sessions.push({ session_name: sessionName, username: m[1]!.trim(), id: Number(m[2]), state: m[3]!, current });
  }
  return sessions;
}
