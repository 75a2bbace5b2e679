import type { Logger } from './logger.ts';

type Step = { name: string; close: () => unknown };

/**
 * Shutdown in registration order: register intake first (HTTP servers, consumers), then workers,
 * then producers, then clients. SIGTERM/SIGINT run it once.
 */
export class Lifecycle {
  private steps: Step[] = [];
  private closing: Promise<void> | undefined;
  private stopping = false;
  private log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  onClose(name: string, close: Step['close']): void {
    this.steps.push({ name, close });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const step of this.steps) {
        try {
          await step.close();
          this.log.info({ step: step.name }, 'closed');
        } catch (err) {
          this.log.error({ step: step.name, err }, 'close failed');
        }
      }
    })();
    return this.closing;
  }

  handleSignals(): void {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => this.stop(sig));
  }

  /** Starts the ordered shutdown, then exits with `code` (1 if it takes over 30 s). Repeated calls change nothing. */
  stop(reason: string, code = 0): void {
    if (this.stopping) return;
    this.stopping = true;
    this.log.info({ signal: reason }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    void this.close().then(() => process.exit(code));
  }
}
