// ssh.check: checks root or passwordless sudo over SSH; the worker persists hosts.ssh_admin_ok.
import { actionRoute, targetOf, type ActionKindDescriptor } from './descriptor.ts';

export const sshCheck: ActionKindDescriptor<'ssh.check'> = {
  kind: 'ssh.check',
  transports: [],
  timeout: 'action',
  routes: [
    actionRoute({
      on: 'host',
      path: 'ssh-check',
      access: 'admin',
      wait: false,
      tags: ['actions'],
      summary: 'SSH administration check (sets and persists ssh_admin_ok)',
      description:
        'Connects with the configured SSH user and key and checks for root or passwordless sudo (`sudo -n true`). ' +
        'result: {ssh_admin_ok, via: root|sudo|null, host_key_sha256}. The host key is pinned at the first connection.',
      plan: async (ctx) => ({ kind: 'ssh.check', payload: { target: targetOf(await ctx.host()) } }),
    }),
  ],
};
