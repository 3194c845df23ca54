/**
 * Keeps the API key, and every other secret, out of everything the suite
 * writes: the face of core/redact/ (the scanner and its parts) and of the
 * key's table (core/key.ts).
 *
 * One order everywhere: decode → redact the whole text → escape → truncate.
 * `Redactor.redact` is the only way to make a {@link Redacted} string;
 * {@link escapeJson} and {@link truncate} take one and give one, so text is
 * never cut or escaped before it was redacted (the compiler keeps the order),
 * and report fields that require `Redacted` cannot be filled with raw text.
 *
 * Every secret is registered the same way, `Redactor.add(secret)`: the key
 * ({@link keySecret}, its forms read from the auth checks' table), each
 * secret header's value, a proxy password, each value a config file took from
 * the environment (core/connection.ts `connectionSecrets`).
 *
 * Server text may be put into a message whole, as an *excerpt* ({@link excerpt}):
 * it is redacted, escaped and cut only when the message is redacted.
 */
import { AUTH_FORMS, keySecret, MIN_KEY_LENGTH } from './key.js';
import { Redactor, type RedactorOptions } from './redact/redactor.js';
import type { Redacted, Secret } from './redact/types.js';

export { excerpt, holdsExcerpt } from './excerpt.js';
export {
  AUTH_FORMS,
  type AuthForm,
  type AuthKind,
  basicCredentials,
  bearer,
  checkApiKey,
  KEY_ENV,
  KEY_PLACEHOLDER,
  KEY_REQUIRED,
  keyProblem,
  keySecret,
  LETTERLESS_STAND_IN,
  MAX_KEY_LENGTH,
  MIN_KEY_LENGTH,
  swapCase,
} from './key.js';
export { type RegisteredForm, Redactor, type RedactorOptions, registeredForms } from './redact/redactor.js';
export { escapeJson, joinRedacted, truncate } from './redact/text.js';
export { FRAGMENT, labelsOf, plainSecret, type Redacted, type Secret, type SecretForm, suiteText } from './redact/types.js';

/** A redactor of `secrets`, each registered the one way ({@link Redactor.add}). */
export function redactorOf(secrets: Iterable<Secret>, options: RedactorOptions = {}): Redactor {
  const r = new Redactor(options);
  for (const secret of secrets) r.add(secret);
  return r;
}

/** A redactor for `key` in every form {@link keySecret} derives from it. */
export function redactorFor(key: string): Redactor {
  return key ? redactorOf([keySecret(key)]) : new Redactor();
}

/**
 * A redactor for several keys at once (the CLI's error path, which may know
 * more than one). Keys shorter than {@link MIN_KEY_LENGTH}, which are refused
 * before they are used, are left out: they would be found in any text.
 */
export function redactorForAll(keys: readonly (string | undefined)[]): Redactor {
  return redactorOf(keys.flatMap((key) => (key && key.length >= MIN_KEY_LENGTH ? [keySecret(key)] : [])));
}

/**
 * Every labelled form of an Authorization header the suite can send with
 * `key` (the rows of {@link AUTH_FORMS} that carry it): the redacted header
 * value, and the value itself. Replay uses it to put the key back exactly
 * where a recorded request had its placeholder, and nowhere else.
 */
export function authorizationForms(key: string, redactor: Redactor = redactorFor(key)): [redacted: Redacted, value: string][] {
  return AUTH_FORMS.filter((form) => form.carries !== undefined).map((form) => {
    const value = form.value(key, 0);
    return [redactor.redact(value), value];
  });
}
