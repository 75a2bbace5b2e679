// winrm.test: runs `hostname` over WinRM with the configured Windows administrator.
import { actionRoute, windowsTarget, type ActionKindDescriptor } from './descriptor.ts';

export const winrmTest: ActionKindDescriptor<'winrm.test'> = {
  kind: 'winrm.test',
  transports: ['winrm'],
  timeout: 'action',
  routes: [
    actionRoute({
      on: 'host',
      path: 'winrm-test',
      // Admins only (issue 33): a test sends the Windows administrator's credentials, and to a Windows host only.
      access: 'admin',
      wait: true,
      tags: ['actions'],
      summary: 'WinRM connection test',
      description:
        'Admin only. Runs `hostname` over WinRM with the configured Windows administrator on a Windows host an admin has ' +
        'confirmed (400 ACTION_NOT_POSSIBLE for another OS). result: {ok, endpoint, remote_hostname}.',
      plan: async (ctx) => ({ kind: 'winrm.test', payload: { target: windowsTarget(await ctx.host()) } }),
    }),
  ],
};
