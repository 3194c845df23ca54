import { describe, expect, it } from 'vitest';
import { apiKeyOf } from '../../../cli/env.js';

describe('apiKeyOf: how every command reads the key', () => {
  it('takes the flag over the environment, the environment when no flag, and nothing from an empty variable', () => {
    expect(apiKeyOf('from-flag-1234', { PETSTORE_API_KEY: 'from-env-1234' })).toBe('from-flag-1234');
    expect(apiKeyOf(undefined, { PETSTORE_API_KEY: 'from-env-1234' })).toBe('from-env-1234');
    expect(apiKeyOf(undefined, { PETSTORE_API_KEY: '' })).toBeUndefined();
    expect(apiKeyOf(undefined, {})).toBeUndefined();
    // An empty flag is the user's value: the key check refuses it later, with its own message.
    expect(apiKeyOf('', { PETSTORE_API_KEY: 'from-env-1234' })).toBe('');
  });
});
