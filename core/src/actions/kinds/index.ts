// Every remote-action kind's descriptor, keyed by the kind names of schemas/src/queues.ts: a new kind
// does not compile until it has one here (and a handler in processors/src/actions/handlers/).
import type { ActionKind } from '@watchpost/schemas';
import type { ActionKindDescriptor } from './descriptor.ts';
import { winrmTest } from './winrm-test.ts';
import { winrmLogoffUser } from './winrm-logoff-user.ts';
import { winrmSessions } from './winrm-sessions.ts';
import { winrmLogoff } from './winrm-logoff.ts';
import { sshCheck } from './ssh-check.ts';
import { agentUpdate } from './agent-update.ts';
import { gitTest } from './git-test.ts';

export {
  ActionRefused,
  actionRoute,
  targetOf,
  type ActionEvent,
  type ActionKindDescriptor,
  type ActionResource,
  type ActionRoute,
  type ActionRouteContext,
} from './descriptor.ts';
export { GATEWAY_TARGET_KEYS } from './events.ts';

export const ACTION_KIND_DESCRIPTORS: { readonly [K in ActionKind]: ActionKindDescriptor<K> } = {
  'winrm.test': winrmTest,
  'winrm.logoff_user': winrmLogoffUser,
  'winrm.sessions': winrmSessions,
  'winrm.logoff': winrmLogoff,
  'ssh.check': sshCheck,
  'agent.update': agentUpdate,
  'git.test': gitTest,
};

/** True for a kind the host's agent can run when WinRM cannot (its descriptor lists the `agent` transport). */
export const runsThroughAgent = (kind: ActionKind): boolean => ACTION_KIND_DESCRIPTORS[kind].transports.includes('agent');
