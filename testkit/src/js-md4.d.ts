// Types for js-md4 (no bundled types): only the pure-JavaScript incremental hash (`md4(...)` itself
// calls Node's crypto, which has no MD4 under OpenSSL 3).
declare module 'js-md4' {
  interface Md4 {
    update(data: Uint8Array | string): Md4;
    arrayBuffer(): ArrayBuffer;
    hex(): string;
  }
  const md4: { create(): Md4 };
  export default md4;
}
