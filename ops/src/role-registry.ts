// Which code runs for each role. `all` runs every role in one process (local use).
import type { Role, RoleStarter } from '@watchpost/runtime';

export const roleStarters: Partial<Record<Exclude<Role, 'all'>, () => Promise<RoleStarter>>> = {
  ingest: async () => (await import('@watchpost/ingest')).ingestRole,
  api: async () => (await import('@watchpost/api')).apiRole,
  store: async () => (await import('@watchpost/processors/store/index.ts')).storeRole,
  correlate: async () => (await import('@watchpost/processors/correlate/index.ts')).correlateRole,
  scheduler: async () => (await import('@watchpost/processors/scheduler/index.ts')).schedulerRole,
  stream: async () => (await import('@watchpost/processors/stream/index.ts')).streamRole,
};
