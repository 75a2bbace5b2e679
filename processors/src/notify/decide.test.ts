// Agent-sent report HTML is sanitised (sanitize-html) before it is queued for e-mail.
import { describe, expect, it } from 'vitest';
import { sanitizeReportHtml } from './decide.ts';

describe('agent report HTML', () => {
  it('keeps the report and drops scripts, handlers, styles, images and javascript: links', () => {
    const out = sanitizeReportHtml(
      '<h1>SSH report</h1><table><tr><th>host</th><td onclick="x()">web-01</td></tr></table>' +
        '<script>alert(1)</script><style>body{}</style><img src=x onerror=alert(1)>' +
        '<a href="javascript:alert(1)">bad</a><a href="https://example.org/r">ok</a><iframe src="https://evil"></iframe>',
    );
    expect(out).toContain('<h1>SSH report</h1>');
    expect(out).toContain('<td>web-01</td>');
    expect(out).toContain('<a href="https://example.org/r">ok</a>');
    for (const bad of ['<script', 'alert(1)', 'onclick', 'onerror', '<img', '<style', 'javascript:', '<iframe'])
      expect(out).not.toContain(bad);
  });

  it('bounds the size', () => {
    expect(sanitizeReportHtml(`<p>${'a'.repeat(1_000_000)}</p>`).length).toBeLessThanOrEqual(256 * 1024 + 10);
  });
});
