/**
 * How a command reaches its target, in the words its header prints: TLS
 * verification, the proxy, the client certificate, each with where it came
 * from, and for a run the config file read. One wording for the run's header,
 * `--dry-run`, `replay` and `certify`; report.json records the same facts as
 * data (`options.connection`, `options.sources`).
 */
import { type ConnectOptions, connectionRecord, shownProxy } from '../core/connection.js';
import type { SettingSources, SourcedSetting } from '../suites/model.js';
import type { ConnectionFlags } from './connection-flags.js';
import { envVarOf } from './env.js';

/** The flag of each setting whose source is recorded. */
const FLAG: Readonly<Record<SourcedSetting, string>> = { target: 'base-url', insecure: 'insecure', customCa: 'ca', proxy: 'proxy', clientCertificate: 'cert' };

/** What a command's connection is, for its header. */
export interface Transport {
  /** The base URL; undefined for the embedded reference (plain http on loopback). */
  target: string | undefined;
  /** The connection as built (cli/connection.ts). */
  connection: ConnectOptions;
  /** The `--ca` and `--cert` files, as given. */
  files: Pick<ConnectionFlags, 'ca' | 'cert'>;
  sources: SettingSources;
}

/**
 * Whether TLS is not verified against the system CAs alone, or the requests go
 * through a proxy: what weakens or redirects the connection, which a run says
 * even under `--quiet` or without the console reporter.
 */
export function weakensOrRedirects(transport: Transport): boolean {
  const { connection } = transport;
  return connection.insecure === true || connection.ca !== undefined || (connection.proxy?.kind ?? 'none') !== 'none';
}

/** Where `setting` came from, in the words of the command line: its flag, its variable, or the config file. */
function sourceOf(transport: Transport, setting: SourcedSetting): string {
  const { sources } = transport;
  if (sources.flags.includes(setting)) return `--${FLAG[setting]}`;
  if (sources.environment.includes(setting)) return envVarOf(FLAG[setting]);
  if (sources.configFile?.settings.includes(setting)) return 'the config file';
  return 'given';
}

/** `connection: TLS … · proxy … · client certificate …`, each with where it came from. */
export function connectionLine(transport: Transport): string {
  const { connection, files } = transport;
  const https = transport.target?.startsWith('https:') === true;
  const tls = connection.insecure
    ? `TLS NOT VERIFIED, any certificate accepted (${sourceOf(transport, 'insecure')})`
    : connection.ca !== undefined
      ? `TLS verified against ${files.ca ?? 'a CA of its own'} only, not the system CAs (${sourceOf(transport, 'customCa')})`
      : https
        ? 'TLS verified against the system CAs'
        : 'plain http, no TLS';
  const proxy = connection.proxy ?? { kind: 'none' };
  // An environment proxy is worded as report.json records it: the variables, credentials removed.
  const via =
    proxy.kind === 'url' ? `proxy ${shownProxy(proxy.url)} (${sourceOf(transport, 'proxy')})` : proxy.kind === 'env' ? `proxy ${connectionRecord(connection).proxy ?? 'from the environment'}` : 'no proxy';
  const certificate = connection.cert === undefined ? 'no client certificate' : `client certificate ${files.cert ?? ''} (${sourceOf(transport, 'clientCertificate')})`;
  return `connection: ${[tls, via, certificate].join(' · ')}`;
}

/** `config file: none`, or which file was read, how it was found, and whether the base URL came from it. */
export function configLine(sources: SettingSources): string {
  const file = sources.configFile;
  if (!file) return 'config file: none';
  const how = file.named ? 'named with --config or PETSTORE_CONFIG' : 'found in the working folder or above it, not named, so it may not decide where the key goes or how';
  return `config file: ${file.path} (${how})${file.settings.includes('target') ? '; the base URL comes from it' : ''}`;
}

/**
 * The lines a run's header adds under "testing …": the connection and the
 * config file. Quiet (`--quiet`, or no console reporter): only the connection,
 * and only when it {@link weakensOrRedirects}.
 */
export function headerLines(transport: Transport, quiet: boolean): string[] {
  if (quiet) return weakensOrRedirects(transport) ? [connectionLine(transport)] : [];
  return [connectionLine(transport), configLine(transport.sources)];
}

/**
 * Where the transport settings in force came from for a command that reads no
 * config file (`replay`, `certify`): a flag when `typed` (the command line as
 * yargs parsed it, before the environment filled it) holds it, else its
 * variable; an environment proxy from HTTP_PROXY/HTTPS_PROXY.
 */
export function flagSources(typed: Record<string, unknown>, connection: ConnectOptions): SettingSources {
  const sources: SettingSources = { flags: [], environment: [] };
  const inForce: [SourcedSetting, boolean][] = [
    ['insecure', connection.insecure === true],
    ['customCa', connection.ca !== undefined],
    ['proxy', connection.proxy?.kind === 'url'],
    ['clientCertificate', connection.cert !== undefined],
  ];
  for (const [setting, set] of inForce) if (set) (typed[FLAG[setting]] !== undefined ? sources.flags : sources.environment).push(setting);
  if (connection.proxy?.kind === 'env') sources.environment.push('proxy');
  return sources;
}
