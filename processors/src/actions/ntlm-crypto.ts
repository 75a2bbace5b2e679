// The two legacy primitives NTLM needs that Node's OpenSSL 3 no longer offers (both live in its
// "legacy" provider, not loaded by default: `crypto.getCiphers()` has no rc4, `getHashes()` no md4):
// MD4 (RFC 1320) for the NT hash and RC4 for the session key exchange and message sealing (MS-NLMP
// 3.4). Both are small; ntlm-session.test.ts checks them against RFC 1320's and MS-NLMP's vectors.

const rotl = (x: number, n: number) => ((x << n) | (x >>> (32 - n))) >>> 0;

/** MD4 digest (RFC 1320). */
export function md4(data: Uint8Array): Buffer {
  const bits = BigInt(data.length) * 8n;
  const total = (data.length + 9 + 63) & ~63;
  const msg = Buffer.alloc(total);
  msg.set(data);
  msg[data.length] = 0x80;
  msg.writeBigUInt64LE(bits & 0xffffffffffffffffn, total - 8);
  let [a, b, c, d] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
  const x = new Array<number>(16);
  const f = (p: number, q: number, r: number) => (p & q) | (~p & r);
  const g = (p: number, q: number, r: number) => (p & q) | (p & r) | (q & r);
  const h = (p: number, q: number, r: number) => p ^ q ^ r;
  const R2 = [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15];
  const R3 = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) x[i] = msg.readUInt32LE(off + 4 * i);
    const [aa, bb, cc, dd] = [a, b, c, d];
    const rounds: [(p: number, q: number, r: number) => number, number[], number[], number][] = [
      [f, [...Array(16).keys()], [3, 7, 11, 19], 0],
      [g, R2, [3, 5, 9, 13], 0x5a827999],
      [h, R3, [3, 9, 11, 15], 0x6ed9eba1],
    ];
    for (const [fn, order, shifts, k] of rounds)
      for (let i = 0; i < 16; i++) {
        const t = rotl((a + fn(b, c, d) + x[order[i]!]! + k) >>> 0, shifts[i % 4]!);
        [a, b, c, d] = [d, t, b, c];
      }
    a = (a + aa) >>> 0;
    b = (b + bb) >>> 0;
    c = (c + cc) >>> 0;
    d = (d + dd) >>> 0;
  }
  const out = Buffer.alloc(16);
  [a, b, c, d].forEach((v, i) => out.writeUInt32LE(v, 4 * i));
  return out;
}

/** An RC4 keystream whose state carries over between calls (NTLM seals a connection's messages with one). */
export class Rc4 {
  private readonly s = new Uint8Array(256);
  private i = 0;
  private j = 0;

  constructor(key: Uint8Array) {
    if (key.length === 0) throw new Error('RC4 needs a key');
    for (let n = 0; n < 256; n++) this.s[n] = n;
    for (let n = 0, j = 0; n < 256; n++) {
      j = (j + this.s[n]! + key[n % key.length]!) & 255;
      [this.s[n], this.s[j]] = [this.s[j]!, this.s[n]!];
    }
  }

  update(data: Uint8Array): Buffer {
    const out = Buffer.alloc(data.length);
    const s = this.s;
    for (let n = 0; n < data.length; n++) {
      this.i = (this.i + 1) & 255;
      this.j = (this.j + s[this.i]!) & 255;
      [s[this.i], s[this.j]] = [s[this.j]!, s[this.i]!];
      out[n] = data[n]! ^ s[(s[this.i]! + s[this.j]!) & 255]!;
    }
    return out;
  }
}

/** One-shot RC4 (the key exchange: EncryptedRandomSessionKey = RC4(KeyExchangeKey, ExportedSessionKey)). */
export const rc4 = (key: Uint8Array, data: Uint8Array) => new Rc4(key).update(data);
