// Remote-access settings of the actions worker: the Windows administrator for WinRM, the SSH user
// and key for Linux hosts and the target networks remote actions may connect to (database over
// environment). Credentials are encrypted at rest and never
// returned; the audit log says only whether they were set, removed or left alone.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import {
  audit,
  loadSecretsKey,
  saveSshSettings,
  saveTargetNetworks,
  saveWinrmSettings,
  sshSettingsView,
  targetNetworksView,
  winrmSettingsView,
} from '@watchpost/core';
import { ApiError } from '../../errors.ts';
import { settingsTags, str } from './schemas.ts';

const winrmView = {
  type: 'object',
  required: ['username', 'password_set', 'transport', 'port', 'auth', 'verify_tls', 'allow_unencrypted'],
  properties: {
    username: { type: 'string', description: 'DOMAIN\\user or user' },
    password_set: { type: 'boolean', description: 'the password is never returned' },
    password_source: { type: 'string', enum: ['database', 'environment', null], nullable: true },
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

const winrmInput = {
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

const sshView = {
  type: 'object',
  required: ['username', 'private_key_set', 'port'],
  properties: {
    username: str,
    private_key_set: { type: 'boolean', description: 'the key is never returned' },
    private_key_source: { type: 'string', enum: ['database', 'environment', null], nullable: true },
    port: { type: 'integer' },
  },
} as const;

const sshInput = {
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

const networkItem = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: 'a CIDR (10.20.0.0/16, fd00::/8) or one address',
} as const;

const targetNetworksOut = {
  type: 'object',
  required: ['networks', 'source', 'environment'],
  properties: {
    networks: {
      type: 'array',
      items: networkItem,
      description:
        'the networks remote actions (SSH, WinRM) may connect to: every address a host resolves to must lie inside one; empty = none',
    },
    source: {
      type: 'string',
      enum: ['database', 'environment', null],
      nullable: true,
      description: 'where the list in force comes from (null: nowhere, so no remote action connects)',
    },
    environment: {
      type: 'array',
      items: networkItem,
      description: 'SERVICE_ACTION_TARGET_NETWORKS (applies when none is saved)',
    },
  },
} as const;

const targetNetworksInput = {
  type: 'object',
  additionalProperties: false,
  required: ['networks'],
  properties: {
    networks: {
      type: 'array',
      nullable: true,
      maxItems: 256,
      items: networkItem,
      description:
        'CIDRs; `null` removes the saved list (the environment applies again). 0.0.0.0/0 and ::/0 are refused here (environment only); loopback and link-local addresses are reached only when a network inside them is listed (127.0.0.0/8).',
    },
  },
} as const;

/** A secret in an audit entry: only whether it was left alone, removed or set. */
const secretChange = (v: string | null | undefined) => (v === undefined ? 'unchanged' : v === null ? 'removed' : 'set');

const remoteAccessRoutes: FastifyPluginAsync = async (app) => {
  const { pg, config } = app.deps;
  let secretsKey: Promise<Buffer> | undefined;
  const key = () => (secretsKey ??= loadSecretsKey(config.actions.secretsKey, config.stateDir));

  app.get(
    '/settings/winrm',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Windows administrator for WinRM (database over environment)',
        response: { 200: winrmView },
      },
    },
    async () => winrmSettingsView(pg, config.actions),
  );

  app.put<{ Body: FromSchema<typeof winrmInput> }>(
    '/settings/winrm',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Save the Windows administrator for WinRM',
        description:
          'Fields left out keep their value; `password: null` removes the stored password. Stored encrypted (AES-256-GCM).',
        body: winrmInput,
        response: { 200: winrmView },
      },
    },
    async (req) => {
      await saveWinrmSettings(pg, await key(), req.body, req.user!.username);
      const { password, ...rest } = req.body;
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'setting.winrm',
        details: { ...rest, password: secretChange(password) },
      });
      return winrmSettingsView(pg, config.actions);
    },
  );

  app.get(
    '/settings/target-networks',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'The networks remote actions may connect to (database over environment)',
        response: { 200: targetNetworksOut },
      },
    },
    async () => targetNetworksView(pg, config.actions),
  );

  app.put<{ Body: FromSchema<typeof targetNetworksInput> }>(
    '/settings/target-networks',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Save the networks remote actions may connect to',
        description:
          'Before any SSH or WinRM connection the host address is resolved and every address must lie inside one of these networks; the connection goes to the address checked. 400 VALIDATION_FAILED names an item that is no network or would allow every address.',
        body: targetNetworksInput,
        response: { 200: targetNetworksOut },
      },
    },
    async (req) => {
      const error = await saveTargetNetworks(pg, req.body.networks ?? null, req.user!.username);
      if (error) throw new ApiError(400, 'VALIDATION_FAILED', `networks: ${error}`);
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'setting.target_networks',
        details: { networks: req.body.networks ?? null },
      });
      return targetNetworksView(pg, config.actions);
    },
  );

  app.get(
    '/settings/ssh',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'SSH user and key for Linux hosts (database over environment)',
        response: { 200: sshView },
      },
    },
    async () => sshSettingsView(pg, config.actions),
  );

  app.put<{ Body: FromSchema<typeof sshInput> }>(
    '/settings/ssh',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Save the SSH user and private key',
        description: 'private_key: an unencrypted OpenSSH or PEM private key; stored encrypted (AES-256-GCM); `null` removes it.',
        body: sshInput,
        response: { 200: sshView },
      },
    },
    async (req) => {
      await saveSshSettings(pg, await key(), req.body, req.user!.username);
      const { private_key, ...rest } = req.body;
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'setting.ssh',
        details: { ...rest, private_key: secretChange(private_key) },
      });
      return sshSettingsView(pg, config.actions);
    },
  );
};

export default remoteAccessRoutes;
