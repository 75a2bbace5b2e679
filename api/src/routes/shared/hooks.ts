// Route hooks that several route files attach alike.
import type { FastifyRequest } from 'fastify';

/**
 * preValidation of a route whose JSON body is optional: a call without one (and without a content
 * type) is validated, and handled, as `{}`.
 */
export async function emptyBodyIsObject(req: FastifyRequest): Promise<void> {
  req.body ??= {};
}
