/**
 * Messages that name a setting of the run keep it as data, so each reader gets
 * its own name for it: a library caller the option (`apiKey`), a shell user the
 * flag (`--api-key`, which only cli/ knows).
 */

/** The settings a message below cli/ names. */
export type Setting =
  | 'baseUrl'
  | 'apiKey'
  | 'seed'
  | 'numRuns'
  | 'timeoutMs'
  | 'only'
  | 'skip'
  | 'load'
  | 'maxBodyBytes'
  | 'maxWaitMs'
  | 'visibilityWindowMs'
  | 'rateLimit'
  | 'maxTimeMs'
  | 'maxFailures'
  | 'concurrency'
  | 'fingerprints'
  | 'userAgent'
  | 'jitterMs'
  | 'waitForMs'
  | 'cert'
  | 'certKey'
  | 'proxy'
  | 'headers';

/** A setting named inside a message. */
export interface SettingRef {
  readonly setting: Setting;
}

/** A message as text and settings, in order. */
export type Wording = readonly (string | SettingRef)[];

/** A reference to `name` for a {@link wording} template. */
export function setting(name: Setting): SettingRef {
  return { setting: name };
}

/** A tagged template: `wording\`${setting('baseUrl')} must use http or https\``. Wordings interpolated are spliced in. */
export function wording(strings: TemplateStringsArray, ...values: readonly (string | number | SettingRef | Wording)[]): Wording {
  const parts: (string | SettingRef)[] = [];
  strings.forEach((text, i) => {
    parts.push(text);
    const value = values[i];
    if (value === undefined) return;
    if (Array.isArray(value)) parts.push(...(value as Wording));
    else parts.push(typeof value === 'object' ? (value as SettingRef) : String(value));
  });
  return parts.filter((part) => part !== '');
}

/** How a library caller names each setting: the option of `runConformance` that sets it. */
export const OPTION_NAMES: Readonly<Record<Setting, string>> = {
  baseUrl: 'baseUrl',
  apiKey: 'apiKey',
  seed: 'seed',
  numRuns: 'numRuns',
  timeoutMs: 'timeoutMs',
  only: 'only',
  skip: 'skip',
  load: 'load',
  maxBodyBytes: 'maxBodyBytes',
  maxWaitMs: 'maxWaitMs',
  visibilityWindowMs: 'visibilityWindowMs',
  rateLimit: 'rateLimit',
  maxTimeMs: 'maxTimeMs',
  maxFailures: 'maxFailures',
  concurrency: 'concurrency',
  fingerprints: 'fingerprints',
  userAgent: 'userAgent',
  jitterMs: 'jitterMs',
  waitForMs: 'waitForMs',
  cert: 'connection.cert',
  certKey: 'connection.key',
  proxy: 'connection.proxy',
  headers: 'connection.headers',
};

/** `parts` as one string, each setting called what `name` says. Default: its option name. */
export function renderWording(parts: Wording, name: (setting: Setting) => string = (s) => OPTION_NAMES[s]): string {
  return parts.map((part) => (typeof part === 'string' ? part : name(part.setting))).join('');
}
