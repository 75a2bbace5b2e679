// How a Windows session action (winrm.sessions, winrm.logoff, winrm.logoff_user: the kinds whose
// descriptor lists the `agent` transport) reaches its host, chosen in one place for the API's early
// answer and the actions worker (issue 34 item 2). WinRM when it is configured, its settings are not
// refused and the host's address may be connected to; else the host's bound rdp-login-monitor agent,
// with the reason WinRM was not used; else a refusal. The API sees only whether the target networks are
// set; the worker resolves and checks the address (processors/src/actions/handlers/target.ts) and, when
// the agent could take over, probes the WinRM port as a second stage (winrm-session-runner.ts).
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import { findHostBinding } from '../hosts/store.ts';
import { COMMAND_AGENT_PRODUCT, hasCommandAgent } from './agent-commands.ts';
import { loadTargetNetworks } from './settings/target-networks.ts';
import { loadWinrmSettings, winrmRefusal, winrmSettingsView, type WinrmSettings } from './settings/winrm.ts';
import { NO_TARGET_NETWORKS } from './target-networks.ts';

/** Whether the host's address may be connected to: what to connect to, or why not. */
export type AddressCheck<A> = () => Promise<{ ok: true; address: A } | { ok: false; reason: string }>;

/**
 * The choice. `winrm`: the settings and checked address to connect with, and whether the host's agent
 * could still take over (the worker's reachability probe). `agent`: why not WinRM (kept in the action's
 * result as transport_reason). `none`: neither; `error` is the worker's reason (the action fails with it),
 * `refusal` the API's 400 ACTION_NOT_POSSIBLE message.
 */
export type SessionTransport<S, A> =
  | { via: 'winrm'; settings: S; address: A; agent: boolean }
  | { via: 'agent'; reason: string }
  | { via: 'none'; error: string; refusal: string };

/** The worker's inputs: the secrets key (the settings with the password) and its address check. */
export interface WorkerTransportInputs {
  secretsKey: Buffer;
  checkAddress: AddressCheck<string>;
}

const NOT_CONFIGURED = 'WinRM is not configured (no Windows administrator set)';
const NOT_CONFIGURED_WORKER =
  'WinRM is not configured: set the Windows administrator in the settings (or SERVICE_WINRM_USERNAME and SERVICE_WINRM_PASSWORD)';

/** The API's check: the target networks are set (it neither resolves nor connects). */
const targetNetworksSet =
  (pg: Pool, env: ActionsConfig): AddressCheck<null> =>
  async () =>
    (await loadTargetNetworks(pg, env)).length ? { ok: true, address: null } : { ok: false, reason: NO_TARGET_NETWORKS };

/**
 * Chooses the transport of a session action on `hostname`. Without `worker` (the API): the settings as
 * shown (no password read) and whether any target network is set. With it (the worker): the settings
 * with the password and the resolved, checked address.
 */
export function chooseSessionTransport(pg: Pool, env: ActionsConfig, hostname: string): Promise<SessionTransport<null, null>>;
export function chooseSessionTransport(
  pg: Pool,
  env: ActionsConfig,
  hostname: string,
  worker: WorkerTransportInputs,
): Promise<SessionTransport<WinrmSettings, string>>;
export async function chooseSessionTransport(
  pg: Pool,
  env: ActionsConfig,
  hostname: string,
  worker?: WorkerTransportInputs,
): Promise<SessionTransport<WinrmSettings | null, string | null>> {
  const agent = hasCommandAgent(await findHostBinding(pg, hostname));
  let settings: WinrmSettings | null = null;
  let configured: boolean;
  let refused: string | null = null;
  if (worker) {
    settings = await loadWinrmSettings(pg, env, worker.secretsKey);
    configured = Boolean(settings.username && settings.password);
    if (configured) refused = winrmRefusal(settings);
  } else {
    const v = await winrmSettingsView(pg, env);
    configured = Boolean(v.username && v.password_set);
    if (configured)
      refused = winrmRefusal({
        transport: v.transport,
        verifyTls: v.verify_tls,
        allowUnencrypted: v.allow_unencrypted,
        auth: v.auth,
      });
  }
  const noAgent = (why: string) =>
    `${why}, and host ${hostname} has no bound Windows agent (${COMMAND_AGENT_PRODUCT}) to run it through: set the Windows administrator in Settings → Remote access, or let the host's agent report first`;
  if (!configured)
    return agent
      ? { via: 'agent', reason: NOT_CONFIGURED }
      : { via: 'none', error: NOT_CONFIGURED_WORKER, refusal: noAgent(NOT_CONFIGURED) };
  if (refused)
    return agent
      ? { via: 'agent', reason: `WinRM refused by the settings: ${refused}` }
      : { via: 'none', error: refused, refusal: noAgent(refused) };
  const addr = await (worker ? worker.checkAddress : targetNetworksSet(pg, env))();
  if (!addr.ok)
    return agent
      ? { via: 'agent', reason: `WinRM may not connect: ${addr.reason}` }
      : { via: 'none', error: addr.reason, refusal: addr.reason };
  return { via: 'winrm', settings, address: addr.address, agent };
}
