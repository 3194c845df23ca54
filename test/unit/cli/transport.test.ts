/**
 * cli/transport.ts `settingSources`: the one answer to "where did this setting
 * come from" for the run, --dry-run, certify and replay. No socket, no process.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectOptions } from '../../../core/connection.js';
import { connectionLine, settingSources, sourceOf } from '../../../cli/transport.js';

const PEM = '-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----\n';
const TARGET = 'https://staging.example/v1';
/** Everything in force: the target, no verification, a CA, a proxy URL, a client certificate. */
const ALL: ConnectOptions = { insecure: true, ca: PEM, proxy: { kind: 'url', url: 'http://127.0.0.1:3128/' }, cert: PEM, key: PEM };
const OPTIONS = { 'base-url': TARGET, insecure: true, ca: 'ca.pem', proxy: 'http://127.0.0.1:3128', cert: 'client.pem' };

describe('settingSources', () => {
  it('a setting the command line holds came from its flag, one only the environment filled from its variable, the rest from the config file', () => {
    const typed = { 'base-url': TARGET, insecure: true };
    const filled = { ...typed, ca: 'ca.pem' };
    const sources = settingSources(
      { typed, filled, configFile: { path: 'petstore-conformance.config.json', named: true } },
      { target: TARGET, connection: ALL },
    );
    expect(sources).toEqual({
      flags: ['target', 'insecure'],
      environment: ['customCa'],
      configFile: { path: 'petstore-conformance.config.json', named: true, settings: ['proxy', 'clientCertificate'] },
    });
    expect(['target', 'insecure', 'customCa', 'proxy'].map((setting) => sourceOf(sources, setting as 'target'))).toEqual([
      '--base-url',
      '--insecure',
      'PETSTORE_CA',
      'the config file',
    ]);
  });

  it('without a config file, what the command line does not hold came from the environment (certify and replay read none)', () => {
    expect(settingSources({ typed: {}, filled: OPTIONS }, { target: TARGET, connection: ALL })).toEqual({
      flags: [],
      environment: ['target', 'insecure', 'customCa', 'proxy', 'clientCertificate'],
    });
    expect(settingSources({ typed: OPTIONS, filled: OPTIONS }, { target: TARGET, connection: ALL })).toEqual({
      flags: ['target', 'insecure', 'customCa', 'proxy', 'clientCertificate'],
      environment: [],
    });
  });

  it('only what is in force is recorded: no target for the embedded reference, nothing for a connection that verifies, presents and redirects nothing', () => {
    const file = { path: 'x.json', named: false };
    expect(
      settingSources(
        { typed: { insecure: false }, filled: OPTIONS, configFile: file },
        { target: undefined, connection: { proxy: { kind: 'none' } } },
      ),
    ).toEqual({ flags: [], environment: [], configFile: { ...file, settings: [] } });
  });

  it('a proxy of HTTP_PROXY/HTTPS_PROXY came from the environment, and is worded as the variables', () => {
    const connection: ConnectOptions = { proxy: { kind: 'env', httpProxy: 'http://127.0.0.1:3128/', httpsProxy: '', noProxy: '' } };
    const sources = settingSources(
      { typed: { 'base-url': 'http://127.0.0.1:9/v1' }, filled: {}, configFile: { path: 'x.json', named: true } },
      { target: 'http://127.0.0.1:9/v1', connection },
    );
    expect(sources).toEqual({ flags: ['target'], environment: ['proxy'], configFile: { path: 'x.json', named: true, settings: [] } });
    expect(connectionLine({ target: 'http://127.0.0.1:9/v1', connection, files: {}, sources })).toBe(
      'connection: plain http, no TLS · proxy from the environment: HTTP_PROXY=http://127.0.0.1:3128 · no client certificate',
    );
  });
});
