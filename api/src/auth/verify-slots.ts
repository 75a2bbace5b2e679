// A bound on concurrent password verifications: each scrypt costs ~0.3 s of CPU and 128 MiB. Beyond
// the bound a login is answered 503 with Retry-After at once instead of queueing without limit.
export class VerifySlots {
  private active = 0;
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  /** Runs fn in a slot, or returns undefined at once when every slot is taken. */
  async run<T>(fn: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (this.active >= this.max) return undefined;
    this.active++;
    try {
      return { value: await fn() };
    } finally {
      this.active--;
    }
  }
}

const perApp = new WeakMap<object, VerifySlots>();

/** The one bound of an app (keyed by its deps): logins and the account routes' password checks share it. */
export function verifySlotsOf(deps: { auth: { maxConcurrentVerifications: number } }): VerifySlots {
  let slots = perApp.get(deps);
  if (!slots) perApp.set(deps, (slots = new VerifySlots(deps.auth.maxConcurrentVerifications)));
  return slots;
}
