// What every API route plugin gets: `app.deps` (clients and settings) and, on routes whose access is
// 'user' or 'admin', `request.user`. Access is declared per route in `config.access`.
import type { Config } from '@watchpost/runtime';
import type { Pool } from '@watchpost/runtime';
import type { Redis } from '@watchpost/runtime';
import type { ClickHouseClient } from '@watchpost/runtime';
import type { Queue } from 'bullmq';
import type { LoginRateLimitedJob } from '@watchpost/schemas';
import type { ActionsQueue } from './routes/actions/queue.ts';

import type { ApiUser } from '@watchpost/core/users';
export { USER_ROLES, type UserRole, type ApiUser } from '@watchpost/core/users';

/**
 * 'user' = any logged-in user (monitor or admin); 'agent' = an agent API key. A mobile device's token
 * passes 'user' and 'admin' only on routes that also declare `config.device: true`.
 */
export const ACCESS_LEVELS = ['public', 'agent', 'user', 'admin'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

export interface AuthSettings {
  /** HS256 key of the access tokens. */
  jwtSecret: Uint8Array;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  /** Absolute lifetime of a session (refresh-token family), however often refreshed. */
  sessionMaxSeconds: number;
  /** Failed logins counted per username and per client address within this window... */
  loginWindowSeconds: number;
  /** ...and once a limit is reached, logins in that scope are refused this long. */
  lockoutSeconds: number;
  /** Guesses per (username, address) in a window: the spec's 3. */
  maxLoginFailures: number;
  /** Guesses per username across all addresses, and per address across all usernames (anti-spraying). */
  maxFailuresPerUser: number;
  maxFailuresPerAddress: number;
  /** Password verifications (scrypt, 128 MiB each) at once in this process; beyond it 503. */
  maxConcurrentVerifications: number;
  /** Admin routes answer an admin without an active second factor 403 MFA_ENROLMENT_REQUIRED (access.ts). */
  requireTotpForAdmins: boolean;
}

export interface ApiDeps {
  config: Config;
  pg: Pool;
  /** Shared command connection. Subscribers (SSE) must use `redis.duplicate()`. */
  redis: Redis;
  /** Prefix of every Redis key the API writes (tests use a unique one). */
  redisKeyPrefix: string;
  clickhouse: ClickHouseClient;
  /** BullMQ notifications queue (login-limit alerts). */
  notifications: Queue<LoginRateLimitedJob>;
  /** BullMQ actions queue and its request-reply (remote actions, routes/actions/). */
  actions: ActionsQueue;
  auth: AuthSettings;
  /** True when the key is a valid, unrevoked agent API key (ingest's api_keys table). */
  verifyAgentKey(key: string): Promise<boolean>;
  /** The stored event_id ingest took `eventId` to be a re-send of (ingest/src/resend.ts), else null. */
  resentOf: (eventId: string) => Promise<string | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: ApiDeps;
  }
  interface FastifyRequest {
    /** Set by the access hook on 'user' and 'admin' routes. */
    user: ApiUser | null;
    /** The mobile device whose session the access token belongs to (null: a browser or API session). */
    deviceId: number | null;
    /** The session (refresh-token family) of the access token, on 'user' and 'admin' routes. */
    sessionId: string | null;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** Accept the access token from the `access_token` query parameter (EventSource cannot send headers). */
    sseToken?: boolean;
    /**
     * Part of the mobile surface (api/MOBILE.md): a mobile device's token is accepted here. Every other
     * route answers a device token 403 DEVICE_SCOPE, whatever its user's role. Checked at start
     * (access.ts: only on 'user' and 'public' routes); the OpenAPI tag `mobile` follows it (app.ts).
     */
    device?: true;
  }
}
