// winrm.logoff_user: logs off every session of one user over WinRM or through the host's agent
// (transports; the steps: ../sessions.ts), from an rdp.login.success event; a gateway event's logoff
// without session id plans one too, see winrm-logoff.ts.
import { findHost, ACTION_HOST_COLUMNS } from '../../hosts/store.ts';
import { actionRoute, notPossible, targetOf, type ActionKindDescriptor } from './descriptor.ts';
import { eventUser, requireOwnAgentEvent } from './events.ts';

export const winrmLogoffUser: ActionKindDescriptor<'winrm.logoff_user'> = {
  kind: 'winrm.logoff_user',
  transports: ['winrm', 'agent'],
  timeout: 'action',
  routes: [
    actionRoute({
      on: 'event',
      path: 'terminate-session',
      access: 'admin',
      wait: true,
      tags: ['actions'],
      summary: 'Terminate the session of an rdp.login.success event',
      description:
        "The user is the event's actor user (details.user, username, target_user or account); the host is the event's host. " +
        'Every session of that user on the host is logged off. result: {user, logged_off: [{id, session_name, state}]}.',
      plan: async (ctx) => {
        const e = await ctx.event();
        if (e.type !== 'rdp.login.success')
          throw notPossible(`only rdp.login.success events have a session to terminate, not ${e.type}`);
        await requireOwnAgentEvent(ctx, e);
        const user = eventUser(e);
        if (!user) throw notPossible('the event names no valid user');
        const host = await findHost(ctx.pg, { hostname: e.hostname }, ACTION_HOST_COLUMNS);
        if (!host) throw notPossible(`host ${e.hostname} is not registered`);
        return { kind: 'winrm.logoff_user', payload: { target: targetOf(host), user } };
      },
    }),
  ],
};
