// Remote actions: quoting, input checks, versions, records and jobs, the kinds' descriptors, credentials at
// rest, settings, agent commands, the session actions' steps and transport, bundles and update offers.
export * from './quote.ts';
export * from './validate.ts';
export * from './version.ts';
export * from './git-url.ts';
export * from './records.ts';
export * from './secrets.ts';
export * from './agent-kind.ts';
export * from './settings/index.ts';
export * from './latest-versions.ts';
export * from './targets.ts';
export * from './target-networks.ts';
export * from './agent-commands.ts';
export * from './sessions.ts';
export * from './sessions-transport.ts';
export * from './bundle-url.ts';
export * from './jobs.ts';
export * from './kinds/index.ts';
export * from './bundles.ts';
export * from './update-offers.ts';
export * from './stalled-updates.ts';
