// The session: the logged-in user (from /auth/me), the service version, login and logout. The access
// token stays in api/client.ts memory; a reload restores the session from the httpOnly refresh cookie.
import { defineStore } from 'pinia';
import { ref, computed } from 'vue';
import { api, errorCode, errorText, onSessionEnded, refreshSession, setAccessToken, type Me } from '../api/client';

export type LoginResult =
  | { ok: true }
  /** The password was right; the second factor is asked for (finishLogin with the token). */
  | { ok: 'mfa'; mfaToken: string }
  /** `restart`: the second step's challenge is over (expired, used up): ask for the password again. */
  | { ok: false; message: string; retryAfter?: number; restart?: boolean };

/** The second step: the app's code or a recovery code. */
export type SecondFactor = { code: string } | { recovery_code: string };

/** The failure of either login step, in words; a lockout carries its Retry-After. */
function loginFailure(error: unknown, response: Response): LoginResult {
  const code = errorCode(error);
  if (response.status === 429 || code === 'RATE_LIMITED') {
    const details = (error as { error?: { details?: { retry_after?: number } } }).error?.details;
    const retryAfter = Number(response.headers.get('retry-after') ?? details?.retry_after ?? 0);
    return { ok: false, retryAfter, message: lockoutText(retryAfter) };
  }
  if (code === 'INVALID_CREDENTIALS') return { ok: false, message: 'Wrong username or password.' };
  if (code === 'INVALID_CODE') return { ok: false, message: 'Wrong or already used code. Wait for the next code and try again.' };
  if (code === 'INVALID_MFA_TOKEN')
    return { ok: false, restart: true, message: 'The login has expired or took too many wrong codes: log in again.' };
  return { ok: false, message: errorText(error, `Login failed (HTTP ${response.status}).`) };
}

export const useAuth = defineStore('auth', () => {
  const user = ref<Me | null>(null);
  const version = ref('');
  const restored = ref(false);
  const isAdmin = computed(() => user.value?.role === 'admin');

  async function loadVersion() {
    try {
      const res = await fetch('/health');
      if (res.ok) version.value = ((await res.json()) as { version?: string }).version ?? '';
    } catch {
      // the title then shows no version
    }
  }

  async function loadMe(): Promise<boolean> {
    const { data } = await api.GET('/api/v1/auth/me');
    user.value = data ?? null;
    return data !== undefined;
  }

  /** Once per page load: the refresh cookie, if any, gives a new access token. */
  async function restore() {
    if (restored.value) return;
    void loadVersion();
    if (await refreshSession()) await loadMe();
    restored.value = true;
  }

  async function login(username: string, password: string): Promise<LoginResult> {
    const { data, error, response } = await api.POST('/api/v1/auth/login', {
      body: { username, password, refresh_cookie: true },
    });
    if (!data) return loginFailure(error, response);
    if ('mfa_required' in data) return { ok: 'mfa', mfaToken: data.mfa_token };
    setAccessToken(data.access_token);
    await loadMe();
    return { ok: true };
  }

  /** The login's second step (the cookie flow was asked for by the first). */
  async function finishLogin(mfaToken: string, factor: SecondFactor): Promise<LoginResult> {
    const { data, error, response } = await api.POST('/api/v1/auth/login/mfa', { body: { mfa_token: mfaToken, ...factor } });
    if (!data) return loginFailure(error, response);
    setAccessToken(data.access_token);
    await loadMe();
    return { ok: true };
  }

  async function logout() {
    await fetch('/api/v1/auth/logout', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      credentials: 'same-origin',
    }).catch(() => {});
    setAccessToken(null);
    user.value = null;
  }

  onSessionEnded(() => {
    user.value = null;
  });

  return { user, version, restored, isAdmin, restore, login, finishLogin, logout, loadMe };
});

export function lockoutText(seconds: number): string {
  const mins = Math.floor(seconds / 60);
  const secs = seconds % 60;
  const wait = mins > 0 ? `${mins} min${secs ? ` ${secs} s` : ''}` : `${secs} s`;
  return `Too many failed attempts: logins for this account or address are locked. Try again in ${wait}.`;
}
