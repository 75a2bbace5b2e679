import { describe, expect, it } from 'vitest';
import { describeError, isDataError, isTransientError } from './failures.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('error classes', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED')],
    ['connection reset', withCode('ECONNRESET')],
    ['deadlock', withCode('40P01', 'deadlock detected')],
    ['serialization failure', withCode('40001')],
    ['admin shutdown', withCode('57P01', 'terminating connection due to administrator command')],
    ['statement timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['too many connections', withCode('53300')],
    ['pg client end', new Error('Connection terminated unexpectedly')],
    ['kafkajs retriable', Object.assign(new Error('broker not available'), { retriable: true })],
    ['ClickHouse timeout', new Error('Timeout error.')],
    ['wrapped', Object.assign(new Error('insert failed'), { cause: withCode('ECONNREFUSED') })],
  ])('%s is transient', (_n, err) => expect(isTransientError(err)).toBe(true));

  it.each([
    ['NUL byte', withCode('22021', 'invalid byte sequence for encoding "UTF8": 0x00')],
    ['lone surrogate in jsonb', withCode('22P05', 'unsupported Unicode escape sequence')],
    ['index row too big', withCode('54000', 'index row size 3160 exceeds btree version 4 maximum 2704')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['unique violation', withCode('23505', 'duplicate key value')],
  ])('%s is not transient', (_n, err) => expect(isTransientError(err)).toBe(false));

  it('knows data errors and describes errors in one line', () => {
    expect(isDataError(withCode('22021'))).toBe(true);
    expect(isDataError(withCode('54000'))).toBe(true);
    expect(isDataError(new TypeError('x'))).toBe(false);
    expect(isDataError(withCode('23505'))).toBe(false);
    expect(describeError(withCode('22021', 'bad byte'))).toBe('22021: bad byte');
    expect(describeError('plain')).toBe('plain');
  });
});
