// JSON-schema pieces that many route files declare alike: the numeric `{id}` path parameter, the
// `{ items }` list answer and the empty 204 answer. One definition each, so the OpenAPI document
// describes the same thing the same way on every route.
import type { FromSchema } from 'json-schema-to-ts';

/** A path `{id}` that is a positive integer (a Postgres serial). */
export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } } as const;
export type IdParams = FromSchema<typeof idParams>;

/** An answer `{ items: [...] }` without paging (small tables, or lists with their own keyset paging). */
export const itemsOf = <T extends object>(item: T) =>
  ({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: item } } }) as const;

/** A 204 answer: no body. */
export const noContent = (description: string) => ({ description, type: 'null' }) as const;
