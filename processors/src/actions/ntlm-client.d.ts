// Types for @ewsjs/ntlm-client (CommonJS, no bundled types): the three NTLM messages we use.
declare module '@ewsjs/ntlm-client' {
  export interface Type2Message {
    flags: number;
    encoding: 'ascii' | 'ucs2';
    /** 2 when the server offers extended session security (the NTLMv2 response is sent) */
    version: 1 | 2;
    challenge: Buffer;
    targetName: string;
    targetInfo?: { parsed: Record<string, string>; buffer: Buffer };
  }
  const ntlm: {
    /** `NTLM <base64 NEGOTIATE_MESSAGE>` */
    createType1Message(workstation?: string, target?: string): string;
    /** Reads `NTLM <base64 CHALLENGE_MESSAGE>` */
    decodeType2Message(header: string): Type2Message;
    /** `NTLM <base64 AUTHENTICATE_MESSAGE>`; `target` is the user's domain (the server's target name when left out) */
    createType3Message(type2: Type2Message, username: string, password: string, workstation?: string, target?: string): string;
  };
  export default ntlm;
}
