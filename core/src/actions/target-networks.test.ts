// The target-network rule of remote actions: every resolved address inside a listed network, loopback
// and the other special ranges only when listed explicitly, "every address" only from the environment.
import { describe, expect, it } from 'vitest';
import { addressRefusal, parseNetwork, resolveActionTarget, targetNetworksError, type LookupAll } from './target-networks.ts';

const dns =
  (table: Record<string, string[]>): LookupAll =>
  async (name) => {
    const found = table[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('target networks', () => {
  it('parses CIDRs and bare addresses; refuses anything else', () => {
    expect(parseNetwork('10.20.0.0/16')).toMatchObject({ family: 'ipv4', prefix: 16 });
    expect(parseNetwork(' fd00::/8 ')).toMatchObject({ family: 'ipv6', prefix: 8, text: 'fd00::/8' });
    expect(parseNetwork('192.0.2.7')).toMatchObject({ prefix: 32 });
    for (const bad of ['10.0.0.0/33', '10.0.0/8', 'example.org', '10.0.0.0/8/1', '::/129', '', '10.0.0.0/x'])
      expect(parseNetwork(bad), bad).toBeNull();
  });

  it('the API may not widen the list to every address; the environment may', () => {
    expect(targetNetworksError(['10.0.0.0/8', 'fd00::/8'], { fromApi: true })).toBeNull();
    expect(targetNetworksError(['0.0.0.0/0'], { fromApi: true })).toMatch(/every address/);
    expect(targetNetworksError(['10.0.0.0/8', '::/0'], { fromApi: true })).toMatch(/"::\/0" would let remote actions/);
    expect(targetNetworksError(['0.0.0.0/0'], { fromApi: false })).toBeNull();
    expect(targetNetworksError(['intranet'], { fromApi: true })).toMatch(/"intranet" is not a network/);
  });

  it('an address outside every network is refused', () => {
    expect(addressRefusal('10.1.2.3', ['10.0.0.0/8'])).toBeNull();
    expect(addressRefusal('192.168.1.1', ['10.0.0.0/8'])).toMatch(/lies outside the target networks \(10\.0\.0\.0\/8\)/);
    expect(addressRefusal('fd00::5', ['10.0.0.0/8', 'fd00::/8'])).toBeNull();
    expect(addressRefusal('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBeNull();
  });

  it('loopback, link-local, unspecified and multicast only when a network inside that range is listed', () => {
    // Inside a wide network that does not name them: refused.
    expect(addressRefusal('127.0.0.1', ['0.0.0.0/0'])).toMatch(/is a loopback address, allowed only when .* 127\.0\.0\.0\/8/);
    expect(addressRefusal('169.254.169.254', ['0.0.0.0/0'])).toMatch(/link-local/);
    expect(addressRefusal('0.0.0.0', ['0.0.0.0/0'])).toMatch(/unspecified/);
    expect(addressRefusal('224.0.0.1', ['0.0.0.0/0'])).toMatch(/multicast/);
    expect(addressRefusal('::1', ['::/0'])).toMatch(/loopback/);
    expect(addressRefusal('fe80::1', ['::/0'])).toMatch(/link-local/);
    expect(addressRefusal('::ffff:127.0.0.1', ['0.0.0.0/0'])).toMatch(/loopback/);
    // Listed explicitly: allowed.
    expect(addressRefusal('127.0.0.1', ['127.0.0.0/8'])).toBeNull();
    expect(addressRefusal('127.0.0.1', ['127.0.0.1/32'])).toBeNull();
    expect(addressRefusal('::1', ['::1'])).toBeNull();
    expect(addressRefusal('169.254.10.1', ['169.254.10.0/24'])).toBeNull();
  });

  it('resolves once, checks every address, and returns the checked one to connect to', async () => {
    const lookup = dns({
      'win-01.corp': ['10.1.0.5', '10.1.0.6'],
      'split.corp': ['10.1.0.7', '203.0.113.9'],
      'evil.example': ['127.0.0.1'],
    });
    expect(await resolveActionTarget('win-01.corp', ['10.0.0.0/8'], lookup)).toEqual({
      ok: true,
      ip: '10.1.0.5',
      addresses: ['10.1.0.5', '10.1.0.6'],
    });
    const split = await resolveActionTarget('split.corp', ['10.0.0.0/8'], lookup);
    expect(split).toEqual({
      ok: false,
      reason: expect.stringMatching(/^split\.corp resolves to 203\.0\.113\.9, which lies outside/),
    });
    const loop = await resolveActionTarget('evil.example', ['10.0.0.0/8'], lookup);
    expect(loop).toMatchObject({ ok: false, reason: expect.stringMatching(/evil\.example resolves to 127\.0\.0\.1/) });
    expect(await resolveActionTarget('nowhere.corp', ['10.0.0.0/8'], lookup)).toEqual({
      ok: false,
      reason: 'nowhere.corp does not resolve (ENOTFOUND)',
    });
    expect(await resolveActionTarget('10.1.0.5', [], lookup)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no target networks are set.*Settings → Remote access/),
    });
  });

  it('uses the system resolver by default (an IP literal resolves to itself)', async () => {
    expect(await resolveActionTarget('127.0.0.1', ['127.0.0.0/8'])).toMatchObject({ ok: true, ip: '127.0.0.1' });
    expect(await resolveActionTarget('localhost', ['10.0.0.0/8'])).toMatchObject({ ok: false });
  });
});
