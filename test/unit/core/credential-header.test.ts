/** Which extra headers carry a credential by their name (core/connection.ts `credentialHeader`), and so are secret headers too. */
import { describe, expect, it } from 'vitest';
import { credentialHeader } from '../../../core/connection.js';
import { withCredentialHeaders } from '../../../suites/credentials.js';

describe('credentialHeader', () => {
  it.each([
    'Cookie',
    'X-Api-Key',
    'api_key',
    'X-Auth-Token',
    'Private-Token',
    'Ocp-Apim-Subscription-Key',
    'X-Amz-Security-Token',
    'X-Goog-Api-Key',
    'XApiKey',
    'AccessToken',
    'X-Client-Secret',
    'X-Session-Id',
    'X-Hub-Signature-256',
    'X-CSRF-Token',
    'X-Vault-Token',
  ])('%s carries a credential', (name) => expect(credentialHeader(name)).toBe(true));

  it.each([
    ...['X-Tenant', 'X-Request-Id', 'Accept-Language', 'X-Forwarded-For', 'X-Trace', 'Cache-Control', 'If-None-Match', 'X-Keyboard'],
    // Names that hold a credential's word without being one (an attack helper's review).
    ...['Idempotency-Key', 'X-Cache-Key', 'X-Routing-Key', 'X-Tokenizer', 'X-Session-Locale'],
  ])('%s does not', (name) => expect(credentialHeader(name)).toBe(false));
});

describe('withCredentialHeaders', () => {
  const base = 'http://127.0.0.1:9/v1';

  it('names every credential header secret whose value can be kept out of the reports, the others as given', () => {
    const connection = {
      headers: { 'x-api-key': 'xk_Hd83JsQpLm7Za91', cookie: 'short', 'x-tenant': 'acme-prod-Qw8', 'x-auth-token': '2024061512' },
    };
    // Too short, or a short number (it occurs in the ids the suite generates): sent and written as given.
    expect(withCredentialHeaders(connection, base)?.secretHeaders).toEqual(['x-api-key']);
  });

  it('keeps the secret headers named already, once each, and changes nothing when none is added', () => {
    const connection = {
      headers: { 'x-api-key': 'xk_Hd83JsQpLm7Za91', 'x-trace': 'Tr4ce-Qv7Wm2Xp' },
      secretHeaders: ['x-api-key', 'x-trace'],
    };
    expect(withCredentialHeaders(connection, base)).toBe(connection);
    expect(withCredentialHeaders(undefined, base)).toBeUndefined();
  });
});
