// An operator's act on a problem (acknowledge, resolve, or a host-change decision that resolved one),
// told to live clients on the stream channel. Best effort: the act is already stored.
import type { FastifyBaseLogger } from 'fastify';
import type { LiveProblemsMessage } from '@watchpost/schemas';
import type { ApiDeps } from '../types.ts';

export interface ActedProblem {
  id: string;
  host: string;
  type: string;
  title: string;
  severity: string;
  status: string;
  created_at: string | Date;
}

export async function publishProblemAct(
  deps: Pick<ApiDeps, 'redis' | 'config'>,
  log: FastifyBaseLogger,
  action: 'acknowledged' | 'resolved',
  p: ActedProblem,
): Promise<void> {
  const message: LiveProblemsMessage = {
    kind: 'problems',
    action,
    problem: {
      id: p.id,
      host: p.host,
      type: p.type,
      title: p.title,
      severity: p.severity,
      status: p.status,
      created_at: new Date(p.created_at).toISOString(),
    },
  };
  await deps.redis
    .publish(deps.config.stream.channel, JSON.stringify(message))
    .catch((err: unknown) => log.warn({ err }, 'live publish failed'));
}
