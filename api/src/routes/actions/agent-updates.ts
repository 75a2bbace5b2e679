// Agent-update settings: the git repository and branch per agent kind, with the newest release the
// actions worker last read from it; and the routes of the actions that hang under them (the git test).
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ACTIONS_MAINTENANCE_JOBS } from '@watchpost/schemas';
import { agentUpdateSettingsView, checkGitUrl, saveAgentUpdateSettings, validBranch } from '@watchpost/core/actions';
import { audit } from '@watchpost/core/audit';
import { ApiError } from '../../errors.ts';
import { mountActionRoutes } from './mount.ts';
import { ndt, nstr, settingsTags, str } from './schemas.ts';

const agentRepo = {
  type: 'object',
  required: ['git_url', 'branch'],
  properties: {
    git_url: { ...str, description: 'the repository (shown without credentials; none are accepted in it)' },
    branch: {
      ...str,
      description: 'the ref: a branch (updates install its head), or a tag or full commit id (updates install that commit)',
    },
    latest_version: {
      ...nstr,
      description: 'latest version of the repository: what the ref states (version.txt, …), else its newest tag, as last read',
    },
    commit: { ...nstr, description: 'the commit latest_version was read at (a branch head moves; a tag or commit pins it)' },
    ref_kind: {
      type: 'string',
      enum: ['branch', 'tag', 'commit'],
      nullable: true,
      description: 'what `branch` named when last read',
    },
    checked_at: { ...ndt, description: 'when the tags were last read (every SERVICE_VERSION_REFRESH_SECONDS)' },
    error: { ...nstr, description: 'why the last read failed' },
  },
} as const;
const agentUpdateView = {
  type: 'object',
  required: ['linux', 'windows'],
  properties: { linux: agentRepo, windows: agentRepo },
} as const;
const agentRepoInput = {
  type: 'object',
  additionalProperties: false,
  properties: { git_url: { type: 'string', maxLength: 2048 }, branch: { type: 'string', maxLength: 128 } },
} as const;
const agentUpdateInput = {
  type: 'object',
  additionalProperties: false,
  properties: { linux: agentRepoInput, windows: agentRepoInput },
} as const;

const agentUpdatesRoutes: FastifyPluginAsync = async (app) => {
  const { pg, config, actions } = app.deps;

  app.get(
    '/settings/agent-updates',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Agent-update repositories per agent kind (linux = ssh-monitor, windows = rdp-login-monitor)',
        response: { 200: agentUpdateView },
      },
    },
    async () => agentUpdateSettingsView(pg, config.actions),
  );

  app.put<{ Body: FromSchema<typeof agentUpdateInput> }>(
    '/settings/agent-updates',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Save the agent-update repositories',
        description:
          'git_url: https:// or ssh:// (file:// only with SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS), without credentials ' +
          '(a user name or token in an https:// URL is refused: api/ACTIONS.md says where they go); branch: a branch, ' +
          'or a tag or full commit id to pin what updates install.',
        body: agentUpdateInput,
        response: { 200: agentUpdateView },
      },
    },
    async (req) => {
      for (const k of ['linux', 'windows'] as const) {
        const v = req.body[k];
        if (!v) continue;
        if (v.git_url !== undefined && v.git_url !== '') {
          const u = checkGitUrl(v.git_url, { allowFile: config.actions.agentUpdate.allowFileUrls });
          if (!u.ok) throw new ApiError(400, 'VALIDATION_FAILED', `${k}.git_url: ${u.reason}`);
          v.git_url = u.url;
        }
        if (v.branch !== undefined && !validBranch(v.branch))
          throw new ApiError(400, 'VALIDATION_FAILED', `${k}.branch: not a valid branch, tag or commit id`);
      }
      await saveAgentUpdateSettings(pg, req.body, req.user!.username);
      await audit(pg, { actor: req.user!.username, address: req.ip, action: 'setting.agent_updates', details: req.body });
      // Read the new repositories' tags now rather than at the next refresh.
      await actions.queue.add(
        ACTIONS_MAINTENANCE_JOBS.versionsRefresh,
        { kind: ACTIONS_MAINTENANCE_JOBS.versionsRefresh },
        { removeOnComplete: 100, removeOnFail: 100, attempts: 1 },
      );
      return agentUpdateSettingsView(pg, config.actions);
    },
  );

  mountActionRoutes(app, 'agent-updates');
};

export default agentUpdatesRoutes;
