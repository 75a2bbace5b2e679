// The SSRF guard's verdicts: addresses that are not globally routable are refused (literal, resolved,
// v4-mapped) unless allow-listed; a list saved through the API opens private addresses only.
// deliver/ssrf.test.ts checks that a refused URL is never connected to.
import { describe, expect, it } from 'vitest';
import { refusal } from './ssrf.ts';

describe('SSRF guard', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['127.1.2.3', /loopback/],
    ['::1', /loopback/],
    ['0.0.0.0', /unspecified/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /linkLocal/],
    ['fe80::1', /linkLocal/],
    ['fd00::1', /uniqueLocal/],
    ['100.64.0.1', /carrierGradeNat/],
    ['224.0.0.1', /multicast/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:169.254.169.254', /linkLocal/],
    ['::7f00:1', /IPv4-compatible/],
    ['::a9fe:a9fe', /IPv4-compatible/],
    ['64:ff9b::7f00:1', /rfc6052/],
    ['2002:7f00:1::', /6to4/],
  ])('refuses %s', (ip, why) => {
    expect(refusal(ip, [])).toMatch(why);
  });

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8'])('lets the public address %s through', (ip) => {
    expect(refusal(ip, [])).toBeNull();
  });

  it('an allow list of addresses or CIDRs opens exactly those', () => {
    expect(refusal('10.1.2.3', ['10.0.0.0/8'])).toBeNull();
    expect(refusal('10.1.2.3', ['10.9.9.9'])).toMatch(/private/);
    expect(refusal('127.0.0.1', ['127.0.0.1'])).toBeNull();
    expect(refusal('::1', ['127.0.0.0/8'])).toMatch(/loopback/);
  });

  it('a list saved through the API opens private addresses only, whatever it says (issue 21)', () => {
    const admin = (list: string[]) => ({ environment: [], admin: list });
    expect(refusal('10.1.2.3', admin(['10.0.0.0/8']))).toBeNull();
    expect(refusal('fd12::5', admin(['fd12::/16']))).toBeNull();
    for (const ip of ['127.0.0.1', '::1', '169.254.169.254', 'fe80::1', '0.0.0.0', '100.100.100.200', 'fd00:ec2::254'])
      expect(refusal(ip, admin(['0.0.0.0/0', '::/0', ip])), ip).toMatch(/opens private addresses only/);
    // A name on the saved list may resolve to a private address, never to loopback.
    expect(refusal('192.168.1.5', admin([]), true)).toBeNull();
    expect(refusal('127.0.0.1', admin([]), true)).toMatch(/loopback address \(an allow list saved through the API/);
    // The environment's list opens what it names.
    expect(refusal('127.0.0.1', { environment: ['127.0.0.1'], admin: [] })).toBeNull();
  });
});
