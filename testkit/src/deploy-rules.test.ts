// The model of Deploy-LoginMonitor.ps1's settings rules (deploy-rules.ts) on the cases issue 31 names:
// the same host settings survive a deploy from the service's bundle (no settings example) and are lost
// from the repository tree (its public example beside the scripts).
import { describe, expect, it } from 'vitest';
import { PUBLIC_SETTINGS_EXAMPLE, monitorStarts, needsSacBootstrap, settingsAfterDeploy } from './deploy-rules.ts';

const settings = (key: string, mode = 'exclusive') =>
  [`$UseSAC = '${mode}'`, "$SacUrl = 'https://watchpost.corp.example'", `$SacApiKey = ${key}`, ''].join('\r\n');
const literal = settings("'sac_0123456789abcdef'");
const fromEnv = settings("[Environment]::GetEnvironmentVariable('SAC_API_KEY', 'Machine')");

describe('Deploy-LoginMonitor.ps1 settings rules', () => {
  it("a quoted 'sac_…' key with a URL needs no bootstrap; any other key does", () => {
    expect(needsSacBootstrap(literal)).toBe(false);
    expect(needsSacBootstrap(fromEnv)).toBe(true);
    expect(needsSacBootstrap(settings("'wpk_0123'"))).toBe(true);
    expect(needsSacBootstrap(settings("''"))).toBe(true);
    expect(needsSacBootstrap(undefined)).toBe(true);
  });

  it('from the repository tree (public example beside the scripts): a key the deploy cannot read is lost and the monitor exits', () => {
    const after = settingsAfterDeploy(fromEnv, PUBLIC_SETTINGS_EXAMPLE, true)!;
    expect(after).not.toContain('SAC_API_KEY');
    expect(after).toContain("$UseSAC = 'fallback'"); // the example's 'off', forced on the upgrade
    expect(monitorStarts(after)).toEqual({ starts: false, why: 'UseSAC=fallback, но SacUrl/SacApiKey не заданы: exit 1' });
    // Every later start exits the same way: the next deploy finds the same file.
    expect(monitorStarts(settingsAfterDeploy(after, PUBLIC_SETTINGS_EXAMPLE, true))).toMatchObject({ starts: false });
  });

  it("from the service's bundle (no example): the SAC block stays, only $UseSAC is forced to fallback on an upgrade", () => {
    const after = settingsAfterDeploy(fromEnv, undefined, true)!;
    expect(after).toContain("$SacApiKey = [Environment]::GetEnvironmentVariable('SAC_API_KEY', 'Machine')");
    expect(after).toContain("$UseSAC = 'fallback'");
    expect(monitorStarts(after).starts).toBe(true);
    expect(settingsAfterDeploy(fromEnv, undefined, false)).toBe(fromEnv); // same version: untouched
  });

  it('a literal key survives either way', () => {
    for (const example of [PUBLIC_SETTINGS_EXAMPLE, undefined])
      expect(monitorStarts(settingsAfterDeploy(literal, example, true)).starts).toBe(true);
  });

  it('no settings file: the example becomes it (UseSAC off: local channels only)', () => {
    expect(monitorStarts(settingsAfterDeploy(undefined, PUBLIC_SETTINGS_EXAMPLE, false))).toEqual({
      starts: true,
      why: 'UseSAC off: local channels only',
    });
  });
});
