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
