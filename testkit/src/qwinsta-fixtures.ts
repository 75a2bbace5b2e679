// qwinsta outputs as Windows Server 2019 prints them (CRLF, fixed columns), English and German.
export const QWINSTA_RECORDED = [
  ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE ',
  ' services                                    0  Disc                        ',
  '>console           Administrator             1  Active                      ',
  ' rdp-tcp#12        alice                     2  Active                      ',
  '                   bob                       3  Disc                        ',
  ' rdp-tcp                                 65536  Listen                      ',
  '',
].join('\r\n');

export const QWINSTA_RECORDED_DE = [
  ' SITZUNGSNAME      BENUTZERNAME             ID  STATUS  TYP         GERÄT ',
  ' services                                    0  Getr.                       ',
  '>console           Administrator             1  Aktiv                       ',
  ' rdp-tcp#3         alice                     2  Aktiv                       ',
  '',
].join('\r\n');

/** ru-RU Windows Server: Russian headers and states (Диск, Активно, Прослуш.), a Cyrillic user name. */
export const QWINSTA_RECORDED_RU = [
  ' СЕАНС             ПОЛЬЗОВАТЕЛЬ             ID  СТАТУС  ТИП         УСТР-ВО ',
  ' services                                    0  Диск                        ',
  '>console           Администратор             1  Активно                     ',
  ' rdp-tcp#7         Иванов                    2  Активно                     ',
  '                   petrov                    3  Диск                        ',
  ' rdp-tcp                                 65536  Прослуш.                    ',
  '',
].join('\r\n');

/**
 * The ru-RU output as rdp-login-monitor's command channel hands it over: qwinsta writes the console's
 * OEM code page (866) and the agent reads those bytes as the ANSI code page (1251) (Sac-Client.ps1
 * Invoke-SacRunWithRunAs: Get-Content of the redirected file; Invoke-SacCaptureProcess: a redirected
 * stream with no encoding set), so "СЕАНС" arrives as "‘…ЂЌ‘" and a small "а" as a no-break space.
 */
export function asAgentReadsOem(text: string): string {
  const oem = new TextDecoder('ibm866');
  const toByte = new Map<string, number>();
  for (let b = 0; b < 256; b++) toByte.set(oem.decode(Uint8Array.of(b)), b);
  const bytes = Uint8Array.from([...text].map((ch) => toByte.get(ch) ?? 0x3f));
  return new TextDecoder('windows-1251').decode(bytes);
}
