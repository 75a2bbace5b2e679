// Short-lived signed download links of Windows agent bundles: the actions worker signs, the API checks.
// sig = HMAC-SHA256(K, "<bundle id>.<expires>") with K = HMAC-SHA256(secrets key, "watchpost agent bundle url"),
// so the link proves it came from the service without any state, and dies at `expires` (unix seconds).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const BUNDLE_URL_TTL_SECONDS = 600;
export const bundlePath = (id: number) => `/api/v1/agent-bundles/${id}.zip`;

function signingKey(secretsKey: Buffer): Buffer {
  return createHmac('sha256', secretsKey).update('watchpost agent bundle url').digest();
}

function sign(secretsKey: Buffer, id: number, expires: number): string {
  return createHmac('sha256', signingKey(secretsKey)).update(`${id}.${expires}`).digest('base64url');
}

/** The absolute signed URL under `base` (the address managed hosts reach the service at). */
export function signedBundleUrl(
  secretsKey: Buffer,
  base: string,
  id: number,
  now = Date.now(),
  ttlSeconds = BUNDLE_URL_TTL_SECONDS,
): string {
  const expires = Math.floor(now / 1000) + ttlSeconds;
  const u = new URL(bundlePath(id), base.endsWith('/') ? base : `${base}/`);
  u.searchParams.set('expires', String(expires));
  u.searchParams.set('sig', sign(secretsKey, id, expires));
  return u.toString();
}

export function verifyBundleSignature(secretsKey: Buffer, id: number, expires: number, sig: string, now = Date.now()): boolean {
  if (!Number.isSafeInteger(expires) || expires < Math.floor(now / 1000)) return false;
  const want = Buffer.from(sign(secretsKey, id, expires));
  const got = Buffer.from(sig);
  return got.length === want.length && timingSafeEqual(got, want);
}
