// The address an enrollment guess is counted under.
import { describe, expect, it } from 'vitest';
import { addressKey } from './enroll-limit.ts';

describe('addressKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['2001:db8:7:9::1', '2001:db8:7:9::/64'],
    ['2001:0db8:0007:0009:aaaa:bbbb:cccc:dddd', '2001:db8:7:9::/64'],
    ['2001:DB8:7:9:1::2', '2001:db8:7:9::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s -> %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });
});
