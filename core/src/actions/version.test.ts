// Agent versions compared as the agents compare them (Deploy-LoginMonitor.ps1 Compare-VersionStrings):
// the numbers decide, a suffix such as -SAC or -ipset is an edition label, never a pre-release.
import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  isOutdated,
  latestVersion,
  parseVersion,
  VERSION_SOURCES,
  versionEdition,
  versionNumbers,
} from './version.ts';
import { shouldOfferUpdate } from './update-offers.ts';

describe('agent version labels', () => {
  it('keeps the label as the agent writes it, without a leading v or BOM', () => {
    expect(parseVersion('2.1.7-SAC')).toBe('2.1.7-SAC');
    expect(parseVersion(' v1.4.2 ')).toBe('1.4.2');
    expect(parseVersion('\uFEFF2.1.7-SAC\r')).toBe('2.1.7-SAC');
    expect(parseVersion('1.1.2-ipset')).toBe('1.1.2-ipset');
    expect(parseVersion('unknown')).toBeNull();
    expect(parseVersion('')).toBeNull();
    expect(parseVersion('1.2 3')).toBeNull();
    expect(parseVersion(`1.${'9'.repeat(80)}`)).toBeNull();
    expect(versionNumbers('2.1.7-SAC')).toEqual([2, 1, 7]);
    expect(versionEdition('2.1.7-SAC')).toBe('SAC');
    expect(versionEdition('1.3.0.1')).toBe('');
  });

  it('compares the numbers numerically; the same label is the same version', () => {
    expect(compareVersions('2.1.7-SAC', '2.1.7-SAC')).toBe(0);
    expect(compareVersions('2.1.7-sac', 'v2.1.7-SAC')).toBe(0);
    expect(compareVersions('2.1.8-SAC', '2.1.7-SAC')).toBe(1);
    expect(compareVersions('2.1.7-SAC', '2.1.10-SAC')).toBe(-1);
    expect(compareVersions('2.10.0', '2.9.9')).toBe(1);
    expect(compareVersions('1.3.0.1', '1.3.0')).toBe(1);
    expect(compareVersions('2.1.7', '2.1.7.0')).toBe(0);
    expect(compareVersions('unknown', '2.1.7')).toBeNull();
  });

  it('an edition label is not a pre-release: 2.1.7-SAC and 2.1.7 are the same version', () => {
    expect(compareVersions('2.1.7-SAC', '2.1.7')).toBe(0);
    expect(isOutdated('2.1.7-SAC', '2.1.7')).toBe(false);
    expect(isOutdated('2.1.7', '2.1.7-SAC')).toBe(false);
  });

  it('outdated only when older', () => {
    expect(isOutdated('2.1.7-SAC', '2.1.7-SAC')).toBe(false);
    expect(isOutdated('2.1.6-SAC', '2.1.7-SAC')).toBe(true);
    expect(isOutdated('2.1.8-SAC', '2.1.7-SAC')).toBe(false);
    expect(isOutdated('1.0.0', '1.1.2-ipset')).toBe(true);
    expect(isOutdated('unknown', '2.1.7-SAC')).toBe(false);
    expect(isOutdated('2.1.6-SAC', null)).toBe(false);
  });

  it('the poll offers no update to a host at 2.1.7-SAC when 2.1.7-SAC is the latest', () => {
    expect(shouldOfferUpdate('2.1.7-SAC', undefined, '2.1.7-SAC')).toBe(false);
    expect(shouldOfferUpdate('2.1.6-SAC', undefined, '2.1.7-SAC')).toBe(true);
    expect(shouldOfferUpdate('2.1.6-SAC', '2.1.7-SAC', '2.1.7-SAC')).toBe(false);
  });

  it('the highest tag: editions count, release candidates and non-versions do not', () => {
    expect(latestVersion(['v2.1.6-SAC', 'v2.1.7-SAC', 'v2.1.10-SAC', 'v2.2.0-rc.1', 'latest'])).toBe('2.1.10-SAC');
    expect(latestVersion(['v1.0.0', 'v1.1.2-ipset', 'v2.0.0-beta2'])).toBe('1.1.2-ipset');
    expect(latestVersion(['nightly'])).toBeNull();
  });
});

describe('where a repository states its version', () => {
  const read = (path: string, text: string) => VERSION_SOURCES.find((s) => s.path === path)!.read(text);
  it('version.txt: the first non-empty line (Read-VersionLineFromFile)', () => {
    expect(read('version.txt', '2.1.7-SAC\n')).toBe('2.1.7-SAC');
    expect(read('version.txt', '\uFEFF\r\n 2.1.8-SAC \r\n')).toBe('2.1.8-SAC');
    expect(read('version.txt', '\n\n\n2.1.8\n')).toBeNull();
  });
  it("the agents' script variables", () => {
    expect(read('Login_Monitor.ps1', '# comment\n$ScriptVersion = "2.1.7-SAC"\n')).toBe('2.1.7-SAC');
    expect(read('ssh-monitor', '#!/bin/bash\nCONFIG_FILE="/etc/ssh-monitor.conf"\nSSH_MONITOR_VERSION="1.1.2-ipset"\n')).toBe(
      '1.1.2-ipset',
    );
    expect(read('ssh-monitor', 'echo "SSH_MONITOR_VERSION=$SSH_MONITOR_VERSION"\n')).toBeNull();
  });
});
