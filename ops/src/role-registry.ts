// Which code runs for each role. `all` runs every role in one process (local use). Typed as a full
// record over runtime's SERVICE_ROLES: a role listed there without a starter here (or the reverse)
// does not compile, so no role can pass config validation and then fail to start.
import type { RoleStarter, ServiceRole } from '@watchpost/runtime';

export const roleStarters: Record<ServiceRole, () => Promise<RoleStarter>> = {
  ingest: async () => (await import('@watchpost/ingest')).ingestRole,
  api: async () => (await import('@watchpost/api')).apiRole,
  store: async () => (await import('@watchpost/processors')).storeRole,
  correlate: async () => (await import('@watchpost/processors')).correlateRole,
  scheduler: async () => (await import('@watchpost/processors')).schedulerRole,
  stream: async () => (await import('@watchpost/processors')).streamRole,
  actions: async () => (await import('@watchpost/processors')).actionsRole,
  notify: async () => (await import('@watchpost/processors')).notifyRole,
  deliver: async () => (await import('@watchpost/processors')).deliverRole,
  smtp: async () => (await import('@watchpost/ingest')).smtpRole,
};
