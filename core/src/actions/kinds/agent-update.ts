// agent.update: updates the agent now, over SSH (Linux) or WinRM (Windows), from the configured repository.
import { checkGitUrl } from '../git-url.ts';
import { agentKindOf, loadAgentUpdateSettings } from '../settings/agent-updates.ts';
import { validBranch } from '../validate.ts';
import { actionRoute, notPossible, targetOf, type ActionKindDescriptor } from './descriptor.ts';

export const agentUpdate: ActionKindDescriptor<'agent.update'> = {
  kind: 'agent.update',
  transports: [],
  timeout: 'update',
  routes: [
    actionRoute({
      on: 'host',
      path: 'agent-update',
      access: 'admin',
      wait: false,
      tags: ['actions'],
      summary: 'Update the agent now over SSH (Linux) or WinRM (Windows)',
      description:
        'Linux: installs the updater script when missing or changed, runs it with the configured git URL and branch, reads the version back. ' +
        "Windows: the agent's own update path: the host downloads the bundle (the repository at the configured ref: a branch head, a tag or a pinned commit; a UTF-8 BOM on every .ps1) " +
        'over a short-lived signed URL, unpacks it to a staging folder and runs Deploy-LoginMonitor.ps1 -SourceShareRoot <staging>; ' +
        'done when the agent reports the new version in its events. ' +
        'result: {agent, version (what the agent reports), previous_version, installed_updater? (linux), ' +
        'deployed_version?, version_source?, commit (the commit installed, null when the Linux updater did not say), git_url, branch}.',
      plan: async (ctx) => {
        const h = await ctx.host();
        const agent = agentKindOf(h);
        const s = (await loadAgentUpdateSettings(ctx.pg, ctx.config))[agent];
        const url = checkGitUrl(s.gitUrl, { allowFile: ctx.config.agentUpdate.allowFileUrls });
        if (!url.ok) throw notPossible(`agent update for ${agent} is not configured: ${url.reason}`);
        const branch = validBranch(s.branch);
        if (!branch) throw notPossible(`agent update for ${agent}: "${s.branch}" is not a valid branch name`);
        return { kind: 'agent.update', payload: { target: targetOf(h), agent, git_url: url.url, branch } };
      },
    }),
  ],
};
