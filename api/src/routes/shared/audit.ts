// The audit entry of an act done through the API by the signed-in caller (admin or monitor): the
// actor is the caller's username and the address the request's client address, as on every route.
import type { FastifyRequest } from 'fastify';
import { audit, type AuditEntry } from '@watchpost/core/audit';
import type { ApiDeps } from '../../types.ts';

export type CallerAct = Pick<AuditEntry, 'target' | 'details'>;

/** Records `action` as done by the caller of `req` (a 'user' or 'admin' route: req.user is set). */
export async function auditCaller(pg: ApiDeps['pg'], req: FastifyRequest, action: string, act: CallerAct = {}): Promise<void> {
  await audit(pg, { actor: req.user!.username, address: req.ip, action, ...act });
}
