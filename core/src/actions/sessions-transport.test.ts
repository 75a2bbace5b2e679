// The session actions' transport, chosen once (issue 34 item 2): WinRM, the bound agent with the reason,
// or the refusal, for the API (settings as shown, target networks set) and the worker (its address check).
import { describe, expect, it } from 'vitest';
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import { chooseSessionTransport } from './sessions-transport.ts';
import { NO_TARGET_NETWORKS } from './target-networks.ts';

const BOUND = {
  id: 1,
  hostname: 'win-07',
  product: 'rdp-login-monitor',
  os_family: 'windows',
  product_version: '1',
  agent_instance_id: 'i1',
  bound_key_id: 3,
};

/** A pool answering the host binding and nothing stored in `settings` (the environment applies). */
const pool = (host: object | null) =>
  ({
    query: async (sql: string) => ({ rows: sql.includes('FROM hosts') && host ? [host] : [], rowCount: 0 }),
  }) as unknown as Pool;

const env = (winrm: Partial<ActionsConfig['winrm']> = {}, targetNetworks = ['10.0.0.0/8']) =>
  ({
    targetNetworks,
    winrm: {
      username: 'admin',
      password: 'pw',
      transport: 'https',
      port: undefined,
      auth: 'ntlm',
      verifyTls: true,
      allowUnencrypted: false,
      caFile: '',
      ...winrm,
    },
  }) as unknown as ActionsConfig;

const KEY = Buffer.alloc(32);
const reachable = async () => ({ ok: true as const, address: '10.0.0.5' });
const outside = async () => ({ ok: false as const, reason: 'host win-07: 203.0.113.9 lies outside the target networks' });

describe('chooseSessionTransport (the API: no address resolved)', () => {
  it('WinRM when configured and target networks are set, saying whether the agent could take over', async () => {
    expect(await chooseSessionTransport(pool(BOUND), env(), 'win-07')).toEqual({
      via: 'winrm',
      settings: null,
      address: null,
      agent: true,
    });
    expect(await chooseSessionTransport(pool(null), env(), 'win-07')).toMatchObject({ via: 'winrm', agent: false });
  });
  it('the bound agent with the reason when WinRM is not configured, refused or may not connect', async () => {
    expect(await chooseSessionTransport(pool(BOUND), env({ password: undefined }), 'win-07')).toEqual({
      via: 'agent',
      reason: 'WinRM is not configured (no Windows administrator set)',
    });
    expect(await chooseSessionTransport(pool(BOUND), env({ transport: 'http', auth: 'basic' }), 'win-07')).toMatchObject({
      via: 'agent',
      reason: expect.stringMatching(/^WinRM refused by the settings: WinRM Basic authentication over HTTP/),
    });
    expect(await chooseSessionTransport(pool(BOUND), env({}, []), 'win-07')).toEqual({
      via: 'agent',
      reason: `WinRM may not connect: ${NO_TARGET_NETWORKS}`,
    });
  });
  it("neither: the API's refusal names the host and the missing agent", async () => {
    const t = await chooseSessionTransport(pool({ ...BOUND, product: 'ssh-monitor' }), env({ username: '' }), 'win-07');
    expect(t).toMatchObject({ via: 'none' });
    if (t.via !== 'none') return;
    expect(t.refusal).toBe(
      "WinRM is not configured (no Windows administrator set), and host win-07 has no bound Windows agent (rdp-login-monitor) to run it through: set the Windows administrator in Settings → Remote access, or let the host's agent report first",
    );
    expect(await chooseSessionTransport(pool(null), env({}, []), 'win-07')).toEqual({
      via: 'none',
      error: NO_TARGET_NETWORKS,
      refusal: NO_TARGET_NETWORKS,
    });
  });
  it('an unbound Windows agent cannot take over', async () => {
    const unbound = { ...BOUND, agent_instance_id: null, bound_key_id: null };
    expect(await chooseSessionTransport(pool(unbound), env({ password: undefined }), 'win-07')).toMatchObject({ via: 'none' });
  });
});

describe('chooseSessionTransport (the worker: settings with the password, its address check)', () => {
  it('WinRM with the settings and the checked address', async () => {
    expect(
      await chooseSessionTransport(pool(BOUND), env(), 'win-07', { secretsKey: KEY, checkAddress: reachable }),
    ).toMatchObject({
      via: 'winrm',
      settings: { username: 'admin', password: 'pw', port: 5986 },
      address: '10.0.0.5',
      agent: true,
    });
  });
  it('an address that may not be connected to: the agent with the reason, else that reason', async () => {
    expect(await chooseSessionTransport(pool(BOUND), env(), 'win-07', { secretsKey: KEY, checkAddress: outside })).toEqual({
      via: 'agent',
      reason: 'WinRM may not connect: host win-07: 203.0.113.9 lies outside the target networks',
    });
    expect(await chooseSessionTransport(pool(null), env(), 'win-07', { secretsKey: KEY, checkAddress: outside })).toMatchObject({
      via: 'none',
      error: 'host win-07: 203.0.113.9 lies outside the target networks',
    });
  });
  it("not configured without an agent: the worker's own reason; the address is not checked", async () => {
    let checked = false;
    const t = await chooseSessionTransport(pool(null), env({ password: undefined }), 'win-07', {
      secretsKey: KEY,
      checkAddress: async () => ((checked = true), reachable()),
    });
    expect(t).toMatchObject({
      via: 'none',
      error: expect.stringMatching(/^WinRM is not configured: set the Windows administrator/),
    });
    expect(checked).toBe(false);
  });
});
