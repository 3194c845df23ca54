import { describe, expect, it } from 'vitest';
import { inFlags } from '../../../cli/options.js';
import { checkConnectOptions } from '../../../core/connection.js';
import { PcError, TransportError, UsageError } from '../../../core/errors.js';
import { parseBaseUrl } from '../../../core/http.js';
import { renderWording, setting, wording } from '../../../core/wording.js';

/** The message of what `run` throws, as a library caller and as the CLI's user read it. */
function bothReadings(run: () => unknown): { library: string; cli: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof PcError)) throw error;
    return { library: error.message, cli: inFlags(error) };
  }
  throw new Error('nothing thrown');
}

describe('a message names settings as data', () => {
  it('keeps text and settings in order, splicing a wording into another', () => {
    const inner = wording`in the ${setting('proxy')} URL`;
    expect(wording`put it ${inner}, not ${3} times`).toEqual(['put it ', 'in the ', { setting: 'proxy' }, ' URL', ', not ', '3', ' times']);
  });

  it('names each setting by its option unless told otherwise', () => {
    const parts = wording`check ${setting('apiKey')} and ${setting('certKey')}`;
    expect(renderWording(parts)).toBe('check apiKey and connection.key');
    expect(renderWording(parts, (s) => `<${s}>`)).toBe('check <apiKey> and <certKey>');
  });

  it('an error reads with option names for a library caller and with flags on the command line', () => {
    expect(bothReadings(() => parseBaseUrl('http://user:pw@127.0.0.1/v1'))).toEqual({
      library: 'baseUrl must not carry credentials; pass the key with apiKey',
      cli: '--base-url must not carry credentials; pass the key with --api-key (or PETSTORE_API_KEY)',
    });
    expect(bothReadings(() => checkConnectOptions({ cert: 'PEM' }))).toEqual({
      library: 'a client certificate needs its key, and a key its certificate (connection.cert and connection.key together)',
      cli: 'a client certificate needs its key, and a key its certificate (--cert and --cert-key together)',
    });
    expect(bothReadings(() => checkConnectOptions({ headers: { 'Proxy-Authorization': 'Basic x' } }))).toEqual({
      library:
        "connection.headers Proxy-Authorization: the suite does not send this header as an extra one (put the proxy's credentials in the connection.proxy URL)",
      cli: "--header Proxy-Authorization: the suite does not send this header as an extra one (put the proxy's credentials in the --proxy URL)",
    });
  });

  it('an error without settings reads the same for both', () => {
    expect(inFlags(new UsageError('plain words'))).toBe('plain words');
    expect(new TransportError('PC_ERR_PROTOCOL', 'broke').noted('(through the proxy http://p:1)').message).toBe(
      'broke (through the proxy http://p:1)',
    );
  });
});
