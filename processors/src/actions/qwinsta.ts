// Parses `qwinsta` (query session) output. Columns are fixed-width and their headers are localised, so
// the columns are found by the positions of the header's tokens, not by their names:
//  SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE
// >console           Administrator             1  Active
//                    bob                       3  Disc
export interface WindowsSession {
  session_name: string;
  username: string;
  id: number;
  state: string;
  /** the session qwinsta ran in (marked '>') */
  current: boolean;
}

export function parseQwinsta(output: string): WindowsSession[] {
  const lines = output.replace(/\r/g, '').split('\n');
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
