// A failure on the managed host or on the way to it (refused connection, authentication, a command's
// non-zero exit, a timeout). Its message is shown to the caller (HTTP 400, spec: Errors) and recorded,
// so it says what happened without secrets. Anything else is a bug: recorded as an internal error.
export class RemoteError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RemoteError';
  }
}

/** Rejects with a RemoteError naming `what` when the signal fires first. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  if (signal.aborted) return Promise.reject(new RemoteError(`${what}: timed out`));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RemoteError(`${what}: timed out`));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
