// Agent instance ids are identifiers, not secrets (issue 33 item 3), but the agent poll hands a host's
// commands to its bound key and instance id: whoever holds the fleet key and reads a host's instance id
// can fetch that host's commands. So the API shows them to admins' browser sessions only. A monitor, and
// any phone (an admin's too: a device token is a phone, not an admin session, see access.ts), gets null
// in a field its schema requires and no `agent_instance_id` key anywhere else (an event's JSON, a
// problem's details, a host change's proposal).
import type { FastifyRequest } from 'fastify';

const KEY = 'agent_instance_id';

/** Whether the caller may see agent instance ids: an admin, not through a mobile device's token. */
export function seesInstanceIds(req: FastifyRequest): boolean {
  return req.user?.role === 'admin' && (req.deviceId ?? null) === null;
}

/**
 * A copy of a JSON value without any `agent_instance_id` key, at any depth. Only arrays and plain
 * objects are walked (what JSON.parse and pg's jsonb give); anything else is returned as it is.
 */
export function withoutInstanceIds<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x: unknown) => withoutInstanceIds(x)) as T;
  if (v === null || typeof v !== 'object') return v;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (k !== KEY) out[k] = withoutInstanceIds(x);
  return out as T;
}

/** Text for the OpenAPI descriptions of every field that carries an instance id. */
export const ADMIN_ONLY_INSTANCE =
  "admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, " +
  "a host's instance id would fetch that host's agent commands";
