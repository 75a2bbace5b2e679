import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { accountPart, gatewayAddress, parseSessionId, validBranch, validHostAddress, validUserName } from './validate.ts';
import { isOutdated, latestVersion, tagsFromLsRemote } from './version.ts';
import { checkGitUrl, displayGitUrl, GIT_CREDENTIALS_HINT } from './git-url.ts';

describe('input checks', () => {
  it.each([
    ['2', 2],
    [3, 3],
    [' 17 ', null],
    ['65535', 65535],
    ['65536', null],
    ['-1', null],
    ['1.5', null],
    ['1e3', null],
    ['2; logoff 3', null],
    ['0x10', null],
    ['', null],
    [null, null],
  ])('session id %j -> %j', (v, want) => expect(parseSessionId(v)).toBe(want));

  it.each([
    ['alice', 'alice'],
    ['CORP\\alice.smith', 'CORP\\alice.smith'],
    ['svc_backup', 'svc_backup'],
    ['John Smith', 'John Smith'],
    ['alice"', null],
    ["o'brien", null],
    ['a;b', null],
    ['$(id)', null],
    ['a\nb', null],
    ['x\\y\\z', null],
    ['', null],
    ['a'.repeat(65), null],
    ['alice\u2019', null],
  ])('user %j -> %j', (v, want) => expect(validUserName(v)).toBe(want));

  it('account part of DOMAIN\\user and user@domain', () => {
    expect(accountPart('CORP\\alice')).toBe('alice');
    expect(accountPart('alice@corp.example')).toBe('alice');
    expect(accountPart('alice')).toBe('alice');
  });

  it.each([
    ['srv-01.corp.example', 'srv-01.corp.example'],
    ['10.0.0.5', '10.0.0.5'],
    ['::1', '::1'],
    ['fe80::1', 'fe80::1'],
    ['999.1.1.1', null],
    ['host name', null],
    ['host;id', null],
    ['-oProxyCommand=id', null],
    ['http://x', null],
    ['a..b', null],
    ['', null],
  ])('host address %j -> %j', (v, want) => expect(validHostAddress(v)).toBe(want));

  it.each([
    ['main', 'main'],
    ['release/1.x', 'release/1.x'],
    ['-b', null],
    ['a..b', null],
    ['x.lock', null],
    ['a b', null],
    ['$(id)', null],
  ])('branch %j -> %j', (v, want) => expect(validBranch(v)).toBe(want));

  it('no generated string with shell metacharacters passes the user, host or branch check', () => {
    const meta = fc.constantFrom("'", '"', '`', '$', ';', '|', '&', '\n', '\0', '<', '>', '\u2019', '(', ')');
    fc.assert(
      fc.property(fc.string(), meta, fc.string(), (a, m, b) => {
        const s = `${a}${m}${b}`;
        expect(validUserName(s)).toBeNull();
        expect(validHostAddress(s)).toBeNull();
        expect(validBranch(s)).toBeNull();
      }),
      { numRuns: 3000 },
    );
  });
});

describe('versions', () => {
  it('latest release among tags in semver order, pre-releases and non-versions ignored', () => {
    expect(latestVersion(['v1.2.0', 'v1.10.0', 'v1.9.9', 'v2.0.0-rc.1', 'latest', '1.3.0'])).toBe('1.10.0');
    expect(latestVersion(['nightly'])).toBeNull();
  });
  it('outdated only when both versions are known and the agent is older', () => {
    expect(isOutdated('1.2.0', '1.10.0')).toBe(true);
    expect(isOutdated('v1.10.0', '1.10.0')).toBe(false);
    expect(isOutdated('1.11.0', '1.10.0')).toBe(false);
    expect(isOutdated('unknown', '1.10.0')).toBe(false);
    expect(isOutdated('1.2.0', null)).toBe(false);
  });
  it('tags from ls-remote output, peeled lines folded', () => {
    const out = 'abc\trefs/tags/v1.0.0\nabd\trefs/tags/v1.0.0^{}\nabe\trefs/heads/main\nabf\trefs/tags/v1.1.0\n';
    expect(tagsFromLsRemote(out)).toEqual(['v1.0.0', 'v1.1.0']);
  });
});

describe('gateway addresses', () => {
  it.each([
    ['10.0.0.5', '10.0.0.5'],
    ['10.0.0.5:3389', '10.0.0.5'],
    ['ws01.corp.example:3389', 'ws01.corp.example'],
    ['ws01', 'ws01'],
    ['fe80::1', 'fe80::1'],
    ['2001:db8::10', '2001:db8::10'],
    ['[2001:db8::10]', '2001:db8::10'],
    ['[2001:db8::10]:3389', '2001:db8::10'],
    [' 10.0.0.5 ', '10.0.0.5'],
    ['ws-01.corp.example.', 'ws-01.corp.example'],
    ['WS-01.corp.example.:3389', 'WS-01.corp.example'],
    ['WS-01', 'WS-01'],
  ])('%j -> %j', (raw, host) => expect(gatewayAddress(raw)).toBe(host));
});

describe('git URLs', () => {
  it.each([
    ['https://git.example/agents/ssh-monitor.git', true],
    ['ssh://git@git.example/agents/ssh-monitor.git', true],
    ['file:///srv/git/agent.git', false],
    ['git@git.example:agents/x.git', false],
    ['ext::sh -c id', false],
    ['http://git.example/x.git', false],
    ['https://user:secret@git.example/x.git', false],
    ['-uhttps://x', false],
    ['https://git.example/x.git\n', true],
    ['https://git.example/x y.git', false],
    ['ssh://-oProxyCommand=touch%20pwned/x', false],
    ['ssh://-oProxyCommand=id@git.example/x.git', false],
    ['ssh://%2DoProxyCommand=id@git.example/x.git', false],
    ['ssh://%2DoProxyCommand=id/x', false],
    ['ssh://git@%2DoProxyCommand=id/x', false],
    ['ssh://%E0%A4%A@git.example/x.git', false],
    ['ssh://git%0A@git.example/x.git', false],
    ['ssh://deploy.bot@git.example:2222/x.git', true],
  ])('%j allowed: %j', (u, ok) => expect(checkGitUrl(u, { allowFile: false }).ok).toBe(ok));
  it('file URLs only when enabled', () => {
    expect(checkGitUrl('file:///srv/git/agent.git', { allowFile: true }).ok).toBe(true);
  });

  it.each([
    'https://ghp_0123456789abcdefABCDEF0123456789abcd@github.com/PTah/ssh-monitor.git',
    'https://x-access-token@github.com/PTah/ssh-monitor.git',
    'https://user:secret@git.example/x.git',
    'https://%74oken@git.example/x.git',
    'ssh://git:secret@git.example/x.git',
  ])('refuses credentials in %s, says where they go, never quotes them', (u) => {
    const r = checkGitUrl(u, { allowFile: true });
    expect(r.ok).toBe(false);
    const reason = (r as { reason: string }).reason;
    expect(reason).toMatch(/not allowed/);
    expect(reason).toContain(GIT_CREDENTIALS_HINT);
    expect(reason).toMatch(/credential helper/);
    for (const secret of ['ghp_', 'x-access-token', 'secret', 'token@', '%74oken']) expect(reason).not.toContain(secret);
  });

  it('an ssh:// URL keeps its login name (git@): it is no secret', () => {
    expect(checkGitUrl('ssh://git@github.com/PTah/ssh-monitor.git', { allowFile: false })).toEqual({
      ok: true,
      url: 'ssh://git@github.com/PTah/ssh-monitor.git',
    });
  });

  it.each([
    ['https://ghp_secret@github.com/PTah/x.git', 'https://github.com/PTah/x.git'],
    ['https://user:pw@git.example/x.git', 'https://git.example/x.git'],
    ['ssh://git:pw@git.example/x.git', 'ssh://git@git.example/x.git'],
    ['ssh://git@git.example/x.git', 'ssh://git@git.example/x.git'],
    ['https://git.example/x.git', 'https://git.example/x.git'],
    ['file://tok@localhost/srv/x.git', 'file://localhost/srv/x.git'],
    ['token@git.example:org/x.git', 'git.example:org/x.git'],
    ['', ''],
  ])('displayGitUrl(%j) = %j', (raw, shown) => expect(displayGitUrl(raw)).toBe(shown));
});
