// Every API route plugin, mounted under /api/v1 by app.ts. Route files use paths RELATIVE to
// /api/v1 (e.g. '/events', '/hosts/:id'), default-export a FastifyPluginAsync, declare
// `config: { access: 'public' | 'agent' | 'user' | 'admin' }` on every route (the app refuses to start
// otherwise) and full schemas with `tags`. Clients are at `fastify.deps`, the caller at `request.user`.
// Each helper adds its own import lines here (small edits).
import type { FastifyPluginAsync } from 'fastify';
import authRoutes from './auth.ts';
import authMfaRoutes from './auth-mfa.ts';
import accountRoutes from './account.ts';
import usersRoutes from './users.ts';
import settingsRoutes from './settings.ts';
import auditRoutes from './audit.ts';
import apiKeysRoutes from './api-keys.ts';
import eventsRoutes from './events.ts';
import hostsRoutes from './hosts.ts';
import hostChangesRoutes from './host-changes.ts';
import problemsRoutes from './problems.ts';
import dashboardRoutes from './dashboards.ts';
import streamRoutes from './stream.ts';
import actionRecordsRoutes from './actions/records.ts';
import hostActionsRoutes from './actions/host-actions.ts';
import agentBundlesRoutes from './actions/agent-bundles.ts';
import eventActionsRoutes from './actions/event-actions.ts';
import remoteAccessSettingsRoutes from './settings/mount.ts';
import agentUpdatesRoutes from './actions/agent-updates.ts';
import agentsRoutes from './actions/agents.ts';
import notificationPolicyRoutes from './notifications/policy.ts';
import notificationChannelsRoutes from './notifications/channels.ts';
import notificationExplainRoutes from './notifications/explain.ts';
import notificationDeliveriesRoutes from './notifications/deliveries.ts';
import dailyReportsRoutes from './notifications/reports.ts';
import devicesRoutes from './devices/index.ts';
import systemRoutes from './system.ts';

export const routePlugins: FastifyPluginAsync[] = [
  authRoutes,
  authMfaRoutes,
  accountRoutes,
  usersRoutes,
  settingsRoutes,
  auditRoutes,
  apiKeysRoutes,
  eventsRoutes,
  hostsRoutes,
  hostChangesRoutes,
  problemsRoutes,
  dashboardRoutes,
  streamRoutes,
  actionRecordsRoutes,
  hostActionsRoutes,
  agentBundlesRoutes,
  eventActionsRoutes,
  remoteAccessSettingsRoutes,
  agentUpdatesRoutes,
  agentsRoutes,
  notificationPolicyRoutes,
  notificationChannelsRoutes,
  notificationExplainRoutes,
  notificationDeliveriesRoutes,
  dailyReportsRoutes,
  devicesRoutes,
  systemRoutes,
];
