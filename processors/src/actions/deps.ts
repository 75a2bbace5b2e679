// What the actions worker's handlers get, and the shape of one kind's handler.
import type { Config, Logger, Pool } from '@watchpost/runtime';
import type { ActionJobOf, ActionKind } from '@watchpost/schemas';

export interface ActionDeps {
  pg: Pool;
  /** the actions worker reads only these (its section and the state directory) */
  config: Pick<Config, 'actions' | 'stateDir'>;
  /** AES-256-GCM key of the stored credentials */
  secretsKey: Buffer;
  log: Logger;
}

/** What one kind does on the managed host; its result is the action's `result`. A RemoteError is the reason it failed. */
export type ActionHandler<K extends ActionKind> = (
  deps: ActionDeps,
  job: ActionJobOf<K>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;
