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
      'Webhook URL: must be a full URL (https://…); Channels: is required; Colour: is not a known field (and 1 more)',
    );
  });

  it('says the bounds, lengths and types of fields in words (no validator jargon)', () => {
    const one = (pointer: string, message: string, property?: string) =>
      errorText({ error: { code: 'VALIDATION_FAILED', message: 'invalid body', details: [{ pointer, message, property }] } });
    expect(one('/port', 'must be <= 65535')).toBe('Port: must be at most 65535');
    expect(one('/port', 'must be >= 1')).toBe('Port: must be at least 1');
    expect(one('/port', 'must be integer')).toBe('Port: must be a whole number');
    expect(one('/password', 'must NOT have fewer than 12 characters')).toBe('Password: must have at least 12 characters');
    expect(one('/networks', 'must NOT have more than 256 items')).toBe('Networks: must have at most 256 items');
    expect(one('/networks/3', 'must NOT have more than 64 characters')).toBe('Networks item 4: must have at most 64 characters');
    expect(one('/git_url', 'must match pattern "^https"')).toBe('Git URL: is not in the expected form');
    expect(one('/smtp_host', 'must be string')).toBe('SMTP host: must be text');
    expect(one('/', 'must be object')).toBe('Must be a set of fields');
    expect(one('/min_severity', 'must be equal to one of the allowed values')).toBe(
      'Min severity: is not one of the allowed values',
    );
  });

  it('keeps the message of other errors and falls back when there is none', () => {
    expect(errorText({ error: { code: 'CONFLICT', message: 'problem already resolved' } })).toBe('problem already resolved');
    expect(errorText({ error: { code: 'VALIDATION_FAILED', message: 'invalid query', details: [] } })).toBe('invalid query');
    expect(errorText(undefined, 'Could not save')).toBe('Could not save');
    expect(errorText('<html>bad gateway</html>', 'Could not save')).toBe('Could not save');
  });
});
