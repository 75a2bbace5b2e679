// The contract between the launcher (ops/src/start.ts) and each service role.
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from './config/config.ts';
import type { Logger } from './logger.ts';
import type { HealthCheck } from './health.ts';
import type { Clients } from './clients/index.ts';

export interface RoleContext {
  config: Config;
  log: Logger;
  /** Shared, lazily created clients; closed by the launcher after every role closed. */
  clients: Clients;
}

export interface RoleHandle {
  /** HTTP routes mounted on the process's one fastify server (ingest, api). */
  routes?: FastifyPluginAsync;
  /** Dependency checks shown by /health (liveness: always 200, `status` says degraded). */
  checks?: Record<string, HealthCheck>;
  /** Readiness checks: /ready answers 503 while any is false (a consumer with lag and no progress). */
  ready?: Record<string, () => boolean>;
  /** Stop intake, drain in-flight work, flush producers. Clients are closed by the launcher afterwards. */
  close?: () => Promise<void>;
}

export type RoleStarter = (ctx: RoleContext) => Promise<RoleHandle>;
