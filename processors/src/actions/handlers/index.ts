// What each action kind does on the managed host: one handler per kind name of schemas/src/queues.ts
// (the compiler demands one per kind); the three session kinds share one (winrm-session-runner.ts: over
// WinRM or through the host's agent, the steps in core/src/actions/sessions.ts). Values in command lines
// were validated by the API and are quoted here (quotePosix / quotePowerShell); session ids are integers
// by type and checked again.
import type { ActionJobOf, ActionKind } from '@watchpost/schemas';
import type { ActionDeps, ActionHandler } from '../deps.ts';
import { winrmTest } from './winrm-test.ts';
import { runSessionAction } from './winrm-session-runner.ts';
import { sshCheck } from './ssh-check.ts';
import { agentUpdate } from './agent-update.ts';
import { gitTest } from './git-test.ts';

export { windowsUpdateScript } from './agent-update.ts';

const ACTION_HANDLERS: { readonly [K in ActionKind]: ActionHandler<K> } = {
  'winrm.test': winrmTest,
  'winrm.logoff_user': runSessionAction,
  'winrm.sessions': runSessionAction,
  'winrm.logoff': runSessionAction,
  'ssh.check': sshCheck,
  'agent.update': agentUpdate,
  'git.test': gitTest,
};

export function runHandler<K extends ActionKind>(deps: ActionDeps, job: ActionJobOf<K>, signal: AbortSignal) {
  const handler: ActionHandler<K> = ACTION_HANDLERS[job.kind];
  return handler(deps, job, signal);
}
