// winrm.test: runs `hostname` over WinRM with the configured Windows administrator.
import { actionRoute, targetOf, type ActionKindDescriptor } from './descriptor.ts';

export const winrmTest: ActionKindDescriptor<'winrm.test'> = {
  kind: 'winrm.test',
  timeout: 'action',
  routes: [
    actionRoute({
      on: 'host',
      path: 'winrm-test',
      access: 'user',
      wait: true,
      tags: ['actions'],
      summary: 'WinRM connection test',
      description:
        'Runs `hostname` over WinRM with the configured Windows administrator. result: {ok, endpoint, remote_hostname}.',
      plan: async (ctx) => ({ kind: 'winrm.test', payload: { target: targetOf(await ctx.host()) } }),
    }),
  ],
};
