// How a delivery failed: `final` failures (a provider's 4xx other than 429, a refused URL, a missing
// configuration) are not retried; the others are, with exponential backoff.
export class DeliveryError extends Error {
  readonly final: boolean;
  constructor(message: string, final: boolean) {
    super(message);
    this.name = 'DeliveryError';
    this.final = final;
  }
}

/** A provider's HTTP answer as a delivery outcome. */
export function checkHttpStatus(provider: string, status: number, body: string): void {
  if (status >= 200 && status < 300) return;
  const text = `${provider} answered ${status}: ${body.slice(0, 300)}`;
  // 429 (throttled) and 5xx are worth retrying; 408 too. Any other answer will not change on retry.
  throw new DeliveryError(text, !(status === 429 || status === 408 || status >= 500));
}
