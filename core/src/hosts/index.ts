// The host store and the host liveness rule.
export * from './status.ts';
export * from './heartbeats.ts';
export * from './store.ts';
export * from './reads.ts';
export * from './changes.ts';
export * from './binding.ts';
export * from './provenance.ts';
