// The networks remote actions may connect to (Settings → Remote access, issue 21): the saved list, else
// SERVICE_ACTION_TARGET_NETWORKS. Every item a network, none of them "every address" (the API may not
// widen to everything: ../target-networks.ts). Its form is web/src/components/remote-access/TargetNetworksForm.vue.
import type { FromSchema } from 'json-schema-to-ts';
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import { targetNetworksError } from '../target-networks.ts';
import { SettingRefused, type SettingsSection } from '../../settings/section.ts';
import { readSection, sectionView } from '../../settings/store.ts';

export const TARGET_NETWORKS_SETTINGS_KEY = 'actions.target_networks';

const networkItem = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: 'a CIDR (10.20.0.0/16, fd00::/8) or one address',
} as const;

const viewSchema = {
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

const bodySchema = {
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

export type TargetNetworksBody = FromSchema<typeof bodySchema>;
export type TargetNetworksView = FromSchema<typeof viewSchema>;
interface StoredTargetNetworks {
  networks?: string[];
}

export const targetNetworksSection: SettingsSection<{
  body: TargetNetworksBody;
  stored: StoredTargetNetworks;
  defaults: string[];
  view: TargetNetworksView;
}> = {
  path: 'target-networks',
  key: TARGET_NETWORKS_SETTINGS_KEY,
  bodySchema,
  viewSchema,
  get: { summary: 'The networks remote actions may connect to (database over environment)' },
  put: {
    summary: 'Save the networks remote actions may connect to',
    description:
      'Before any SSH or WinRM connection the host address is resolved and every address must lie inside one of these networks; the connection goes to the address checked. 400 VALIDATION_FAILED names an item that is no network or would allow every address.',
  },
  auditAction: 'setting.target_networks',
  secrets: [],
  defaults: (env) => env.actions.targetNetworks,

  view: (s, env) => ({
    networks: s.networks ?? env,
    source: s.networks ? 'database' : env.length > 0 ? 'environment' : null,
    environment: env,
  }),

  /** The whole list is replaced; `null` removes it (the environment's applies again). */
  save(_s, i) {
    if (i.networks === null || i.networks === undefined) return {};
    const list = [...new Set(i.networks.map((n) => n.trim()).filter(Boolean))];
    const error = targetNetworksError(list, { fromApi: true });
    if (error) throw new SettingRefused(`networks: ${error}`);
    return { networks: list };
  },
};

/** The target networks in force: the saved list, else SERVICE_ACTION_TARGET_NETWORKS. */
export async function loadTargetNetworks(pg: Pool, env: ActionsConfig): Promise<string[]> {
  return (await readSection(pg, targetNetworksSection)).networks ?? env.targetNetworks;
}

export async function targetNetworksView(pg: Pool, env: ActionsConfig): Promise<TargetNetworksView> {
  return sectionView(pg, targetNetworksSection, { actions: env });
}
