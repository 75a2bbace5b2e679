import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, splitNdjson } from './ndjson.ts';

async function* chunks(...parts: (string | Buffer)[]) {
  for (const p of parts) yield typeof p === 'string' ? Buffer.from(p) : p;
}
const limits = { maxBytes: 1000, maxLineBytes: 20, maxEvents: 3 };
/** Each line's bytes are exactly its text (what is appended to Kafka); compared as text from here on. */
function asText(r: Awaited<ReturnType<typeof splitNdjson>>) {
  for (const l of r.lines) expect(l.bytes?.toString('utf8')).toBe(l.text);
  return { count: r.count, lines: r.lines.map(({ line, text }) => ({ line, text })) };
}

describe('splitNdjson', () => {
  it('splits on newlines across chunk edges, counts blank lines in the numbering, skips them', async () => {
    const r = await splitNdjson(chunks('{"a":', '1}\n\n  \r\n{"b"', ':2}\r', '\n{"c":3}'), limits);
    expect(asText(r)).toEqual({
      count: 3,
      lines: [
        { line: 1, text: '{"a":1}' },
        { line: 4, text: '{"b":2}\r' },
        { line: 5, text: '{"c":3}' },
      ],
    });
  });

  it('decodes a multi-byte character split between chunks', async () => {
    const bytes = Buffer.from('"é😀"\n');
    const r = await splitNdjson(chunks(bytes.subarray(0, 2), bytes.subarray(2, 5), bytes.subarray(5)), limits);
    expect(asText(r).lines).toEqual([{ line: 1, text: '"é😀"' }]);
  });

  it('never assembles a line over the per-line limit, even spread over many chunks', async () => {
    const long = Array.from({ length: 10 }, () => 'xxxxxxx'); // 70 bytes in 7-byte chunks
    const r = await splitNdjson(chunks('{"ok":1}\n', ...long, '\n{"ok":2}'), limits);
    expect(asText(r)).toEqual({
      count: 3,
      lines: [
        { line: 1, text: '{"ok":1}' },
        { line: 2, text: undefined },
        { line: 3, text: '{"ok":2}' },
      ],
    });
  });

  it('keeps at most maxEvents lines and counts the rest', async () => {
    const r = await splitNdjson(chunks('1\n2\n3\n4\n5\n'), limits);
    expect(r.count).toBe(5);
    expect(r.lines.map((l) => l.text)).toEqual(['1', '2', '3']);
  });

  it('stops reading past maxBytes', async () => {
    let read = 0;
    async function* endless() {
      for (;;) {
        read++;
        yield Buffer.from('{"x":1}\n'.repeat(50)); // 400 bytes
      }
    }
    await expect(splitNdjson(endless(), { ...limits, maxEvents: 10_000 })).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(read).toBe(3);
  });
});
