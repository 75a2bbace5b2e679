// The domain shared by several roles. Imports only schemas and runtime.
// The barrel, every area but migrate, for tests, the testkit and benches: the roles' and ops' production code
// imports the areas (`@watchpost/core/<area>`, core/package.json "exports"; .dependency-cruiser.cjs).
export * from './problems/state.ts';
export * from './problems/store.ts';
export * from './type-settings.ts';
export * from './hosts/index.ts';
export * from './agent-keys.ts';
export * from './secret-policy.ts';
export * from './users/users.ts';
export * from './users/passwords.ts';
export * from './users/password-policy.ts';
export * from './users/totp.ts';
export * from './users/mfa.ts';
export * from './audit.ts';
export * from './pg-safe.ts';
export * from './retention.ts';
export * from './settings/index.ts';
export * from './actions/index.ts';
export * from './notify/index.ts';
export * from './devices.ts';
export * from './events/window-time.ts';
