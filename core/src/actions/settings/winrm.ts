// The Windows administrator for WinRM (Settings → Remote access): the account, its password (a secret,
// encrypted at rest, never shown) and how to connect, each field over its environment default
// (SERVICE_WINRM_*, runtime's config sections/actions.ts). Its form is web/src/components/remote-access/WinrmForm.vue.
import type { FromSchema } from 'json-schema-to-ts';
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import { decryptSecret } from '../secrets.ts';
import { nextStored, type SettingsSection, type StoredOf } from '../../settings/section.ts';
import { readSection, saveSection, sectionView } from '../../settings/store.ts';

export const WINRM_SETTINGS_KEY = 'actions.winrm';

const sourceSchema = { type: 'string', enum: ['database', 'environment', null], nullable: true } as const;

const viewSchema = {
  type: 'object',
  required: ['username', 'password_set', 'transport', 'port', 'auth', 'verify_tls', 'allow_unencrypted'],
  properties: {
    username: { type: 'string', description: 'DOMAIN\\user or user' },
    password_set: { type: 'boolean', description: 'the password is never returned' },
    password_source: sourceSchema,
    transport: { type: 'string', enum: ['http', 'https'] },
    port: { type: 'integer' },
    auth: { type: 'string', enum: ['basic', 'ntlm'], description: 'HTTP authentication: basic or ntlm (NTLMv2)' },
    verify_tls: { type: 'boolean', description: 'check the HTTPS certificate of the host' },
    allow_unencrypted: {
      type: 'boolean',
      description:
        'let WinRM run over plain HTTP (credentials readable on the path and by whatever answers at the host address; labs only). Off: HTTP is refused with 400.',
    },
  },
} as const;

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\x00-\\x1f"/\\[\\]:;|=,+*?<>]+$' },
    password: { type: 'string', minLength: 1, maxLength: 1024, nullable: true },
    transport: { type: 'string', enum: ['http', 'https'] },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    auth: { type: 'string', enum: ['basic', 'ntlm'], description: 'HTTP authentication: basic or ntlm (NTLMv2)' },
    verify_tls: { type: 'boolean' },
    allow_unencrypted: { type: 'boolean' },
  },
} as const;

export type WinrmBody = FromSchema<typeof bodySchema>;
export type WinrmView = FromSchema<typeof viewSchema>;
type StoredWinrm = StoredOf<WinrmBody, 'password'>;
type WinrmDefaults = ActionsConfig['winrm'];

/** The WinRM settings in force, the password decrypted (the actions worker's). */
export interface WinrmSettings {
  username: string;
  password: string | undefined;
  transport: 'http' | 'https';
  port: number;
  auth: 'basic' | 'ntlm';
  verifyTls: boolean;
  allowUnencrypted: boolean;
}

const defaultWinrmPort = (t: 'http' | 'https') => (t === 'https' ? 5986 : 5985);

export const winrmSection: SettingsSection<{
  body: WinrmBody;
  stored: StoredWinrm;
  defaults: WinrmDefaults;
  view: WinrmView;
}> = {
  path: 'winrm',
  key: WINRM_SETTINGS_KEY,
  bodySchema,
  viewSchema,
  get: { summary: 'Windows administrator for WinRM (database over environment)' },
  put: {
    summary: 'Save the Windows administrator for WinRM',
    description:
      'Fields left out keep their value; `password: null` removes the stored password. Stored encrypted (AES-256-GCM).',
  },
  auditAction: 'setting.winrm',
  auditUnchangedSecrets: true,
  secrets: ['password'],
  // Ciphertexts saved before sections exist are bound to the row (one secret in it).
  secretAad: () => WINRM_SETTINGS_KEY,
  defaults: (env) => env.actions.winrm,

  view(s, env) {
    const transport = s.transport ?? env.transport;
    return {
      username: s.username ?? env.username,
      password_set: Boolean(s.password_enc ?? env.password),
      password_source: s.password_enc ? 'database' : env.password ? 'environment' : null,
      transport,
      port: s.port ?? env.port ?? defaultWinrmPort(transport),
      auth: s.auth ?? env.auth,
      verify_tls: s.verify_tls ?? env.verifyTls,
      allow_unencrypted: s.allow_unencrypted ?? env.allowUnencrypted,
    };
  },

  save: (s, i, _env, crypt) =>
    nextStored(winrmSection, s, i, ['username', 'transport', 'port', 'auth', 'verify_tls', 'allow_unencrypted'], crypt),
};

export async function loadWinrmSettings(pg: Pool, env: ActionsConfig, key: Buffer): Promise<WinrmSettings> {
  const db = await readSection(pg, winrmSection);
  const v = winrmSection.view(db, env.winrm);
  return {
    username: v.username,
    password: db.password_enc ? decryptSecret(key, db.password_enc, WINRM_SETTINGS_KEY) : env.winrm.password,
    transport: v.transport,
    port: v.port,
    auth: v.auth,
    verifyTls: v.verify_tls,
    allowUnencrypted: v.allow_unencrypted,
  };
}

/**
 * Why WinRM with these settings may not carry credentials, or null when it may. Over plain HTTP no peer
 * can be verified: Basic (the password itself) is never sent there; NTLM (sealed, as `winrm quickconfig`
 * expects) only with the explicit allowance, since whatever answers at the address gets an NTLMv2 response. The automatic update fallback (nobody watching) also needs HTTPS with the
 * certificate check. Over HTTPS the worker pins each host's certificate besides (winrm-host.ts).
 */
export function winrmRefusal(
  s: Pick<WinrmSettings, 'transport' | 'verifyTls' | 'allowUnencrypted' | 'auth'>,
  automatic = false,
): string | null {
  if (automatic && (s.transport !== 'https' || !s.verifyTls))
    return 'the automatic update over WinRM needs HTTPS with the certificate check (the host address comes from its events); start it by hand';
  if (s.transport === 'http' && s.auth === 'basic')
    return 'WinRM Basic authentication over HTTP would send the administrator password readable to whatever answers at the host address: use HTTPS (port 5986) with a certificate an admin accepts (api/ACTIONS.md)';
  if (s.transport === 'http' && !s.allowUnencrypted)
    return "WinRM over HTTP cannot verify the host: whatever answers at the host address would get the administrator's NTLMv2 response (messages are sealed, but the response can be cracked offline or relayed): use HTTPS (port 5986) with a certificate an admin accepts (api/ACTIONS.md)";
  return null;
}

/** What the API shows: no password, only whether one is set and where it comes from. */
export async function winrmSettingsView(pg: Pool, env: ActionsConfig): Promise<WinrmView> {
  return sectionView(pg, winrmSection, { actions: env });
}

/** Fields left out keep their stored value; `password: null` removes the stored password (env applies again). */
export async function saveWinrmSettings(pg: Pool, env: ActionsConfig, key: Buffer, input: WinrmBody, by: string): Promise<void> {
  await saveSection(pg, winrmSection, { actions: env }, key, input, by);
}
