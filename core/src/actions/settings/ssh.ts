// The SSH user and key for Linux hosts (Settings → Remote access): the private key is a secret
// (encrypted at rest, never shown), each field over its environment default (SERVICE_SSH_*, runtime's
// config sections/actions.ts; the key there is a file). Its form is web/src/components/remote-access/SshForm.vue.
import { readFile } from 'node:fs/promises';
import type { FromSchema } from 'json-schema-to-ts';
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import { decryptSecret } from '../secrets.ts';
import { nextStored, type SettingsSection, type StoredOf } from '../../settings/section.ts';
import { readSection, sectionView } from '../../settings/store.ts';

export const SSH_SETTINGS_KEY = 'actions.ssh';

const viewSchema = {
  type: 'object',
  required: ['username', 'private_key_set', 'port'],
  properties: {
    username: { type: 'string' },
    private_key_set: { type: 'boolean', description: 'the key is never returned' },
    private_key_source: { type: 'string', enum: ['database', 'environment', null], nullable: true },
    port: { type: 'integer' },
  },
} as const;

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    username: { type: 'string', pattern: '^[a-z_][a-z0-9_.-]{0,31}$' },
    private_key: {
      type: 'string',
      minLength: 1,
      maxLength: 16384,
      nullable: true,
      pattern: '-----BEGIN [A-Z ]*PRIVATE KEY-----',
    },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
  },
} as const;

export type SshBody = FromSchema<typeof bodySchema>;
export type SshView = FromSchema<typeof viewSchema>;
type StoredSsh = StoredOf<SshBody, 'private_key'>;

/** The SSH settings in force, the key decrypted or read from its file (the actions worker's). */
export interface SshSettings {
  username: string;
  privateKey: string | undefined;
  port: number;
}

export const sshSection: SettingsSection<{ body: SshBody; stored: StoredSsh; defaults: ActionsConfig['ssh']; view: SshView }> = {
  path: 'ssh',
  key: SSH_SETTINGS_KEY,
  bodySchema,
  viewSchema,
  get: { summary: 'SSH user and key for Linux hosts (database over environment)' },
  put: {
    summary: 'Save the SSH user and private key',
    description: 'private_key: an unencrypted OpenSSH or PEM private key; stored encrypted (AES-256-GCM); `null` removes it.',
  },
  auditAction: 'setting.ssh',
  auditUnchangedSecrets: true,
  secrets: ['private_key'],
  // Ciphertexts saved before sections exist are bound to the row (one secret in it).
  secretAad: () => SSH_SETTINGS_KEY,
  defaults: (env) => env.actions.ssh,

  view: (s, env) => ({
    username: s.username ?? env.username,
    private_key_set: Boolean(s.private_key_enc ?? env.privateKeyFile),
    private_key_source: s.private_key_enc ? 'database' : env.privateKeyFile ? 'environment' : null,
    port: s.port ?? env.port,
  }),

  save: (s, i, _env, crypt) => nextStored(sshSection, s, i, ['username', 'port'], crypt),
};

export async function loadSshSettings(pg: Pool, env: ActionsConfig, key: Buffer): Promise<SshSettings> {
  const db = await readSection(pg, sshSection);
  let privateKey = db.private_key_enc ? decryptSecret(key, db.private_key_enc, SSH_SETTINGS_KEY) : undefined;
  if (privateKey === undefined && env.ssh.privateKeyFile) privateKey = await readFile(env.ssh.privateKeyFile, 'utf8');
  return { username: db.username ?? env.ssh.username, privateKey, port: db.port ?? env.ssh.port };
}

export async function sshSettingsView(pg: Pool, env: ActionsConfig): Promise<SshView> {
  return sectionView(pg, sshSection, { actions: env });
}
