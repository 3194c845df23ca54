/**
 * How to reach the target, as options (core/connection.ts turns them into a
 * dispatcher): the proxy, TLS material and extra headers; their check
 * ({@link checkConnectOptions}), the secrets among them
 * ({@link connectionSecrets}), and what report.json records of them
 * ({@link connectionRecord}), never a secret.
 */
import { UsageError } from '../errors.js';
import { plainSecret, type Secret } from '../redact/types.js';
import { setting, type SettingRef, type Wording, wording } from '../wording.js';

/** Which proxy, if any, requests go through. */
export type ProxyChoice =
  /** Straight to the target. */
  | { kind: 'none' }
  /** Every request through this proxy (`--proxy`). */
  | { kind: 'url'; url: string }
  /** As the environment says (HTTP_PROXY, HTTPS_PROXY, NO_PROXY; undici's EnvHttpProxyAgent semantics). Empty strings are unset. */
  | { kind: 'env'; httpProxy: string; httpsProxy: string; noProxy: string };

/** How to reach the target, besides its base URL and the deadline of a request. */
export interface ConnectOptions {
  /** Extra CA certificates (PEM) to trust for an https target. */
  ca?: string;
  /** Accept any TLS certificate (only when asked for). */
  insecure?: boolean;
  /** Client certificate (PEM) presented to an https target, with its private key (PEM). */
  cert?: string;
  key?: string;
  /** Default: none. */
  proxy?: ProxyChoice;
  /** Sent with every request (names in lower case); a request's own headers win, and none of these is `authorization`. */
  headers?: Readonly<Record<string, string>>;
  /** Names (lower case) of the headers whose values are secrets: redacted like the key. */
  secretHeaders?: readonly string[];
  /**
   * Values a config file took from the environment (`\${VARIABLE}`) into a
   * header (`into`: its name, lower case; the header is a secret header too)
   * or into the proxy URL (`into: 'proxy'`): secrets, redacted like the key.
   */
  fromEnvironment?: readonly EnvironmentValue[];
}

/** A value a config file took from the environment into a setting that travels to the target or the proxy. */
export interface EnvironmentValue {
  /** The header's name (lower case). */
  into: string;
  /** The variable's name, for messages; never its value. */
  variable: string;
  value: string;
}

/** The label that stands for a secret header's value in evidence. */
export function secretLabel(name: string): string {
  return `<secret ${name.toLowerCase()}>`;
}

/** A secret of a connection, and how messages name it (never by its value). */
export interface ConnectionSecret {
  secret: Secret;
  /** Where it came from, as the subject of a sentence: `the value of secret header x-trace`. */
  what: Wording;
}

/** `--secret-header Name` (no value) reads the value from this variable plus the name ({@link secretHeaderVariable}). */
export const SECRET_HEADER_ENV = 'PETSTORE_SECRET_HEADER_';

/** The variable a secret header's value is read from: `PETSTORE_SECRET_HEADER_X_API_KEY` for `X-Api-Key` (upper case, `-` as `_`). */
export function secretHeaderVariable(name: string): string {
  return `${SECRET_HEADER_ENV}${name.toUpperCase().replace(/-/g, '_')}`;
}

/** Secret values shorter than this cannot be redacted reliably: they occur in ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/** Last words of a header name that say its value is a credential, whatever comes before (`X-Auth-Token`, `Cookie`). */
const CREDENTIAL_LAST = new Set([
  ...['token', 'secret', 'password', 'passwd', 'passphrase', 'credential', 'credentials', 'signature'],
  ...['cookie', 'jwt', 'bearer', 'authorization', 'authentication', 'apikey', 'sessionid'],
]);
/** Words before a last `key` (or `id`, for `session`) that make it a credential: `X-Api-Key`, `Ocp-Apim-Subscription-Key`; not `Idempotency-Key`. */
const CREDENTIAL_KEYS = new Set([
  'api',
  'access',
  'auth',
  'secret',
  'private',
  'client',
  'subscription',
  'master',
  'app',
  'license',
  'signing',
  'functions',
]);
/** A credential written without separators: `XApiKey`, `AccessToken`, `ClientSecret`. */
const CREDENTIAL_JOINED = /apikey|accesstoken|authtoken|sessiontoken|refreshtoken|secretkey|clientsecret|password$/;

/**
 * Whether a header's name says its value is a credential: its last word
 * (split at `-`, `_`, `.`; a trailing number aside, `X-Hub-Signature-256`) is
 * one (`token`, `secret`, `password`, `signature`, `cookie`…), or it is `key`
 * after a word that makes it one (`api`, `access`, `subscription`…), or
 * `Session-Id`; or the name writes one without separators (`XApiKey`,
 * `AccessToken`). Such a header, given as an extra one (-H, a config file's
 * `headers`), is a secret header too when its value can be kept out of the
 * reports (suites/credentials.ts `withCredentialHeaders`). Names that merely
 * hold such a word (`Idempotency-Key`, `X-Cache-Key`, `X-Tokenizer`,
 * `X-Session-Locale`) are not.
 */
export function credentialHeader(name: string): boolean {
  const words = name
    .toLowerCase()
    .split(/[-_.]/)
    .filter((word) => word !== '');
  while (words.length > 1 && /^\d+$/.test(words.at(-1)!)) words.pop();
  const [last = '', before = ''] = [words.at(-1), words.at(-2)];
  if (CREDENTIAL_LAST.has(last)) return true;
  if (last === 'key' && CREDENTIAL_KEYS.has(before)) return true;
  if (last === 'id' && before === 'session') return true;
  return CREDENTIAL_JOINED.test(words.join(''));
}

/**
 * The connection's secrets, each as the redactor registers it: the secret
 * headers' values, a proxy password (of 4 characters or more), and each
 * value a config file took from the environment.
 */
export function connectionSecrets(options: ConnectOptions | undefined): ConnectionSecret[] {
  const out: ConnectionSecret[] = [];
  for (const name of options?.secretHeaders ?? []) {
    const value = options?.headers?.[name] ?? '';
    if (value) out.push({ secret: plainSecret(value, secretLabel(name)), what: [`the value of secret header ${name}`] });
  }
  const proxy = options?.proxy;
  for (const url of proxyUrls(proxy)) {
    const written = url && URL.canParse(url) ? new URL(url).password : '';
    // As written and as decoded (a bad percent escape, `%zz`, is no escape: the password is then as written).
    for (const password of new Set([written, percentDecoded(written) ?? written]))
      if (password.length >= 4)
        out.push({ secret: plainSecret(password, '<proxy password>'), what: wording`the password of ${setting('proxy')}` });
  }
  for (const { into, variable, value } of options?.fromEnvironment ?? []) {
    if (value)
      out.push({ secret: plainSecret(value, secretLabel(into)), what: [`the value of \${${variable}} (config file, header ${into})`] });
  }
  return out;
}

/** The proxy URLs a choice names: the one given, or the environment's (either may be unset). */
function proxyUrls(proxy: ProxyChoice | undefined): (string | undefined)[] {
  return proxy?.kind === 'url' ? [proxy.url] : proxy?.kind === 'env' ? [proxy.httpProxy, proxy.httpsProxy] : [];
}

/** `text` percent-decoded; undefined when it holds a % that starts no escape, or escapes that decode to no UTF-8. */
function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A proxy URL without its credentials, for reports and messages. */
export function shownProxy(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return '(not a URL)';
  }
}

/** What report.json records of a connection: never a secret. */
export interface ConnectionRecord {
  /** The proxy the run was given, or `from the environment: HTTP_PROXY=…`; credentials removed; absent when none. */
  proxy?: string;
  /** A client certificate was presented (--cert). */
  clientCertificate: boolean;
  /** Names of the extra headers sent (-H); values are not recorded. */
  headers: string[];
  /** Names of those whose values are secret (--secret-header, or a name that says it carries a credential). */
  secretHeaders: string[];
}

/** What report.json records of `options`. */
export function connectionRecord(options: ConnectOptions | undefined): ConnectionRecord {
  const proxy = options?.proxy ?? { kind: 'none' };
  const env =
    proxy.kind === 'env'
      ? [
          proxy.httpProxy && `HTTP_PROXY=${shownProxy(proxy.httpProxy)}`,
          proxy.httpsProxy && `HTTPS_PROXY=${shownProxy(proxy.httpsProxy)}`,
          proxy.noProxy && `NO_PROXY=${proxy.noProxy}`,
        ].filter(Boolean)
      : [];
  return {
    ...(proxy.kind === 'url'
      ? { proxy: shownProxy(proxy.url) }
      : proxy.kind === 'env' && env.length > 0
        ? { proxy: `from the environment: ${env.join(', ')}` }
        : {}),
    clientCertificate: Boolean(options?.cert),
    headers: Object.keys(options?.headers ?? {}).sort(),
    secretHeaders: [...(options?.secretHeaders ?? [])].sort(),
  };
}

/** Headers the suite refuses to take from -H: the key's, the proxy's, and those that frame the exchange itself. */
export const REFUSED_HEADERS = [
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
] as const;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The reason an extra header cannot be sent, in one line, or undefined when it
 * can. `where` names where it came from (the `headers` option, a flag of cli/).
 */
export function headerProblem(name: string, value: string, where: string | SettingRef): Wording | undefined {
  if (!TOKEN.test(name)) return wording`${where} ${JSON.stringify(name)}: not a header name (letters, digits and !#$%&'*+.^_\`|~- only)`;
  const lower = name.toLowerCase();
  if (lower === 'authorization')
    return wording`${where} ${name}: the suite sends Authorization itself (Bearer and the key, and the auth checks' variants); pass the key with ${setting('apiKey')}, never as a header`;
  if ((REFUSED_HEADERS as readonly string[]).includes(lower))
    return wording`${where} ${name}: the suite does not send this header as an extra one (${lower === 'proxy-authorization' ? wording`put the proxy's credentials in the ${setting('proxy')} URL` : 'it frames the HTTP exchange itself'})`;
  if (/[\r\n\0]/.test(value)) return wording`${where} ${name}: the value holds a line break or NUL`;
  return undefined;
}

/**
 * `options` checked, with header names in lower case: throws a one-line
 * `UsageError` for the first problem (a refused header, one given twice, a
 * secret header that is not sent, a certificate without its key).
 */
export function checkConnectOptions(options: ConnectOptions | undefined): ConnectOptions {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options?.headers ?? {})) {
    const problem = headerProblem(name, value, setting('headers'));
    if (problem) throw new UsageError(problem);
    if (Object.hasOwn(headers, name.toLowerCase())) throw new UsageError(wording`${setting('headers')} ${name}: given twice`);
    headers[name.toLowerCase()] = value;
  }
  const secretHeaders = (options?.secretHeaders ?? []).map((name) => name.toLowerCase());
  for (const name of secretHeaders)
    if (!Object.hasOwn(headers, name)) throw new UsageError(`secret header ${name}: not among the headers sent`);
  // undici decodes a proxy's credentials itself, and a % that starts no escape ended the run as an internal error.
  const proxy = options?.proxy;
  for (const url of proxyUrls(proxy)) {
    const credentials = url && URL.canParse(url) ? new URL(url) : undefined;
    if (credentials && [credentials.username, credentials.password].some((part) => percentDecoded(part) === undefined))
      throw new UsageError(
        wording`${setting('proxy')}: its user name or password holds a % that starts no escape, or escapes of no UTF-8 text; write % as %25 there`,
      );
    // A proxy is an origin: undici refused a path as "invalid url", an internal error.
    if (credentials && (credentials.pathname !== '/' || credentials.search !== '' || credentials.hash !== '')) {
      // Named as it was given: the flag (or config key), or the variable it came from.
      const given =
        proxy?.kind !== 'env'
          ? wording`${setting('proxy')}`
          : [url === proxy.httpsProxy && url !== proxy.httpProxy ? 'HTTPS_PROXY' : 'HTTP_PROXY'];
      throw new UsageError(
        wording`${given} ${shownProxy(url!)}: a proxy is named by scheme, host and port (http://[user:password@]host:port), with no path or query`,
      );
    }
  }
  if (Boolean(options?.cert) !== Boolean(options?.key))
    throw new UsageError(
      wording`a client certificate needs its key, and a key its certificate (${setting('cert')} and ${setting('certKey')} together)`,
    );
  return { ...options, ...(options?.headers ? { headers } : {}), ...(options?.secretHeaders ? { secretHeaders } : {}) };
}
