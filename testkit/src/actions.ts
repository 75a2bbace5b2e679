// Remote-action tests: a real OpenSSH server, a WS-Management test double, local git repositories,
// the actions worker and one scenario that puts them behind the API (remote-action-scenario.ts).
export * from './sshd.ts';
export * from './git-repos.ts';
export * from './deploy-rules.ts';
export * from './wsman-double.ts';
export * from './actions-worker.ts';
export * from './remote-action-scenario.ts';

export { advanceAgentActions, runUpdateFallback } from '@watchpost/processors';
export * from './wsman-schemas.ts';
export { TEST_CERT_PEM } from './test-certificates.ts';
