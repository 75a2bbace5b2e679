import { describe, expect, it } from 'vitest';
import { errorText } from './client';

describe('errorText', () => {
  it('names the failing fields of a 400 VALIDATION_FAILED, at most three', () => {
    const body = {
      error: {
        code: 'VALIDATION_FAILED',
        message: 'invalid body',
        details: [
          { in: 'body', pointer: '/webhook/url', message: 'must match format "uri"' },
          { in: 'body', pointer: '/', message: "must have required property 'channels'", property: 'channels' },
          { in: 'body', pointer: '/', message: 'must NOT have additional properties', property: 'colour' },
          { in: 'body', pointer: '/min_severity', message: 'must be equal to one of the allowed values' },
        ],
      },
    };
    expect(errorText(body)).toBe(
      'invalid body: webhook.url must match format "uri"; must have required property \'channels\'; ' +
        'must NOT have additional properties: colour (and 1 more)',
    );
  });

  it('keeps the message of other errors and falls back when there is none', () => {
    expect(errorText({ error: { code: 'CONFLICT', message: 'problem already resolved' } })).toBe('problem already resolved');
    expect(errorText({ error: { code: 'VALIDATION_FAILED', message: 'invalid query', details: [] } })).toBe('invalid query');
    expect(errorText(undefined, 'Could not save')).toBe('Could not save');
    expect(errorText('<html>bad gateway</html>', 'Could not save')).toBe('Could not save');
  });
});
