// The entry point: `node ops/src/start.ts <role>` (or SERVICE_ROLE). Signal handlers go in before anything
// heavy is imported, so a SIGTERM during start-up still ends in an orderly exit, not the default kill.
const early: NodeJS.Signals[] = [];
const onEarly = (sig: NodeJS.Signals) => early.push(sig);
process.on('SIGTERM', onEarly).on('SIGINT', onEarly);

const { launch } = await import('./launcher.ts');
await launch(process.argv[2], {
  earlySignals: early,
  releaseEarly: () => process.off('SIGTERM', onEarly).off('SIGINT', onEarly),
});
