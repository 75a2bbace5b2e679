// Remote actions: quoting, input checks, versions, records, credentials at rest, settings.
export * from './quote.ts';
export * from './validate.ts';
export * from './version.ts';
export * from './git-url.ts';
export * from './records.ts';
export * from './secrets.ts';
export * from './settings.ts';
export * from './latest-versions.ts';
export * from './targets.ts';
export * from './agent-commands.ts';
export * from './bundle-url.ts';
