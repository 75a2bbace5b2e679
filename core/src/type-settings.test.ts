import { describe, expect, it } from 'vitest';
import { effectiveSeverity, isHidden, type TypeSettings } from './type-settings.ts';

describe('type settings', () => {
  it('applies the per-type severity override before the threshold', () => {
    const ts: TypeSettings = {
      overrides: new Map([
        ['ssh.login.failed', 'info'],
        ['session.logind.new', 'high'],
      ]),
      hidden: new Set(),
    };
    expect(effectiveSeverity(ts, 'ssh.login.failed', 'high')).toBe('info');
    expect(effectiveSeverity(ts, 'session.logind.new', 'info')).toBe('high');
    expect(effectiveSeverity(ts, 'other', 'warning')).toBe('warning');
  });

  it('counts a value that is not a severity as info, and knows hidden types', () => {
    const ts: TypeSettings = { overrides: new Map(), hidden: new Set(['noisy.debug']) };
    expect(effectiveSeverity(ts, 'x', 'bogus')).toBe('info');
    expect(isHidden(ts, 'noisy.debug')).toBe(true);
    expect(isHidden(ts, 'x')).toBe(false);
  });
});
