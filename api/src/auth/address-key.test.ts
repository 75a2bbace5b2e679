// The address a login or enrollment guess is counted under: IPv4 (also IPv4-mapped) by the address,
// IPv6 by its /64.
import { describe, expect, it } from 'vitest';
import { addressKey } from './address-key.ts';
import { rateLimitJobId } from './login-limit.ts';

describe('addressKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['::FFFF:198.51.100.7', '198.51.100.7'],
    ['0:0:0:0:0:ffff:c633:6407', '198.51.100.7'],
    ['::ffff:c633:6407', '198.51.100.7'],
    ['2001:db8:7:9::1', '2001:db8:7:9::/64'],
    ['2001:0db8:0007:0009:aaaa:bbbb:cccc:dddd', '2001:db8:7:9::/64'],
    ['2001:DB8:7:9:1::2', '2001:db8:7:9::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['2001:db8:7::9:1:2:3', '2001:db8:7:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    // An embedded dotted IPv4 tail is two groups: the prefix is the first four groups still.
    ['::1:2:3:4:1.2.3.4', '0:0:1:2::/64'],
    ['64:ff9b::198.51.100.7', '64:ff9b:0:0::/64'],
    ['not an address', 'not an address'],
    ['', ''],
  ])('%s -> %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });

  it('every address of one /64 is one key; the neighbouring /64 is another', () => {
    const keys = new Set(['2001:db8:7:9::1', '2001:db8:7:9:ffff:ffff:ffff:ffff', '2001:db8:7:9:1234::abcd'].map(addressKey));
    expect([...keys]).toEqual(['2001:db8:7:9::/64']);
    expect(addressKey('2001:db8:7:a::1')).not.toBe(addressKey('2001:db8:7:9::1'));
  });

  it('is idempotent (enrollment counts the key itself)', () => {
    for (const ip of ['198.51.100.7', '::ffff:198.51.100.7', '2001:db8:7:9::1'])
      expect(addressKey(addressKey(ip))).toBe(addressKey(ip));
  });
});

describe('login limits count an IPv6 client by its /64', () => {
  const at = Date.UTC(2026, 0, 1);
  const id = (address: string) => rateLimitJobId({ username: 'alice', address }, at, 900);

  it('a lockout of two addresses in one /64 is one lockout; IPv4 and IPv4-mapped are one client', () => {
    expect(id('2001:db8:7:9::1')).toBe(id('2001:db8:7:9:dead:beef:0:1'));
    expect(id('2001:db8:7:9::1')).not.toBe(id('2001:db8:7:8::1'));
    expect(id('198.51.100.7')).toBe(id('::ffff:198.51.100.7'));
    expect(id('198.51.100.7')).not.toBe(id('198.51.100.8'));
  });
});
