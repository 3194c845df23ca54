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

/**
 * Replaces registered secrets in text, in one pass: where secrets overlap, the
 * longest wins, and a label put in is never redacted again (so the labels of
 * a key come out the same whatever the key, even for the placeholder itself:
 * verify relies on it to match a replay's headers with a transcript's).
 */
export class Redactor {
  #secrets: Secret[] = [];
  #pattern: { regex: RegExp; labels: Map<string, string> } | undefined;

  /** Registers a secret and the label that replaces it. Empty strings are ignored. */
  add(value: string, label: string): this {
    if (value.length > 0 && !this.#secrets.some((s) => s.value === value)) {
      this.#secrets.push({ value, label });
      this.#secrets.sort((a, b) => b.value.length - a.value.length);
      this.#pattern = undefined;
    }
    return this;
  }

  /** `text` with every registered secret replaced by its label. */
  redact(text: string): string {
    if (this.#secrets.length === 0 || !this.leaks(text)) return text;
    // Alternatives in order of length: at each position the longest secret that matches is taken.
    this.#pattern ??= {
      regex: new RegExp(this.#secrets.map((s) => s.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g'),
      labels: new Map(this.#secrets.map((s) => [s.value, s.label])),
    };
    const { regex, labels } = this.#pattern;
    return text.replace(regex, (match) => labels.get(match) ?? match);
  }

  /** True when `text` holds a registered secret. */
  leaks(text: string): boolean {
    return this.#secrets.some(({ value }) => text.includes(value));
  }
}

/**
 * The key and every credential the suite derives from it, with the label that
 * stands for each in evidence: the key itself, its base64 forms as a Basic
 * credential, its URL-encoded form, and the near-miss variants the auth checks send.
 */
export function keyDerivatives(key: string): [value: string, label: string][] {
  if (!key) return [];
  const out: [string, string][] = [
    [key, KEY_PLACEHOLDER],
    [Buffer.from(key).toString('base64'), `<base64 of ${KEY_PLACEHOLDER}>`],
    [Buffer.from(`conformance:${key}`).toString('base64'), `<base64 of conformance:${KEY_PLACEHOLDER}>`],
    [encodeURIComponent(key), `<url-encoded ${KEY_PLACEHOLDER}>`],
  ];
  if (key.length > 1) out.push([key.slice(0, -1), `<${KEY_PLACEHOLDER} without its last character>`]);
  const swapped = swapCase(key);
  if (swapped !== key) out.push([swapped, `<${KEY_PLACEHOLDER} with its letter case swapped>`]);
  return out;
}

/** A redactor for `key` and everything {@link keyDerivatives} derives from it. */
export function redactorFor(key: string): Redactor {
  const r = new Redactor();
  for (const [value, label] of keyDerivatives(key)) r.add(value, label);
  return r;
}

/** The reverse of {@link redactorFor}: labels back to the values they stand for (to re-send a recorded request). */
export function unredact(text: string, key: string): string {
  let out = text;
  for (const [value, label] of keyDerivatives(key).sort((a, b) => b[1].length - a[1].length)) out = out.split(label).join(value);
  return out;
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
