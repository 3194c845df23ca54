/**
 * A run spread over client fingerprints, end to end: against the reference,
 * behind a TCP relay that reads every request head the run sends (functional
 * and load phases), no head names the tool, every head is one of the clients';
 * the CLI's --fingerprints and --user-agent, and what report.json records.
 */
import { readFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawnClients } from '../../../core/clients.js';
import { FINGERPRINT_IDS } from '../../../core/fingerprints.js';
import { startReference } from '../../../reference/server.js';
import { runConformance } from '../../../suites/engine.js';
import { fingerprintFor } from '../../../suites/session.js';
import { DISTINCTIVE_KEY, reportErrors, runInProcess, tempDir, TINY_PROFILE } from '../../helpers.js';

/**
 * A TCP relay in front of `target` (host:port) that splits what clients send into request heads (bodies, framed by
 * Content-Length, skipped), with the number of the connection each came on.
 */
async function headRelay(
  port: number,
): Promise<{ url: string; heads: { connection: number; head: string }[]; close: () => Promise<void> }> {
  const heads: { connection: number; head: string }[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((client) => {
    const connection = connections++;
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    let buffer = Buffer.alloc(0);
    let skip = 0;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (skip > 0) {
          const n = Math.min(skip, buffer.length);
          buffer = buffer.subarray(n);
          skip -= n;
          if (skip > 0) return;
        }
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end + 4).toString('latin1');
        heads.push({ connection, head });
        buffer = buffer.subarray(end + 4);
        skip = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    heads,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const userAgentOf = (head: string) => /\r\nuser-agent: ([^\r]*)/i.exec(head)?.[1];
const TOOL_TELLS = /petstore-conformance|pctest/i;

let reference: Awaited<ReturnType<typeof startReference>>;
beforeAll(async () => {
  reference = await startReference({ apiKey: DISTINCTIVE_KEY });
});
afterAll(async () => {
  await reference.close();
});

describe('a run under every fingerprint, against the reference', () => {
  it('is conformant, and no request head of any phase names the tool: every one goes as one of the clients', async () => {
    const relay = await headRelay(Number(new URL(reference.url).port));
    try {
      const result = await runConformance({
        baseUrl: relay.url,
        apiKey: DISTINCTIVE_KEY,
        seed: 21,
        numRuns: 3,
        fingerprints: [...FINGERPRINT_IDS],
        load: 'tiny',
        loadProfiles: { tiny: { ...TINY_PROFILE, connections: FINGERPRINT_IDS.length, name: 'tiny' } },
      });
      expect(result.summary.verdict).toBe('conformant');
      expect(result.options.fingerprints).toEqual([...FINGERPRINT_IDS]);
      const load = result.load[0]!.overall.requests;
      expect(load).toBeGreaterThan(0);
      // The functional requests and the load phase's, every one read by the relay.
      expect(relay.heads.length).toBeGreaterThanOrEqual(result.summary.requests + load);
      const tells = relay.heads.filter((h) => TOOL_TELLS.test(h.head)).map((h) => h.head.split('\r\n').slice(0, 3).join(' | '));
      expect(tells).toEqual([]);
      // Each client in the version the seed drew for it (core/clients.ts), one version per client in a run.
      const { shapes } = drawnClients(21);
      const agents = new Set(relay.heads.map((h) => userAgentOf(h.head)));
      expect([...agents].sort()).toEqual(FINGERPRINT_IDS.map((id) => shapes[id].userAgent).sort());
      // No head in undici's own shape (its lower-case host and connection lines first), save node fetch's, which is undici's.
      const undiciShaped = relay.heads.filter(
        (h) => /^[^\r]*\r\nhost: [^\r]*\r\nconnection: /.test(h.head) && userAgentOf(h.head) !== shapes['node-fetch'].userAgent,
      );
      expect(undiciShaped).toEqual([]);
      // curl writes no Connection line (its requests' connections close after each in the functional phases).
      const curl = relay.heads.filter((h) => userAgentOf(h.head) === shapes.curl.userAgent);
      expect(curl.length).toBeGreaterThan(0);
      expect(curl.filter((h) => /\r\nconnection:/i.test(h.head))).toEqual([]);
    } finally {
      await relay.close();
    }
  });

  it('which client sends a request is drawn from the seed and its order alone', () => {
    const ids = [...FINGERPRINT_IDS];
    const drawn = Array.from({ length: 600 }, (_, i) => fingerprintFor(ids, 21, i));
    expect(Array.from({ length: 600 }, (_, i) => fingerprintFor(ids, 21, i))).toEqual(drawn);
    expect(new Set(drawn)).toEqual(new Set(ids));
    // Not a fixed rotation: another seed draws another sequence.
    expect(Array.from({ length: 600 }, (_, i) => fingerprintFor(ids, 22, i))).not.toEqual(drawn);
  });
});

describe('the CLI: --fingerprints and --user-agent', () => {
  it.concurrent.each([
    [
      ['--fingerprints', 'bogus'],
      '--fingerprints: unknown client "bogus"; known: curl, python-requests, go-http-client, okhttp, node-fetch, chrome, or all',
    ],
    [
      ['--fingerprints', 'curl,okhtp'],
      '--fingerprints: unknown client "okhtp" (did you mean okhttp?); known: curl, python-requests, go-http-client, okhttp, node-fetch, chrome, or all',
    ],
    [['--user-agent', ''], '--user-agent must be 1 to 256 printable ASCII characters, not starting or ending with a space'],
  ])('%j: one usage line, exit 2, nothing sent', async (args, line) => {
    const ran = await runInProcess([
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--api-key',
      DISTINCTIVE_KEY,
      ...args,
      '--report-dir',
      join(tempDir(), 'r'),
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'))).toEqual([
      `petstore-conformance: error: ${line} (see --help)`,
    ]);
  });

  it("--user-agent: every request carries it in the tool's shape, and report.json records it; --fingerprints all is recorded", async () => {
    const [own, ownAll] = await Promise.all([startReference({ apiKey: DISTINCTIVE_KEY }), startReference({ apiKey: DISTINCTIVE_KEY })]);
    const relay = await headRelay(Number(new URL(own.url).port));
    try {
      const dir = tempDir();
      const ran = await runInProcess(
        [
          '--base-url',
          relay.url,
          '--user-agent',
          'acme-probe/2.1 (ci)',
          '--num-runs',
          '3',
          '--reporter',
          'json',
          '--report-dir',
          join(dir, 'ua'),
        ],
        { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
      );
      const report = JSON.parse(readFileSync(join(dir, 'ua', 'report.json'), 'utf8')) as {
        options: { userAgent?: string; fingerprints?: string[] };
        summary: unknown;
      };
      // Why, when it is not conformant: --reporter json alone prints no verdict line.
      expect(ran.code, JSON.stringify(report.summary)).toBe(0);
      expect(reportErrors(report)).toEqual([]);
      expect(report.options.userAgent).toBe('acme-probe/2.1 (ci)');
      expect(report.options.fingerprints).toBeUndefined();
      expect(relay.heads.length).toBeGreaterThan(0);
      expect(new Set(relay.heads.map((h) => userAgentOf(h.head)))).toEqual(new Set(['acme-probe/2.1 (ci)']));
      const all = await runInProcess(
        ['--base-url', ownAll.url, '--fingerprints', 'all', '--num-runs', '3', '--reporter', 'json', '--report-dir', join(dir, 'all')],
        { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
      );
      const recorded = JSON.parse(readFileSync(join(dir, 'all', 'report.json'), 'utf8')) as {
        options: { userAgent?: string; fingerprints?: string[] };
        summary: unknown;
      };
      // Why, when it is not conformant: --reporter json alone prints no verdict line.
      expect(all.code, JSON.stringify(recorded.summary)).toBe(0);
      expect(reportErrors(recorded)).toEqual([]);
      expect(recorded.options.fingerprints).toEqual([...FINGERPRINT_IDS]);
    } finally {
      await relay.close();
      await Promise.all([own.close(), ownAll.close()]);
    }
  });
});
