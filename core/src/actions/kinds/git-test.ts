// git.test: `git ls-remote` of (possibly unsaved) agent-update settings; no host.
import { checkGitUrl } from '../git-url.ts';
import { validBranch } from '../validate.ts';
import { actionRoute, invalid, type ActionKindDescriptor } from './descriptor.ts';

export const gitTest: ActionKindDescriptor<'git.test'> = {
  kind: 'git.test',
  transports: [],
  timeout: 'action',
  routes: [
    actionRoute({
      on: 'agent-updates',
      path: 'git-test',
      access: 'admin',
      wait: 'always',
      tags: ['settings'],
      summary: 'Test a git repository for agent updates (unsaved form values welcome)',
      description:
        'The actions worker runs `git ls-remote` against the URL (allow-listed schemes only) and checks the ref (a branch, a tag or a full commit id). ' +
        "result: {ok, branch_found, ref_kind, commit, tags, latest_version, version_source} (ref_kind: branch, tag or commit; commit: what the ref points at; version_source: version.txt, Login_Monitor.ps1, ssh-monitor or tag). A failure is 400 ACTION_FAILED with git's message. Nothing is saved.",
      body: {
        type: 'object',
        required: ['git_url', 'branch'],
        additionalProperties: false,
        properties: { git_url: { type: 'string', maxLength: 2048 }, branch: { type: 'string', maxLength: 128 } },
      },
      plan: async (ctx) => {
        const u = checkGitUrl(ctx.body.git_url, { allowFile: ctx.config.agentUpdate.allowFileUrls });
        if (!u.ok) throw invalid(`git_url: ${u.reason}`);
        const branch = validBranch(ctx.body.branch);
        if (!branch) throw invalid('branch: not a valid branch name');
        return { kind: 'git.test', payload: { git_url: u.url, branch } };
      },
    }),
  ],
};
