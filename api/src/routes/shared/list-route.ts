// The GET of a whole small table (users, agent API keys, devices, event-type settings): every row as
// `{ items }`, no paging and no filters. The tables stay small (people, keys, phones, types), so one
// shape serves them all.
import type { FastifyInstance } from 'fastify';
import type { Access } from '../../types.ts';
import { itemsOf } from './schemas.ts';

export interface ListAllSpec {
  /** Who may read the list (enforced by access.ts like any route's config.access). */
  access: Access;
  operationId: string;
  tags: string[];
  summary: string;
  /** The schema of one row. */
  item: object;
}

export function listAllRoute(app: FastifyInstance, path: string, spec: ListAllSpec, rows: () => Promise<unknown[]>): void {
  const { access, item, ...schema } = spec;
  app.get(path, { config: { access }, schema: { ...schema, response: { 200: itemsOf(item) } } }, async () => ({
    items: await rows(),
  }));
}
