// winrm.logoff: logs off one session over WinRM or through the host's agent (transports; the steps:
// ../sessions.ts), from a host (admins) or from a gateway event (monitors too, but only a session of the
// event's user: `owner`).
import { parseSessionId } from '../validate.ts';
import { actionRoute, invalid, notPossible, targetOf, windowsTarget, type ActionKindDescriptor } from './descriptor.ts';
import { gatewayTarget } from './events.ts';

export const winrmLogoff: ActionKindDescriptor<'winrm.logoff'> = {
  kind: 'winrm.logoff',
  transports: ['winrm', 'agent'],
  timeout: 'action',
  routes: [
    actionRoute({
      on: 'host',
      path: 'sessions/:session_id/logoff',
      access: 'admin',
      wait: true,
      tags: ['actions'],
      summary: 'Terminate one session on a Windows host (logoff over WinRM)',
      params: {
        type: 'object',
        required: ['id', 'session_id'],
        properties: { id: { type: 'integer', minimum: 1 }, session_id: { type: 'string', pattern: '^[0-9]{1,5}$' } },
      },
      plan: async (ctx) => {
        const sessionId = parseSessionId(ctx.params.session_id);
        if (sessionId === null) throw invalid('session_id must be an integer from 0 to 65535');
        return { kind: 'winrm.logoff', payload: { target: windowsTarget(await ctx.host()), session_id: sessionId } };
      },
    }),
    actionRoute({
      on: 'event',
      path: 'gateway-logoff',
      access: 'user',
      wait: 'always',
      tags: ['actions'],
      summary: 'logoff on the Windows host behind a gateway event (synchronous)',
      description:
        'With `session_id`: logs off that session (for a monitor, only a session of the event user: another answers 400). ' +
        'Without: logs off every session of the event user (details.user, ...). Admins and monitors (spec rule 3).',
      body: {
        type: 'object',
        nullable: true,
        additionalProperties: false,
        properties: { session_id: { type: 'integer', minimum: 0, maximum: 65535 } },
      },
      plan: async (ctx) => {
        const t = await gatewayTarget(ctx);
        const sid = ctx.body?.session_id;
        if (sid !== undefined) {
          if (ctx.user.role === 'admin') return { kind: 'winrm.logoff', payload: { target: targetOf(t.host), session_id: sid } };
          // A monitor may end the event user's session, not any session on the host (the console's included).
          if (!t.user) throw notPossible('the event names no valid user, so a monitor cannot log off a session');
          return { kind: 'winrm.logoff', payload: { target: targetOf(t.host), session_id: sid, owner: t.user } };
        }
        if (!t.user) throw notPossible('the event names no valid user; pass session_id');
        // Without a session: every session of the event's user.
        return { kind: 'winrm.logoff_user', payload: { target: targetOf(t.host), user: t.user } };
      },
    }),
  ],
};
