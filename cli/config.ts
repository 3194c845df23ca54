/**
 * The configuration file: `petstore-conformance.config.json`, looked for in the
 * working directory and each folder above it up to the repository root (the
 * folder holding `.git`), or the path given by `--config`. It holds what the
 * flags hold, under the same names in camelCase. Flags win over the
 * environment, the environment over the file, the file over the defaults. The
 * API key is never read from it.
 *
 * A file found upward without being named may set the base URL, but none of
 * the settings that weaken or redirect the transport ({@link TRANSPORT_KEYS}:
 * `insecure`, `proxy`, `ca`, `cert`, `certKey`): a file planted in a checkout
 * would otherwise send every keyed request through its proxy, or to a
 * certificate nobody vouches for. Those are taken only from a file named with
 * `--config` or `PETSTORE_CONFIG` ({@link refuseDiscoveredSettings}). A file
 * another user could have planted (in a folder above the working directory,
 * or below a `.git` they own) is not looked at ({@link findConfigFile}).
 *
 * String values may name environment variables, `${NAME}`, replaced before the
 * file is validated (`$${` writes a literal `${`); an unset or empty variable is
 * a usage error naming it. A value taken into `headers` travels to the
 * target and is a secret, redacted like the key (see {@link SECRET_KEYS});
 * one elsewhere is a setting, shown in the reports (a proxy URL is shown
 * without its credentials, and its password is a secret wherever it came
 * from).
 * Relative paths in the file (reportDir, ca, waivers)
 * are relative to the file's folder. Its JSON Schema, {@link configSchema}, is
 * published as spec/config.schema.json for editors (`"$schema"`).
 */
import type { FingerprintId } from '../core/fingerprints.js';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { measureJson, scanJson } from '../core/json-prefix.js';
import { shellWord } from '../reports/commands.js';
import { newAjv, schemaErrorText } from '../spec/validate.js';
import type { LoadProfile } from '../suites/load/profiles.js';
import { MIN_SECRET_LENGTH } from './connection-flags.js';
import { configSchema } from './config-schema.js';
import { ConfigFileError } from './errors.js';
import { FILE_LIMITS, FileRefused, readBoundedFile } from './files.js';

const ZERO_MIX = { listPets: 0, createPet: 0, getPet: 0 };

/** The file's load profiles as the engine takes them: named, described, every operation in the mix. */
export function profilesOf(file: FileConfig): Record<string, LoadProfile> {
  return Object.fromEntries(
    Object.entries(file.profiles ?? {}).map(([name, p]) => [
      name,
      { ...p, name, description: p.description ?? 'defined in the config file', mix: { ...ZERO_MIX, ...p.mix } } as LoadProfile,
    ]),
  );
}

export const CONFIG_FILE = 'petstore-conformance.config.json';

/** What the file may hold. */
export interface FileConfig {
  baseUrl?: string;
  reportDir?: string;
  seed?: number;
  numRuns?: number;
  strict?: boolean;
  timeout?: number;
  maxWait?: number;
  visibilityWindow?: number;
  rateLimit?: number;
  concurrency?: number;
  maxTime?: number;
  load?: string;
  only?: string[];
  skip?: string[];
  reporter?: string[];
  ca?: string;
  insecure?: boolean;
  /** Client certificate and its key (PEM files), an HTTP proxy, extra headers (a header holding a `${VARIABLE}` is a secret header). */
  cert?: string;
  certKey?: string;
  proxy?: string;
  headers?: Record<string, string>;
  waivers?: string;
  maxFailures?: number;
  /** User-Agent of the tool's own requests. */
  userAgent?: string;
  /** Client ids (core/fingerprints.ts) the requests are spread over. */
  fingerprints?: FingerprintId[];
  /** Load profiles by name (they may replace a built-in one); see suites/load/profiles.ts. */
  profiles?: Record<string, Omit<LoadProfile, 'name' | 'description' | 'mix'> & { description?: string; mix: Partial<LoadProfile['mix']> }>;
}

export { CONFIG_SCHEMA_ID, configSchema } from './config-schema.js';

let validator: ValidateFunction<FileConfig> | undefined;
/** The config schema, compiled on first use: most runs have no config file, and compiling costs start-up time. */
const validateConfig = (): ValidateFunction<FileConfig> => (validator ??= newAjv({ allErrors: true }).compile<FileConfig>(configSchema));

/**
 * The config file that applies in `cwd`: the first `petstore-conformance.config.json`
 * in `cwd` or a folder above it, up to the repository root (the first folder
 * holding `.git`). Outside a repository only `cwd` itself is looked in, so a
 * stray file in a home folder never configures a run. As git does since
 * CVE-2022-24765, a `.git`, and a file in a folder above `cwd`, count only
 * when the user running owns them: another user could plant both in a shared
 * folder above (`/tmp`).
 */
export function findConfigFile(cwd: string, { owned = ownedByUser }: { owned?: (path: string) => boolean } = {}): string | undefined {
  const start = resolve(cwd);
  const root = (dir: string) => existsSync(join(dir, '.git')) && owned(join(dir, '.git'));
  const inRepository = (() => {
    for (let dir = start; ; dir = dirname(dir)) {
      if (root(dir)) return true;
      if (dirname(dir) === dir) return false;
    }
  })();
  for (let dir = start; ; dir = dirname(dir)) {
    const path = join(dir, CONFIG_FILE);
    if (existsSync(path) && (dir === start || owned(path))) return path;
    if (!inRepository || root(dir) || dirname(dir) === dir) return undefined;
  }
}

/**
 * The config file {@link findConfigFile} passed over for its owner, if one was: the one it would take were every file
 * and `.git` the user's, when it takes another (or none). Said in one line, as git says "dubious ownership": a root
 * job in a checkout of another user's (a CI container) would otherwise lose its config without a word.
 */
export function configPassedOver(cwd: string): string | undefined {
  const anyOwner = findConfigFile(cwd, { owned: () => true });
  return anyOwner !== undefined && anyOwner !== findConfigFile(cwd) ? anyOwner : undefined;
}

/** Whether the user running owns `path` (always, where the platform has no user ids). */
function ownedByUser(path: string): boolean {
  const uid = process.getuid?.();
  return uid === undefined || statSync(path, { throwIfNoEntry: false })?.uid === uid;
}

/** Nesting a config file may hold, at most: its deepest setting (a load profile's thresholds) sits at five. */
const MAX_CONFIG_DEPTH = 32;

/** Keys whose values are paths: relative ones are taken relative to the file's folder. */
const PATH_KEYS = ['reportDir', 'ca', 'cert', 'certKey', 'waivers'] as const;

/** A value the file took from the environment: where (the path of keys to it), from which variable, and the value. */
export interface Expansion {
  at: readonly string[];
  variable: string;
  value: string;
}

/**
 * Replaces `${NAME}` in every string value of `data` (nested ones too) with the
 * environment variable; `$${` is a literal `${`. Returns the data and every
 * value it took from the environment. Throws `ConfigFileError` naming the file, the
 * key and the variable when it is unset or empty.
 */
export function interpolate(data: unknown, env: NodeJS.ProcessEnv, path: string): { data: unknown; expanded: Expansion[] } {
  const expanded: Expansion[] = [];
  const walk = (value: unknown, at: readonly string[]): unknown => {
    const key = at.join('.');
    if (typeof value === 'string') {
      return value.replace(/\$(\$)?\{([^}]*)\}/g, (whole, escaped: string | undefined, name: string) => {
        if (escaped) return whole.slice(1);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
          throw new ConfigFileError(
            `${path}: "${key || '(root)'}" holds \${${name}}, which is not an environment variable name (write $\${ for a literal \${)`,
          );
        const found = env[name];
        if (found === undefined || found === '')
          throw new ConfigFileError(`${path}: "${key || '(root)'}" uses \${${name}}, but the environment variable ${name} is not set`);
        expanded.push({ at, variable: name, value: found });
        return found;
      });
    }
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...at, String(i)]));
    if (typeof value === 'object' && value !== null) {
      // "$schema" is for editors: left as written.
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '$schema' ? v : walk(v, [...at, k])]));
    }
    return value;
  };
  return { data: walk(data, []), expanded };
}

/**
 * Keys whose values travel to the target: a value the file takes from the
 * environment into one of them is a secret (registered with the run's
 * redactor like the key, the header a secret header), and must be long
 * enough to redact reliably. Other keys are settings the reports show; a
 * proxy's host and port are settings too (`${HTTPS_PROXY}` is common), and
 * its password is a secret however it was written (core/connection.ts
 * `connectionSecrets`).
 */
export const SECRET_KEYS = ['headers'] as const;

/** The values the file took from the environment into {@link SECRET_KEYS}; throws a one-line `ConfigFileError` naming the key and the variable (never the value) for one too short to redact. */
function secretsOf(expanded: readonly Expansion[], path: string): Expansion[] {
  const secrets = expanded.filter((e) => (SECRET_KEYS as readonly string[]).includes(e.at[0] ?? ''));
  for (const { at, variable, value } of secrets) {
    if (value.length < MIN_SECRET_LENGTH)
      throw new ConfigFileError(
        `${path}: "${at.join('.')}" uses \${${variable}}, whose value is shorter than ${MIN_SECRET_LENGTH} characters; a value taken from the environment into ${at[0]} is a secret, and one this short cannot be redacted reliably`,
      );
  }
  return secrets;
}

/** The config file read: where it is, whether the user named it (`--config`, `PETSTORE_CONFIG`) or it was found upward, what it holds. */
export interface LoadedConfig {
  /** Absent when no file was read. */
  path?: string;
  named: boolean;
  config: FileConfig;
  /** Values taken from the environment into `headers`: secrets, redacted like the key. */
  secrets: Expansion[];
}

/**
 * Settings that weaken TLS verification or redirect the requests (and the key
 * with them): taken from a config file only when it is named.
 */
export const TRANSPORT_KEYS = ['insecure', 'proxy', 'ca', 'cert', 'certKey'] as const;

/**
 * Refuses, in one line naming the file and what it sets, a file found upward
 * (not named) that would decide where the key goes or how: any of
 * {@link TRANSPORT_KEYS} (`"insecure": false` weakens nothing and passes); a
 * `baseUrl` the run would use (`usesBaseUrl`) that is not on loopback (the
 * key stays on this machine there, the common case of a repository's own
 * server); a `${VARIABLE}` in `headers` (the environment's values would be
 * sent to the target). Such a file is whatever the checkout holds; a named
 * file may set them all.
 */
export function refuseDiscoveredSettings(loaded: LoadedConfig, { usesBaseUrl }: { usesBaseUrl: boolean }): void {
  if (loaded.named || loaded.path === undefined) return;
  const set: string[] = TRANSPORT_KEYS.filter((key) => loaded.config[key] !== undefined && loaded.config[key] !== false).map(
    (key) => `"${key}"`,
  );
  const baseUrl = loaded.config.baseUrl;
  if (usesBaseUrl && baseUrl !== undefined && !onLoopback(baseUrl)) set.push('"baseUrl" (not on loopback)');
  if (loaded.secrets.length > 0)
    set.push(`"headers" taking ${[...new Set(loaded.secrets.map((s) => `\${${s.variable}}`))].join(', ')} from the environment`);
  if (set.length === 0) return;
  throw new ConfigFileError(
    `${loaded.path}: ${set.join(', ')}: this file was found in the working folder or above it, not named, and such a file may not decide where the key goes or how (${TRANSPORT_KEYS.join(', ')}, a baseUrl off loopback, headers from the environment): name it with --config ${shellWord(loaded.path)} (or PETSTORE_CONFIG) to use it, or pass --base-url; nothing was sent`,
  );
}

/** Whether `url` names a loopback host (127.0.0.0/8, ::1, localhost). */
function onLoopback(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname.toLowerCase();
  // Not `*.localhost`: RFC 6761 asks resolvers to answer it with loopback, but a resolver that sends it on to DNS does not.
  return host === 'localhost' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Where `text` stops being JSON, in words: `at line 3, column 14`, or `it ends
 * at line 3, column 1 before its value is complete`. Found with the JSON scan
 * of core/json-prefix.ts on ever longer starts of the text (a start that no
 * JSON text begins with stays one when it grows), so the place does not
 * depend on the wording of JSON.parse's message.
 */
function whereInvalid(text: string): string {
  // The length of the shortest start that no JSON text begins with (text.length + 1 when each could begin one); the fault is its last character.
  let low = 1;
  let high = text.length + 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (scanJson(text, 'json', 0, mid) === 'invalid') high = mid;
    else low = mid + 1;
  }
  const at = low - 1;
  const before = text.slice(0, at);
  const place = `line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}`;
  return at >= text.length ? `it ends at ${place} before its value is complete` : `at ${place}`;
}

/**
 * Reads the config file: `explicit` (relative to `cwd`) must exist; otherwise
 * the file {@link findConfigFile} finds is read, when there is one. Environment
 * variables are interpolated, then the file is validated; paths in it come
 * back absolute, and `secrets` are the values it took from the environment
 * into {@link SECRET_KEYS}. Throws `ConfigFileError` naming the file and the
 * offending key (or, for text that is not JSON, where it stops being JSON).
 */
export async function loadConfigFile(explicit: string | undefined, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<LoadedConfig> {
  const named = explicit !== undefined;
  const path = explicit === undefined ? findConfigFile(cwd) : resolve(cwd, explicit);
  if (path === undefined) return { named, config: {}, secrets: [] };
  let text: string;
  try {
    text = (await readBoundedFile(path, FILE_LIMITS.config, `cannot read the config file ${path}`)).toString('utf8');
  } catch (error) {
    if (explicit === undefined && error instanceof FileRefused && error.reason === 'missing') return { named, config: {}, secrets: [] };
    throw error instanceof FileRefused ? new ConfigFileError(error.message) : error;
  }
  // Nested past what any setting needs (a profile's thresholds sit at five levels): refused before it is walked, which
  // a text of thousands of levels would take past the stack.
  if (measureJson(text, MAX_CONFIG_DEPTH, Number.MAX_SAFE_INTEGER).deep.length > 0)
    throw new ConfigFileError(
      `${path}: nested deeper than ${MAX_CONFIG_DEPTH} levels, more than any setting holds (the file's text is not shown)`,
    );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault, which may be a secret: where, never what.
    throw new ConfigFileError(`${path} is not valid JSON: ${whereInvalid(text)} (the file's text is not shown)`);
  }
  // The key is refused before anything is interpolated: a file never holds it, not even as ${VARIABLE}.
  if (typeof data === 'object' && data !== null && ('apiKey' in data || 'api-key' in data)) {
    throw new ConfigFileError(`${path}: the API key is never read from a file; pass --api-key or set PETSTORE_API_KEY`);
  }
  const interpolated = interpolate(data, env, path);
  data = interpolated.data;
  const validate = validateConfig();
  if (!validate(data)) {
    throw new ConfigFileError(`${path}: ${schemaErrorText(validate.errors)}`);
  }
  const config: FileConfig = { ...data };
  for (const key of PATH_KEYS) if (config[key] !== undefined) config[key] = resolve(dirname(path), config[key]);
  return { path, named, config, secrets: secretsOf(interpolated.expanded, path) };
}
