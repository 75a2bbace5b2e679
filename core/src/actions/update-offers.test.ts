// When the agent poll offers an update: the stored version decides; the agent's claim can only hold it back.
import { describe, expect, it } from 'vitest';
import { shouldOfferUpdate } from './update-offers.ts';

describe('shouldOfferUpdate', () => {
  it('offers when the stored version is older, unless the agent reports the latest already', () => {
    expect(shouldOfferUpdate('1.0.0', undefined, '1.3.0')).toBe(true);
    expect(shouldOfferUpdate('1.0.0', '1.3.0', '1.3.0')).toBe(false);
    expect(shouldOfferUpdate('1.0.0', '1.1.0', '1.3.0')).toBe(true);
    expect(shouldOfferUpdate('1.0.0', 'unknown', '1.3.0')).toBe(true);
  });
  it('never offers because of what the agent claims', () => {
    expect(shouldOfferUpdate('1.3.0', '0.0.1', '1.3.0')).toBe(false);
    expect(shouldOfferUpdate(null, '0.0.1', '1.3.0')).toBe(false);
    expect(shouldOfferUpdate('1.0.0', undefined, null)).toBe(false);
  });
});
