/**
 * What the redactor takes and gives: a {@link Secret} to register, and
 * {@link Redacted} text. The labels that stand for a secret's forms are
 * worded here, once, from its placeholder.
 */

declare const REDACTED: unique symbol;
/** Text that went through a `Redactor`: it holds no registered secret in any form the scanner knows. */
export type Redacted = string & { readonly [REDACTED]: true };

/** Text the suite wrote itself, holding nothing from outside (a constant, a number). Use sparingly. */
export function suiteText(text: string): Redacted {
  return text as Redacted;
}

/** Characters of a secret that make a piece worth hiding: any piece this long is replaced, wherever it is. */
export const FRAGMENT = 8;

/** Shortest form looked for in any text: a shorter one would be found in ordinary words everywhere. */
export const SHORTEST_FORM = 4;

/** One value a secret is sent as, and the label that stands for it. */
export interface SecretForm {
  value: string;
  label: string;
  /** Only the whole counts, never a piece: an encoded credential, whose pieces are ordinary base64. */
  wholeOnly?: boolean;
  /**
   * What precedes it where it is sent (`Bearer `): a form shorter than
   * {@link SHORTEST_FORM} is not looked for anywhere, but that text with it
   * (`Bearer abc`), when it is all a text holds, is replaced (`Bearer <label>`).
   */
  sentAfter?: string;
}

/**
 * A secret to keep out of everything the suite writes: what stands for it
 * (`<API_KEY>`, `<secret x-trace>`), and the values it is sent as, the first
 * the secret itself (labelled with the placeholder), then the variants the
 * suite sends (the key's near misses). A redactor finds each form as it is,
 * case-folded, in pieces of {@link FRAGMENT} characters (unless `wholeOnly`),
 * and in every encoding it decodes (core/redact/redactor.ts).
 */
export interface Secret {
  placeholder: string;
  forms: readonly SecretForm[];
}

/**
 * A secret sent as it is, and only so (a secret header's value, a proxy password): looked for as it is, case-folded
 * (as every form is) and with its letter case swapped, as the key is, which a server may echo any secret in.
 */
export function plainSecret(value: string, placeholder: string): Secret {
  const swapped = swapCase(value);
  return {
    placeholder,
    forms: [{ value, label: placeholder }, ...(swapped === value ? [] : [{ value: swapped, label: swappedLabel(placeholder) }])],
  };
}

/** The label of a secret with its letter case swapped: `<<secret x-trace> with its letter case swapped>`. */
export function swappedLabel(placeholder: string): string {
  return `<${placeholder} with its letter case swapped>`;
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

/** How a letter case is folded: as a server may fold any text, and as HTTP folds a header name (ASCII letters only). */
export const FOLDS: readonly { name: 'lower' | 'upper'; fold: (text: string) => string }[] = [
  { name: 'lower', fold: (text) => text.toLowerCase() },
  { name: 'upper', fold: (text) => text.toUpperCase() },
  { name: 'lower', fold: (text) => text.replace(/[A-Z]+/g, (m) => m.toLowerCase()) },
  { name: 'upper', fold: (text) => text.replace(/[a-z]+/g, (m) => m.toUpperCase()) },
  // As a server in a Turkish or Azeri locale folds: I to ı, i to İ (a fold equal to one above is registered once).
  { name: 'lower', fold: (text) => text.toLocaleLowerCase('tr') },
  { name: 'upper', fold: (text) => text.toLocaleUpperCase('tr') },
];

/** The label of a form folded to `which` case: `<<API_KEY> in lower case>`, `<<API_KEY> without its last character, in lower case>`. */
export function foldLabel(label: string, placeholder: string, which: 'lower' | 'upper'): string {
  return label === placeholder ? `<${placeholder} in ${which} case>` : `${label.slice(0, -1)}, in ${which} case>`;
}

/** The label of a piece of a secret: `<part of <API_KEY>>`. */
export function pieceLabel(placeholder: string): string {
  return `<part of ${placeholder}>`;
}

/** The label of a base64 run holding a secret's bytes, when what it decodes to cannot be shown: `<base64 holding <API_KEY>>`. */
export function base64Label(placeholder: string): string {
  return `<base64 holding ${placeholder}>`;
}

/** The label of the hex of a form's bytes: `<hex of <API_KEY>>`. */
export function hexLabel(label: string): string {
  return `<hex of ${label}>`;
}

/** The label of a secret's bytes written as one number: `<number holding <API_KEY>>`. */
export function numberLabel(placeholder: string): string {
  return `<number holding ${placeholder}>`;
}

/** Every label a redactor may write for `secret` (besides `<base64 of …>`, which words what a run decodes to). */
export function labelsOf(secret: Secret): string[] {
  const labels = new Set<string>();
  for (const form of secret.forms) {
    for (const label of [form.label, ...FOLDS.map(({ name }) => foldLabel(form.label, secret.placeholder, name))])
      labels.add(label).add(hexLabel(label));
  }
  labels
    .add(pieceLabel(secret.placeholder))
    .add(hexLabel(pieceLabel(secret.placeholder)))
    .add(base64Label(secret.placeholder))
    .add(numberLabel(secret.placeholder));
  return [...labels];
}

/** Where each UTF-16 unit of a decoded view came from in the original: unit j from `start[j]` to `end[j]` (exclusive). */
export interface Offsets {
  start: Int32Array;
  end: Int32Array;
}

/**
 * A decoded view of a text: `text`, and where each of its UTF-16 units came
 * from in the original. The offsets are worked out only when a match in the
 * view needs them: matches are rare, and the offsets of a long body take four
 * times its text (a sampled page of animals, under load, many times a second).
 */
export interface View {
  text: string;
  /** Undefined for the identity view. */
  offsets?: () => Offsets;
  /**
   * A gap view (gaps.ts): runs of encoded characters are not where they were
   * (a word either side of a base64 run joins it), so only whole forms and
   * pieces are looked for in it, where the view it was made from spells them.
   */
  joined?: Joined;
}

/** A gap view's view it was made from (gaps.ts), and where each of its units is there. */
export interface Joined {
  source: string;
  positions: () => Int32Array;
}
