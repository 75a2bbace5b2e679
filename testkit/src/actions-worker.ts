// The `actions` worker role and the host rows remote actions run against, on the test's own stores.
import { Clients, type Config, type Pool } from '@watchpost/runtime';
import { actionsRole } from '@watchpost/processors';
import { memoryLogger } from './logger.ts';

/** The `actions` worker role on the test's config (own queue prefix and database). */
export async function startActionsWorker(config: Config) {
  const clients = new Clients(config);
  const { log, lines } = memoryLogger();
  const handle = await actionsRole({ config, log, clients });
  return {
    logLines: lines,
    async close() {
      await handle.close?.();
      await clients.close();
    },
  };
}

export type ActionsWorker = Awaited<ReturnType<typeof startActionsWorker>>;

export interface TestHost {
  hostname: string;
  product: 'ssh-monitor' | 'rdp-login-monitor';
  version: string;
  address: string;
  agentInstanceId?: string | null;
  boundKeyId?: number | null;
  /** An admin accepted its addresses (default): credentialed actions may run against it (issue 33). */
  confirmed?: boolean;
  /** The WinRM certificate an admin accepted (its SHA-256): no action pins one (issue 33). */
  winrmCertSha256?: string;
}

/**
 * Inserts a host row as correlate would have created it; returns its id. `agentInstanceId` and
 * `boundKeyId` are the host's binding (the agent instance and key that first spoke for it): the agent
 * poll serves a host's commands and update only to that agent.
 */
export async function insertHost(pg: Pool, h: TestHost): Promise<number> {
  const r = await pg.query<{ id: number }>(
    `INSERT INTO hosts (hostname, os_family, product, product_version, first_seen, last_seen, ipv4, internal_address,
                        agent_instance_id, bound_key_id, bound_at, confirmed_at, confirmed_by, winrm_cert_sha256)
     VALUES ($1, $2, $3, $4, now(), now(), $5, $5, $6, $7, CASE WHEN $7::bigint IS NULL THEN NULL ELSE now() END,
             CASE WHEN $8 THEN now() END, CASE WHEN $8 THEN 'test admin' END, $9)
     RETURNING id`,
    [
      h.hostname,
      h.product === 'ssh-monitor' ? 'linux' : 'windows',
      h.product,
      h.version,
      h.address,
      h.agentInstanceId ?? null,
      h.boundKeyId ?? null,
      h.confirmed ?? true,
      h.winrmCertSha256 ?? null,
    ],
  );
  return Number(r.rows[0]!.id);
}

type HostOverrides = Partial<Omit<TestHost, 'hostname' | 'product'>>;

/**
 * A confirmed Windows host (rdp-login-monitor 3.0.0) on loopback, where the WS-Management double
 * listens, unless `over` says otherwise.
 */
export function insertWindowsHost(pg: Pool, hostname: string, over: HostOverrides = {}): Promise<number> {
  return insertHost(pg, { hostname, product: 'rdp-login-monitor', version: '3.0.0', address: '127.0.0.1', ...over });
}

/** A confirmed Linux host (ssh-monitor 1.0.0) on loopback, where the test's sshd listens, unless `over` says otherwise. */
export function insertLinuxHost(pg: Pool, hostname: string, over: HostOverrides = {}): Promise<number> {
  return insertHost(pg, { hostname, product: 'ssh-monitor', version: '1.0.0', address: '127.0.0.1', ...over });
}
