/**
 * Keeps the API key, and every credential the suite derives from it, out of
 * everything it writes. Evidence is built through a {@link Redactor}, so no
 * reporter has to remember to redact.
 */

/** Placeholder for the API key in evidence; curl commands use the shell variable instead. */
export const KEY_PLACEHOLDER = '<API_KEY>';

/** The environment variable the CLI reads the key from; replay commands expand it. */
export const KEY_ENV = 'PETSTORE_API_KEY';

interface Secret {
  value: string;
  label: string;
}

/** Replaces registered secrets in text. Longest secrets are replaced first. */
export class Redactor {
  #secrets: Secret[] = [];

  /** Registers a secret and the label that replaces it. Empty strings are ignored. */
  add(value: string, label: string): this {
    if (value.length > 0 && !this.#secrets.some((s) => s.value === value)) {
      this.#secrets.push({ value, label });
      this.#secrets.sort((a, b) => b.value.length - a.value.length);
    }
    return this;
  }

  /** `text` with every registered secret replaced by its label. */
  redact(text: string): string {
    let out = text;
    for (const { value, label } of this.#secrets) {
      if (out.includes(value)) out = out.split(value).join(label);
    }
    return out;
  }

  /** True when `text` holds a registered secret. */
  leaks(text: string): boolean {
    return this.#secrets.some(({ value }) => text.includes(value));
  }
}

/**
 * A redactor for `key`: the key itself, its base64 forms as a Basic
 * credential, and the near-miss variants the auth checks send.
 */
export function redactorFor(key: string): Redactor {
  const r = new Redactor();
  if (!key) return r;
  r.add(key, KEY_PLACEHOLDER);
  r.add(Buffer.from(key).toString('base64'), `<base64 of ${KEY_PLACEHOLDER}>`);
  r.add(Buffer.from(`conformance:${key}`).toString('base64'), `<base64 of conformance:${KEY_PLACEHOLDER}>`);
  r.add(encodeURIComponent(key), `<url-encoded ${KEY_PLACEHOLDER}>`);
  if (key.length > 1) r.add(key.slice(0, -1), `<${KEY_PLACEHOLDER} without its last character>`);
  const swapped = swapCase(key);
  if (swapped !== key) r.add(swapped, `<${KEY_PLACEHOLDER} with its letter case swapped>`);
  return r;
}

/** `text` with upper and lower case letters exchanged. */
export function swapCase(text: string): string {
  let out = '';
  for (const ch of text) {
    const upper = ch.toUpperCase();
    out += ch === upper ? ch.toLowerCase() : upper;
  }
  return out;
}
