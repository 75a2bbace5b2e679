// One remote-action scenario shared by the SSH and WinRM integration tests: the API app on the test's
// own stores, the `actions` worker role, the service's remote-access settings pointing at the test's
// peers (the WS-Management double, a real sshd), an admin and a monitor logged in, and a way to post an
// action and wait for its result. Each test keeps its own peers (their options are what it tests) and
// its own assertions; only this plumbing is shared.
import { randomBytes } from 'node:crypto';
import type { Config } from '@watchpost/runtime';
import { addUser, createApiHarness, login, type ApiHarness } from './api-harness.ts';
import { insertLinuxHost, insertWindowsHost, startActionsWorker, type ActionsWorker } from './actions-worker.ts';
import { wsmanDoubleEnv, type WsmanDouble } from './wsman-double.ts';
import type { TestSshd } from './sshd.ts';

/** The admin and the monitor every scenario logs in (the API's two roles). */
export const SCENARIO_ADMIN = 'ada';
export const SCENARIO_MONITOR = 'max';

export interface RemoteActionPeers {
  /** The WS-Management double the WinRM settings point at, with the service account's user name. */
  winrm?: {
    double: WsmanDouble;
    username: string;
    /** The account's password in the environment; left out, the test stores one through the settings API. */
    password?: string;
  };
  /** The sshd the SSH settings point at (its user, port and the service's private key). */
  ssh?: TestSshd;
  /**
   * SERVICE_ACTION_TARGET_NETWORKS: loopback by default, where every test peer listens; null leaves it
   * unset (nothing may connect until an admin lists a network).
   */
  targetNetworks?: string | null;
}

/** The service environment of a remote-action test: its peers, a fresh secrets key, then `env` on top. */
export function remoteActionEnv(peers: RemoteActionPeers, env: Record<string, string> = {}): Record<string, string> {
  const { winrm, ssh, targetNetworks = '127.0.0.0/8' } = peers;
  return {
    ...(winrm && {
      SERVICE_WINRM_USERNAME: winrm.username,
      ...(winrm.password !== undefined && { SERVICE_WINRM_PASSWORD: winrm.password }),
      ...wsmanDoubleEnv(winrm.double),
    }),
    ...(ssh && {
      SERVICE_SSH_USERNAME: ssh.username,
      SERVICE_SSH_PORT: String(ssh.port),
      SERVICE_SSH_PRIVATE_KEY_FILE: ssh.privateKeyFile,
    }),
    ...(targetNetworks !== null && { SERVICE_ACTION_TARGET_NETWORKS: targetNetworks }),
    SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
    ...env,
  };
}

export interface RemoteActionScenario {
  h: ApiHarness;
  /** Bearer tokens of the admin (SCENARIO_ADMIN) and, unless left out, the monitor (SCENARIO_MONITOR). */
  admin: string;
  monitor: string;
  /** One API request as `token` (the admin's by default): its status and JSON body. */
  call(method: 'GET' | 'POST' | 'PUT', path: string, token?: string, payload?: object): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the API's JSON, as inject returns it
  /**
   * Polls GET /actions/{id} until `until` holds (by default: the action finished, succeeded or failed)
   * or `timeoutMs` passed; returns the last answer, so the test's own expectation says what was wrong.
   */
  waitForAction(id: number, opts?: { until?: (action: { status: string }) => boolean; timeoutMs?: number }): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- as call
  /** A confirmed host on loopback (see insertWindowsHost / insertLinuxHost); returns its id. */
  windowsHost(hostname: string, over?: Parameters<typeof insertWindowsHost>[2]): Promise<number>;
  linuxHost(hostname: string, over?: Parameters<typeof insertLinuxHost>[2]): Promise<number>;
  /** Stops the actions worker (jobs then wait in the queue) and starts one again, on `config` if given. */
  stopWorker(): Promise<void>;
  startWorker(config?: Config): Promise<void>;
  close(): Promise<void>;
}

const finished = (a: { status: string }) => a.status === 'succeeded' || a.status === 'failed';

export async function startRemoteActionScenario(
  name: string,
  opts: RemoteActionPeers & {
    env?: Record<string, string>;
    /** false: only the admin logs in (no monitor user is created). */
    monitor?: boolean;
  } = {},
): Promise<RemoteActionScenario> {
  const h = await createApiHarness(name, { env: remoteActionEnv(opts, opts.env) });
  let worker: ActionsWorker | undefined = await startActionsWorker(h.config);
  await addUser(h, SCENARIO_ADMIN, 'admin');
  if (opts.monitor !== false) await addUser(h, SCENARIO_MONITOR, 'monitor');
  const token = async (user: string) => (await login(h, user, `pw-${user}-secret`)).json().access_token as string;
  const admin = await token(SCENARIO_ADMIN);
  const monitor = opts.monitor !== false ? await token(SCENARIO_MONITOR) : '';

  const call: RemoteActionScenario['call'] = async (method, path, as = admin, payload) => {
    const r = await h.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: `Bearer ${as}` }, payload });
    return { status: r.statusCode, body: r.json() };
  };
  return {
    h,
    admin,
    monitor,
    call,
    async waitForAction(id, { until = finished, timeoutMs = 60_000 } = {}) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await call('GET', `/actions/${id}`);
        if (until(body) || Date.now() > end) return body;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    windowsHost: (hostname, over) => insertWindowsHost(h.stores.pg, hostname, over),
    linuxHost: (hostname, over) => insertLinuxHost(h.stores.pg, hostname, over),
    async stopWorker() {
      await worker?.close();
      worker = undefined;
    },
    async startWorker(config = h.config) {
      worker = await startActionsWorker(config);
    },
    async close() {
      await worker?.close();
      await h.close();
    },
  };
}
