/**
 * How a command reaches its target, in the words its header prints: TLS
 * verification, the proxy, the client certificate, each with where it came
 * from, and for a run the config file read. One wording for the run's header,
 * `--dry-run`, `replay` and `certify`; report.json records the same facts as
 * data (`options.connection`, `options.sources`), and where each came from is
 * decided once, by {@link settingSources}.
 */
import { type ConnectOptions, connectionRecord, shownProxy } from '../core/connection.js';
import type { SettingSources, SourcedSetting } from '../result/model.js';
import type { ConnectionFlags } from './connection-flags.js';
import { envVarOf } from './env.js';

/** The flag of each setting whose source is recorded. */
const FLAG: Readonly<Record<SourcedSetting, string>> = {
  target: 'base-url',
  insecure: 'insecure',
  customCa: 'ca',
  proxy: 'proxy',
  clientCertificate: 'cert',
};

/** What a command's connection is, for its header. */
export interface ConnectionSummary {
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
export function weakensOrRedirects(summary: ConnectionSummary): boolean {
  const { connection } = summary;
  return connection.insecure === true || connection.ca !== undefined || (connection.proxy?.kind ?? 'none') !== 'none';
}

/** Where `setting` came from, in the words of the command line: its flag (`--proxy`), its variable (`PETSTORE_PROXY`), or the config file. */
export function sourceOf(sources: SettingSources, setting: SourcedSetting): string {
  if (sources.flags.includes(setting)) return `--${FLAG[setting]}`;
  if (sources.environment.includes(setting)) return envVarOf(FLAG[setting]);
  if (sources.configFile?.settings.includes(setting)) return 'the config file';
  return 'given';
}

/** `connection: TLS … · proxy … · client certificate …`, each with where it came from. */
export function connectionLine(summary: ConnectionSummary): string {
  const { connection, files, sources } = summary;
  const https = summary.target?.startsWith('https:') === true;
  const tls = connection.insecure
    ? `TLS NOT VERIFIED, any certificate accepted (${sourceOf(sources, 'insecure')})`
    : connection.ca !== undefined
      ? `TLS verified against ${files.ca ?? 'a CA of its own'} only, not the system CAs (${sourceOf(sources, 'customCa')})`
      : https
        ? 'TLS verified against the system CAs'
        : 'plain http, no TLS';
  const proxy = connection.proxy ?? { kind: 'none' };
  // An environment proxy is worded as report.json records it: the variables, credentials removed.
  const via =
    proxy.kind === 'url'
      ? `proxy ${shownProxy(proxy.url)} (${sourceOf(sources, 'proxy')})`
      : proxy.kind === 'env'
        ? `proxy ${connectionRecord(connection).proxy ?? 'from the environment'}`
        : 'no proxy';
  const certificate =
    connection.cert === undefined
      ? 'no client certificate'
      : `client certificate ${files.cert ?? ''} (${sourceOf(sources, 'clientCertificate')})`;
  return `connection: ${[tls, via, certificate].join(' · ')}`;
}

/** `config file: none`, or which file was read, how it was found, and whether the base URL came from it. */
export function configLine(sources: SettingSources): string {
  const file = sources.configFile;
  if (!file) return 'config file: none';
  const how = file.named
    ? 'named with --config or PETSTORE_CONFIG'
    : 'found in the working folder or above it, not named, so it may not decide where the key goes or how';
  return `config file: ${file.path} (${how})${file.settings.includes('target') ? '; the base URL comes from it' : ''}`;
}

/**
 * The lines a run's header adds under "testing …": the connection and the
 * config file. Quiet (`--quiet`, or no console reporter): only the connection,
 * and only when it {@link weakensOrRedirects}.
 */
export function headerLines(summary: ConnectionSummary, quiet: boolean): string[] {
  if (quiet) return weakensOrRedirects(summary) ? [connectionLine(summary)] : [];
  return [connectionLine(summary), configLine(summary.sources)];
}

/**
 * Where a command read its settings: the command line as yargs parsed it,
 * the same once the environment filled what it left out (cli/env.ts
 * `withEnv`), and the config file, when one was read.
 */
export interface SettingOrigins {
  /** The parsed command line, before the environment: an option it holds was typed. */
  typed: Readonly<Record<string, unknown>>;
  /** `typed` filled from the PETSTORE_* variables: an option here and not in `typed` came from its variable. */
  filled: Readonly<Record<string, unknown>>;
  /** The config file read: its path as shown (relative to the working folder), and whether it was named (`--config`, `PETSTORE_CONFIG`) or found. */
  configFile?: { path: string; named: boolean } | undefined;
}

/**
 * Where the target and each transport setting in force came from, the one
 * answer for the run, `--dry-run`, `certify` and `replay` (report.json's
 * `options.sources`, and the words of {@link sourceOf}): its flag when the
 * command line holds its option; its variable when only the filled options
 * do; otherwise the config file. A proxy of HTTP_PROXY/HTTPS_PROXY (built
 * when no proxy was given) came from the environment. In force: the target
 * when there is one (none for the embedded reference), and what `connection`
 * (as built, cli/connection.ts) verifies differently, redirects or presents.
 */
export function settingSources(
  origins: SettingOrigins,
  inForce: { target: string | undefined; connection: ConnectOptions },
): SettingSources {
  const { typed, filled, configFile } = origins;
  const { connection } = inForce;
  const sources: SettingSources = { flags: [], environment: [], ...(configFile ? { configFile: { ...configFile, settings: [] } } : {}) };
  const settings: [SourcedSetting, boolean][] = [
    ['target', inForce.target !== undefined],
    ['insecure', connection.insecure === true],
    ['customCa', connection.ca !== undefined],
    ['proxy', connection.proxy?.kind === 'url'],
    ['clientCertificate', connection.cert !== undefined],
  ];
  for (const [setting, set] of settings) {
    if (!set) continue;
    const flag = FLAG[setting];
    if (typed[flag] !== undefined) sources.flags.push(setting);
    // Without a config file, a setting the command line did not hold came from the environment, whatever filled it.
    else if (filled[flag] !== undefined || !sources.configFile) sources.environment.push(setting);
    else sources.configFile.settings.push(setting);
  }
  if (connection.proxy?.kind === 'env') sources.environment.push('proxy');
  return sources;
}
