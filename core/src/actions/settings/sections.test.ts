// The remote-access sections: the environment's defaults under the saved values, secrets write-only
// (encrypted, shown only as whether they are set, logged only as set/removed/unchanged), and the
// section's own checks beyond its schema.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@watchpost/runtime';
import { decryptSecret } from '../secrets.ts';
import { auditableInput, NO_SECRETS, sectionCrypt, SettingRefused } from '../../settings/section.ts';
import { webhook } from '../../notify/channels/webhook.ts';
import {
  REMOTE_ACCESS_SECTIONS,
  SSH_SETTINGS_KEY,
  sshSection,
  targetNetworksSection,
  WINRM_SETTINGS_KEY,
  winrmSection,
} from './index.ts';

const key = randomBytes(32);
const empty = loadConfig({});
const env = loadConfig({
  SERVICE_WINRM_USERNAME: 'CORP\\env-admin',
  SERVICE_WINRM_PASSWORD: 'env-password',
  SERVICE_WINRM_TRANSPORT: 'http',
  SERVICE_WINRM_AUTH: 'ntlm',
  SERVICE_WINRM_ALLOW_UNENCRYPTED: 'true',
  SERVICE_SSH_USERNAME: 'deploy',
  SERVICE_SSH_PRIVATE_KEY_FILE: '/etc/watchpost/id_ed25519',
  SERVICE_SSH_PORT: '2222',
  SERVICE_ACTION_TARGET_NETWORKS: '10.0.0.0/8,fd00::/8',
});

describe('remote-access sections', () => {
  it('each has its own path, row and audit action; secrets are body fields; bodies take nothing else', () => {
    expect(REMOTE_ACCESS_SECTIONS.map((s) => s.path)).toEqual(['winrm', 'target-networks', 'ssh']);
    expect(new Set(REMOTE_ACCESS_SECTIONS.map((s) => s.key)).size).toBe(3);
    expect(REMOTE_ACCESS_SECTIONS.map((s) => s.auditAction)).toEqual(['setting.winrm', 'setting.target_networks', 'setting.ssh']);
    for (const s of REMOTE_ACCESS_SECTIONS) {
      const body = s.bodySchema as { additionalProperties: boolean; properties: Record<string, { nullable?: boolean }> };
      expect(body.additionalProperties, s.path).toBe(false);
      // A secret can be removed (null), and never appears in the view's schema.
      for (const f of s.secrets) {
        expect(body.properties[f]?.nullable, `${s.path}.${f}`).toBe(true);
        expect(Object.keys((s.viewSchema as { properties: object }).properties)).not.toContain(f);
      }
      // The view of nothing saved has every field its schema requires.
      const view = s.view({}, s.defaults(empty));
      for (const f of (s.viewSchema as { required: string[] }).required) expect(view, `${s.path}.${f}`).toHaveProperty(f);
    }
  });

  it('winrm: the environment applies until a value is saved; the port follows the transport unless set', () => {
    expect(winrmSection.view({}, winrmSection.defaults(empty))).toEqual({
      username: '',
      password_set: false,
      password_source: null,
      transport: 'https',
      port: 5986,
      auth: 'basic',
      verify_tls: true,
      allow_unencrypted: false,
    });
    const d = winrmSection.defaults(env);
    expect(winrmSection.view({}, d)).toMatchObject({
      username: 'CORP\\env-admin',
      password_set: true,
      password_source: 'environment',
      transport: 'http',
      port: 5985,
      auth: 'ntlm',
      allow_unencrypted: true,
    });
    const saved = winrmSection.save({}, { username: 'CORP\\svc', transport: 'https', port: 5999 }, d, NO_SECRETS);
    expect(saved).toEqual({ username: 'CORP\\svc', transport: 'https', port: 5999 });
    expect(winrmSection.view(saved, d)).toMatchObject({ username: 'CORP\\svc', transport: 'https', port: 5999, auth: 'ntlm' });
    // Fields left out keep their value.
    expect(winrmSection.save(saved, { auth: 'basic' }, d, NO_SECRETS)).toEqual({ ...saved, auth: 'basic' });
  });

  it('winrm: the password is stored encrypted (bound to the row as before), shown only as set, removed by null', () => {
    const d = winrmSection.defaults(empty);
    const crypt = sectionCrypt(winrmSection, key);
    const saved = winrmSection.save({}, { password: 'Pa55 word' }, d, crypt);
    expect(JSON.stringify(saved)).not.toContain('Pa55');
    expect(decryptSecret(key, saved.password_enc!, WINRM_SETTINGS_KEY)).toBe('Pa55 word');
    const view = winrmSection.view(saved, d);
    expect(view).toMatchObject({ password_set: true, password_source: 'database' });
    expect(JSON.stringify(view)).not.toContain(saved.password_enc!);
    expect(winrmSection.save(saved, { username: 'x' }, d, crypt).password_enc).toBe(saved.password_enc);
    const removed = winrmSection.save(saved, { password: null }, d, crypt);
    expect(removed).toEqual({});
    expect(winrmSection.view(removed, winrmSection.defaults(env))).toMatchObject({ password_source: 'environment' });
  });

  it('ssh: the key is stored encrypted, shown only as set; the environment names a key file', () => {
    const d = sshSection.defaults(env);
    expect(sshSection.view({}, d)).toEqual({
      username: 'deploy',
      private_key_set: true,
      private_key_source: 'environment',
      port: 2222,
    });
    expect(sshSection.view({}, sshSection.defaults(empty))).toEqual({
      username: '',
      private_key_set: false,
      private_key_source: null,
      port: 22,
    });
    const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n';
    const saved = sshSection.save({ port: 22 }, { private_key: pem, username: 'root' }, d, sectionCrypt(sshSection, key));
    expect(JSON.stringify(saved)).not.toContain('OPENSSH');
    expect(decryptSecret(key, saved.private_key_enc!, SSH_SETTINGS_KEY)).toBe(pem);
    expect(sshSection.view(saved, d)).toEqual({
      username: 'root',
      private_key_set: true,
      private_key_source: 'database',
      port: 22,
    });
  });

  it('the audit record keeps secrets only as set, removed or unchanged', () => {
    expect(auditableInput(winrmSection, { username: 'CORP\\svc', password: 'Pa55 word' }, true)).toEqual({
      username: 'CORP\\svc',
      password: 'set',
    });
    expect(auditableInput(winrmSection, { port: 5986 }, true)).toEqual({ port: 5986, password: 'unchanged' });
    expect(auditableInput(winrmSection, { password: null }, true)).toEqual({ password: 'removed' });
    expect(auditableInput(sshSection, { private_key: '-----BEGIN RSA PRIVATE KEY-----' }, true)).toEqual({ private_key: 'set' });
    expect(auditableInput(sshSection, {}, true)).toEqual({ private_key: 'unchanged' });
    expect(auditableInput(targetNetworksSection, { networks: ['10.0.0.0/8'] })).toEqual({ networks: ['10.0.0.0/8'] });
    // A channel's record lists only the secrets given, and masks its audited fields (unchanged behaviour).
    expect(auditableInput(webhook, { url: 'https://u:p@hook.example.org/x?token=t', timeout_ms: 100 })).toEqual({
      url: 'https://hook.example.org/x?…',
      timeout_ms: 100,
    });
    expect(auditableInput(webhook, { secret: 'sixteen-chars-secret' })).toEqual({ secret: 'set' });
  });

  it('target networks: saved list over the environment, null removes it, items checked in words', () => {
    const d = targetNetworksSection.defaults(env);
    expect(targetNetworksSection.view({}, d)).toEqual({
      networks: ['10.0.0.0/8', 'fd00::/8'],
      source: 'environment',
      environment: ['10.0.0.0/8', 'fd00::/8'],
    });
    expect(targetNetworksSection.view({}, targetNetworksSection.defaults(empty))).toEqual({
      networks: [],
      source: null,
      environment: [],
    });
    const saved = targetNetworksSection.save(
      {},
      { networks: [' 192.168.1.0/24', '192.168.1.0/24', '', '127.0.0.0/8'] },
      d,
      NO_SECRETS,
    );
    expect(saved).toEqual({ networks: ['192.168.1.0/24', '127.0.0.0/8'] });
    expect(targetNetworksSection.view(saved, d)).toMatchObject({ networks: saved.networks, source: 'database' });
    expect(targetNetworksSection.save(saved, { networks: null }, d, NO_SECRETS)).toEqual({});
    // An empty saved list is a list: nothing connects, whatever the environment says.
    expect(targetNetworksSection.view({ networks: [] }, d)).toMatchObject({ networks: [], source: 'database' });
    const refused = (networks: string[]) => () => targetNetworksSection.save({}, { networks }, d, NO_SECRETS);
    expect(refused(['10.0.0.0/8', '0.0.0.0/0'])).toThrow(SettingRefused);
    expect(refused(['0.0.0.0/0'])).toThrow(/^networks: /);
    expect(refused(['::/0'])).toThrow(SettingRefused);
    expect(refused(['intranet'])).toThrow(SettingRefused);
  });
});
