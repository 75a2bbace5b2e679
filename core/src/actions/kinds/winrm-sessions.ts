// winrm.sessions: qwinsta over WinRM or through the host's agent (transports; the steps: ../sessions.ts), from
// a host (admins) or from a gateway event (monitors too, spec rule 3).
import { actionRoute, targetOf, windowsTarget, type ActionKindDescriptor } from './descriptor.ts';
import { gatewayTarget } from './events.ts';

export const winrmSessions: ActionKindDescriptor<'winrm.sessions'> = {
  kind: 'winrm.sessions',
  transports: ['winrm', 'agent'],
  timeout: 'action',
  routes: [
    actionRoute({
      on: 'host',
      path: 'sessions',
      access: 'admin',
      wait: true,
      tags: ['actions'],
      summary: 'List the sessions on a Windows host (qwinsta over WinRM)',
      description: 'result: {endpoint, sessions: [{id, session_name, username, state, current}], raw}.',
      plan: async (ctx) => ({ kind: 'winrm.sessions', payload: { target: windowsTarget(await ctx.host()) } }),
    }),
    actionRoute({
      on: 'event',
      path: 'gateway-qwinsta',
      access: 'user',
      wait: 'always',
      tags: ['actions'],
      summary: 'qwinsta on the Windows host behind a gateway event (synchronous)',
      description:
        "Resolves the event's internal address (details.internal_address, target_address, internal_ip, target_host or resource; " +
        'a :port is ignored) to a registered Windows host and runs qwinsta there over WinRM. Admins and monitors (spec rule 3). ' +
        'result: {endpoint, sessions, raw}.',
      plan: async (ctx) => ({ kind: 'winrm.sessions', payload: { target: targetOf((await gatewayTarget(ctx)).host) } }),
    }),
  ],
};
