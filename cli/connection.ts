/**
 * The connection flags every command that talks to a target shares (the run,
 * `replay`, `certify`; declared in cli/connection-flags.ts): `--ca`,
 * `--insecure`, `--cert`, `--cert-key`, `--proxy`, `-H/--header`,
 * `--secret-header`, and the proxy environment variables. {@link buildConnection}
 * turns them, once, into the one description (core/connection.ts) every sender
 * of the command uses.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import {
  type ConnectOptions,
  type EnvironmentValue,
  headerProblem,
  type ProxyChoice,
  secretHeaderVariable,
  shownProxy,
} from '../core/connection.js';
import { UsageError } from '../core/errors.js';
import { type ConnectionFlags, MIN_SECRET_LENGTH } from './connection-flags.js';
import { ConfigFileError } from './errors.js';
import { FILE_LIMITS, readBoundedFile } from './files.js';

/** How a message names the config file's headers. */
const FILE_HEADERS = 'config "headers":';

/** Splits `Name: value`; throws a one-line `UsageError` naming `flag`, never the text (it may be a bare secret). */
function splitHeader(text: string, flag: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0)
    throw new UsageError(`${flag} takes "Name: value"; a value given has no header name before a colon (not shown: it may be a secret)`);
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

/**
 * The one connection description of a command: reads the PEM files (bounded,
 * regular files only), checks the certificate and key, parses the headers,
 * and picks the proxy: `--proxy`, else the environment's (ignored for the
 * embedded reference, which is on loopback). A config file's header that took
 * a value from the environment is a secret header, and each such value (in a
 * header or the proxy in force) a secret of its own. Throws one-line
 * `UsageError`s.
 */
export async function buildConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
  options: { embedded?: boolean } = {},
): Promise<ConnectOptions> {
  const pem = async (path: string | undefined, flag: string): Promise<string | undefined> =>
    path === undefined ? undefined : (await readBoundedFile(resolve(cwd, path), FILE_LIMITS.pem, `${flag} ${path}`)).toString('utf8');
  const ca = await pem(flags.ca, '--ca');
  if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(`--ca ${flags.ca}: not a PEM certificate (no "-----BEGIN CERTIFICATE-----")`);
  if ((flags.cert === undefined) !== (flags.certKey === undefined))
    throw new UsageError(
      flags.cert === undefined
        ? '--cert-key needs --cert (the client certificate it belongs to)'
        : "--cert needs --cert-key (the certificate's private key)",
    );
  const cert = await pem(flags.cert, '--cert');
  const key = await pem(flags.certKey, '--cert-key');
  if (cert !== undefined && key !== undefined) {
    try {
      new X509Certificate(cert);
    } catch {
      throw new UsageError(`--cert ${flags.cert}: not a PEM certificate`);
    }
    try {
      createPrivateKey(key);
    } catch (error) {
      const encrypted = /encrypted|passphrase/i.test((error as Error).message) || key.includes('ENCRYPTED');
      throw new UsageError(
        `--cert-key ${flags.certKey}: ${encrypted ? 'an encrypted key; give it unencrypted (openssl pkey -in key.pem -out plain.pem)' : 'not a PEM private key'}`,
      );
    }
    try {
      createSecureContext({ cert, key });
    } catch {
      throw new UsageError(`--cert ${flags.cert} and --cert-key ${flags.certKey}: the key does not belong to the certificate`);
    }
  }

  const headers: Record<string, string> = {};
  const secretHeaders: string[] = [];
  // The config file's headers first; a flag replaces one of the same name (flags win over the file), two flags clash.
  const fromFile = new Set<string>();
  const add = (name: string, value: string, flag: string) => {
    const problem = headerProblem(name, value, flag);
    if (problem) throw flag === FILE_HEADERS ? new ConfigFileError(problem) : new UsageError(problem);
    const lower = name.toLowerCase();
    if (Object.hasOwn(headers, lower) && !fromFile.delete(lower)) throw new UsageError(`${flag} ${name}: given twice`);
    headers[lower] = value;
  };
  for (const [name, value] of Object.entries(flags.fileHeaders ?? {})) {
    add(name, value, FILE_HEADERS);
    fromFile.add(name.toLowerCase());
  }
  for (const text of flags.header ?? []) add(...splitHeader(text, '--header'), '--header');
  for (const text of flags.secretHeader ?? []) {
    let name: string;
    let value: string;
    if (text.includes(':')) [name, value] = splitHeader(text, '--secret-header');
    else {
      name = text.trim();
      const variable = secretHeaderVariable(name);
      value = env[variable] ?? '';
      if (!value) throw new UsageError(`--secret-header ${name}: set ${variable} to its value (or write "${name}: value")`);
    }
    if (value.length < MIN_SECRET_LENGTH)
      throw new UsageError(
        `--secret-header ${name}: a secret value shorter than ${MIN_SECRET_LENGTH} characters cannot be redacted reliably`,
      );
    add(name, value, '--secret-header');
    secretHeaders.push(name.toLowerCase());
  }

  const proxy = proxyChoice(flags.proxy, env, options.embedded === true);
  const fromEnvironment: EnvironmentValue[] = [];
  for (const { at, variable, value } of flags.fileSecrets ?? []) {
    if (at[0] === 'headers' && at[1] !== undefined) {
      const into = at[1].toLowerCase();
      // A flag of the same name replaced the file's header: that value is not sent.
      if (!fromFile.has(into)) continue;
      fromEnvironment.push({ into, variable, value });
      if (!secretHeaders.includes(into)) secretHeaders.push(into);
    }
  }

  return {
    ...(ca === undefined ? {} : { ca }),
    ...(flags.insecure ? { insecure: true } : {}),
    ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
    proxy,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(secretHeaders.length > 0 ? { secretHeaders } : {}),
    ...(fromEnvironment.length > 0 ? { fromEnvironment } : {}),
  };
}

/** `--proxy`, else HTTP_PROXY/HTTPS_PROXY/NO_PROXY (lower case first, as curl and undici read them). */
export function proxyChoice(flag: string | undefined, env: NodeJS.ProcessEnv, embedded: boolean): ProxyChoice {
  if (flag !== undefined) return { kind: 'url', url: proxyUrl(flag, '--proxy') };
  if (embedded) return { kind: 'none' };
  const read = (name: string) => env[name.toLowerCase()] || env[name] || '';
  const httpProxy = read('HTTP_PROXY');
  const httpsProxy = read('HTTPS_PROXY');
  if (!httpProxy && !httpsProxy) return { kind: 'none' };
  return {
    kind: 'env',
    httpProxy: httpProxy && proxyUrl(httpProxy, 'HTTP_PROXY'),
    httpsProxy: httpsProxy && proxyUrl(httpsProxy, 'HTTPS_PROXY'),
    noProxy: read('NO_PROXY'),
  };
}

function proxyUrl(text: string, where: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${where} ${JSON.stringify(shownProxy(text) === '(not a URL)' ? text.replace(/\/\/[^@/]*@/, '//…@') : text)}: not a URL; write it as http://host:port`,
    );
  }
  // Neither the URL nor its scheme is shown: without "//", "user:password@host" parses as scheme "user".
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${where}: the suite talks to HTTP(S) proxies only; write it as http://host:port or https://host:port`);
  return url.href;
}
