import { describe, expect, it } from 'vitest';
import { parseQwinsta, repairOemText } from './qwinsta.ts';
import { QWINSTA_RECORDED, QWINSTA_RECORDED_DE, QWINSTA_RECORDED_RU, asAgentReadsOem } from '@watchpost/testkit';

describe('parseQwinsta', () => {
  it('reads the recorded English output', () => {
    expect(parseQwinsta(QWINSTA_RECORDED)).toEqual([
      { session_name: 'services', username: '', id: 0, state: 'Disc', current: false },
      { session_name: 'console', username: 'Administrator', id: 1, state: 'Active', current: true },
      { session_name: 'rdp-tcp#12', username: 'alice', id: 2, state: 'Active', current: false },
      { session_name: '', username: 'bob', id: 3, state: 'Disc', current: false },
      { session_name: 'rdp-tcp', username: '', id: 65536, state: 'Listen', current: false },
    ]);
  });
  it('reads localised headers by position', () => {
    const s = parseQwinsta(QWINSTA_RECORDED_DE);
    expect(s.map((x) => [x.username, x.id, x.state])).toEqual([
      ['', 0, 'Getr.'],
      ['Administrator', 1, 'Aktiv'],
      ['alice', 2, 'Aktiv'],
    ]);
  });
  it('reads ru-RU output, as WinRM gives it and as the agent reads it in the OEM code page (issue 31)', () => {
    const want = [
      { session_name: 'services', username: '', id: 0, state: 'Диск', current: false },
      { session_name: 'console', username: 'Администратор', id: 1, state: 'Активно', current: true },
      { session_name: 'rdp-tcp#7', username: 'Иванов', id: 2, state: 'Активно', current: false },
      { session_name: '', username: 'petrov', id: 3, state: 'Диск', current: false },
      { session_name: 'rdp-tcp', username: '', id: 65536, state: 'Прослуш.', current: false },
    ];
    expect(parseQwinsta(QWINSTA_RECORDED_RU)).toEqual(want);
    const agent = asAgentReadsOem(QWINSTA_RECORDED_RU);
    expect(agent).toContain('‘…ЂЌ‘'); // "СЕАНС" as the agent hands it over
    expect(agent).toContain('\u00a0'); // a small "а" read as a no-break space
    expect(parseQwinsta(agent)).toEqual(want);
    // Nothing else is touched: English, German, and Russian that needed no repair.
    for (const text of [QWINSTA_RECORDED, QWINSTA_RECORDED_DE, QWINSTA_RECORDED_RU]) expect(repairOemText(text)).toBe(text);
  });
  it('nothing from empty or unexpected output', () => {
    expect(parseQwinsta('')).toEqual([]);
    expect(parseQwinsta('No session exists for *')).toEqual([]);
  });
});

describe('parseQwinsta, drifted columns', () => {
  it('reads users with spaces or digits and ids wider than their column', () => {
    const out = [
      ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE ',
      ' rdp-tcp#1         John Smith              12  Active',
      ' rdp-tcp#2         user2                  123  Disc',
      '                                        0  Disc',
    ].join('\r\n');
    expect(parseQwinsta(out).map((s) => [s.session_name, s.username, s.id, s.state])).toEqual([
      ['rdp-tcp#1', 'John Smith', 12, 'Active'],
      ['rdp-tcp#2', 'user2', 123, 'Disc'],
      ['', '', 0, 'Disc'],
    ]);
  });
});
