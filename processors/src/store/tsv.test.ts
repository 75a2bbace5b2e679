import { describe, expect, it } from 'vitest';
import { rowToTsv, tsvString, tsvStringArray } from './tsv.ts';
import { envelopeToRow } from './rows.ts';
import { makeEnvelope } from '@watchpost/testkit';

describe('tsvString', () => {
  it.each([
    ['plain', 'plain'],
    ['a\tb', 'a\\tb'],
    ['line1\nline2\r\n', 'line1\\nline2\\r\\n'],
    ['back\\slash', 'back\\\\slash'],
    ['nul\0bs\bff\f', 'nul\\0bs\\bff\\f'],
    ['quote \' and " stay', 'quote \' and " stay'],
    ['\\t literal', '\\\\t literal'],
  ])('%j -> %j', (input, out) => expect(tsvString(input)).toBe(out));
});

describe('tsvStringArray', () => {
  it.each([
    [[], '[]'],
    [['a', 'b'], "['a','b']"],
    [["it's", 'tab\there', 'nl\n', 'back\\'], "['it\\'s','tab\\there','nl\\n','back\\\\']"],
  ])('%j -> %s', (items, out) => expect(tsvStringArray(items)).toBe(out));
});

describe('rowToTsv', () => {
  it('writes one line of 23 fields whatever the content', () => {
    const row = envelopeToRow(makeEnvelope({ title: 'a\tb\nc', summary: '\r\n\\' }));
    const line = rowToTsv(row);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/\n/);
    expect(line.split('\t')).toHaveLength(23);
  });
});
