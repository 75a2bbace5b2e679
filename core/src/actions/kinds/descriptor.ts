// What a remote-action kind is besides its job payload (schemas/src/queues.ts) and its worker handler
// (processors/src/actions/handlers/): the transports it may run over, the API routes that start it, each
// with who may call it, whether it answers when the action finished, its request body (the schema, the
// type derived from it) and how a request becomes a planned action. The API mounts the routes
// (api/src/routes/actions/mount.ts).
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import type { ActionKind, ActionTarget } from '@watchpost/schemas';
import type { ApiUser } from '../../users/users.ts';
import type { ActionHost } from '../../hosts/store.ts';
import { agentKindOf } from '../settings/agent-updates.ts';
import { actionTarget } from '../targets.ts';
import type { PlannedAction } from '../jobs.ts';
import type { ActionTransport } from '../records.ts';

/**
 * What a route hangs under: `host` = /hosts/{id}/actions/<path>, `event` = /events/{event_id}/actions/<path>,
 * `agent-updates` = /settings/agent-updates/<path>.
 */
export type ActionResource = 'host' | 'event' | 'agent-updates';

/** The event a route names, as far as actions read it. */
export interface ActionEvent {
  type: string;
  hostname: string;
  /** source.product as stored */
  product: string;
  actor_user: string | null;
  /** the verified agent key ingest recorded for it (null: unknown) */
  agent_key_id: number | null;
  /** the event as the agent sent it (schema v1) */
  event: Record<string, unknown>;
}

export interface ActionRouteContext<Params, Body> {
  pg: Pool;
  config: ActionsConfig;
  user: ApiUser;
  params: Params;
  body: Body;
  /** The host of a `host` route (answers 404 when there is none). */
  host(): Promise<ActionHost>;
  /** The event of an `event` route (answers 404 when there is none). */
  event(): Promise<ActionEvent>;
}

/** Why a request cannot become an action: answered 400 with this code and message. */
export class ActionRefused extends Error {
  readonly code: 'ACTION_NOT_POSSIBLE' | 'VALIDATION_FAILED';
  constructor(code: ActionRefused['code'], message: string) {
    super(message);
    this.name = 'ActionRefused';
    this.code = code;
  }
}
export const notPossible = (message: string) => new ActionRefused('ACTION_NOT_POSSIBLE', message);
export const invalid = (message: string) => new ActionRefused('VALIDATION_FAILED', message);

/** One API route that starts an action. */
export interface ActionRoute {
  on: ActionResource;
  /** below the resource; `:name` segments are path parameters (declared in `params`) */
  path: string;
  access: 'user' | 'admin';
  /** the default of `?wait` (true: answer when finished, false: 202 at once); 'always': synchronous, no `?wait` */
  wait: boolean | 'always';
  tags: readonly string[];
  summary: string;
  description?: string;
  /** the path parameters' schema when the route adds its own to the resource's */
  params?: JSONSchema;
  body?: JSONSchema;
  // A method, so that a route typed by its own schemas is one of these.
  plan(ctx: ActionRouteContext<unknown, unknown>): Promise<PlannedAction>;
}

// A nullable body may also be left out altogether.
type Typed<S, Otherwise> = S extends JSONSchema
  ? S extends { nullable: true }
    ? FromSchema<S> | undefined
    : FromSchema<S>
  : Otherwise;

/** A route whose `plan` gets its params and body typed from their schemas. */
export function actionRoute<
  const P extends JSONSchema | undefined = undefined,
  const B extends JSONSchema | undefined = undefined,
>(
  r: Omit<ActionRoute, 'params' | 'body' | 'plan'> & {
    params?: P;
    body?: B;
    plan(ctx: ActionRouteContext<Typed<P, Record<string, unknown>>, Typed<B, undefined>>): Promise<PlannedAction>;
  },
): ActionRoute {
  return r;
}

export interface ActionKindDescriptor<K extends ActionKind> {
  kind: K;
  /** The worker's bound on the whole remote operation: SERVICE_ACTION_TIMEOUT_MS or, `update`, SERVICE_AGENT_UPDATE_TIMEOUT_MS. */
  timeout: 'action' | 'update';
  /**
   * The transports it may run over, the first preferred (an action's `transport`): `['winrm']` for a
   * WinRM kind; `['winrm', 'agent']` for the session kinds, which go through the host's bound agent when
   * WinRM cannot run them (core's chooseSessionTransport); none for the others (SSH, git, and the agent
   * update, whose connection follows the host's OS).
   */
  transports: readonly ActionTransport[];
  /** The routes that start it, mounted in this order. */
  routes: readonly ActionRoute[];
}

/** The address the worker connects to, or 400 ACTION_NOT_POSSIBLE. */
export function targetOf(h: ActionHost): ActionTarget {
  const t = actionTarget(h);
  if (!t) throw notPossible(`host ${h.hostname} has no usable address (internal address, FQDN, IPv4 or a DNS hostname)`);
  return t;
}

export const isWindows = (h: ActionHost) => agentKindOf(h) === 'windows';

export function windowsTarget(h: ActionHost): ActionTarget {
  if (!isWindows(h)) throw notPossible(`host ${h.hostname} is not a Windows host`);
  return targetOf(h);
}
