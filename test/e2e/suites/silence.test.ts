import { RedactionBoundary } from '../../../core/boundary.js';
import { redactorFor } from '../../../core/redact.js';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../../core/errors.js';
import { type Exchange, HttpClient, type RequestSpec, type Transport } from '../../../core/http.js';
import { type LoopClock, LoopStalls, STALL_MS, STALL_TICK_MS } from '../../../core/loop-stall.js';
import { startReference } from '../../../reference/server.js';
import { runConformance } from '../../../suites/engine.js';
import { NotJudged, STALLED_RESENDS, StalledRequest, TargetLost, TargetSession } from '../../../suites/session.js';
import { SilenceWatch } from '../../../suites/silence.js';

/** A watch whose probes are recorded, and answered by the test. */
function watch(inFlight = 0) {
  const probes: number[] = [];
  let lost: Error | undefined;
  const w = new SilenceWatch({
    lostAfter: 3,
    inFlight: () => inFlight,
    probe: async () => {
      probes.push(probes.length);
    },
    onLost: (why) => (lost = new Error(`lost: ${why}`)),
  });
  return { w, probes, lost: () => lost, setInFlight: (n: number) => (inFlight = n) };
}

const state = async (p: Promise<void>) =>
  Promise.race([
    p.then(
      () => 'judged',
      (e: Error) => `dropped: ${e.message}`,
    ),
    new Promise((r) => setTimeout(() => r('held'), 10)),
  ]);

describe('SilenceWatch: a request without response is judged only once the target is known alive', () => {
  it('an answer passes straight through', async () => {
    const { w } = watch();
    expect(await state(w.completed(undefined))).toBe('judged');
  });

  it('a silent request is held until another request is answered, then judged', async () => {
    const { w } = watch(1);
    const held = w.completed('timeout');
    expect(await state(held)).toBe('held');
    await w.completed(undefined);
    expect(await state(held)).toBe('judged');
  });

  it('three silent requests in a row: the target is lost, every held one dropped', async () => {
    const { w, lost } = watch(5);
    const first = w.completed('timeout');
    const second = w.completed('timeout');
    await expect(w.completed('timeout')).rejects.toThrow('lost: timeout, 3 requests in a row');
    expect(await state(first)).toBe('dropped: lost: timeout, 3 requests in a row');
    expect(await state(second)).toMatch(/^dropped/);
    expect(lost()).toBeDefined();
    await expect(w.completed(undefined)).rejects.toThrow(/lost/);
  });

  it('with nothing else in flight, it probes; a probe answered releases the held request', async () => {
    const { w, probes } = watch(0);
    const held = w.completed('timeout');
    expect(probes).toHaveLength(1);
    w.probed(undefined);
    expect(await state(held)).toBe('judged');
  });

  it('silent probes count towards the loss, and each asks again', async () => {
    const { w, probes } = watch(0);
    const held = w.completed('timeout');
    w.probed('timeout');
    expect(probes).toHaveLength(2);
    w.probed('timeout');
    expect(await state(held)).toMatch(/^dropped: lost/);
  });

  it('stop drops the held requests with the given error', async () => {
    const { w } = watch(1);
    const held = w.completed('timeout');
    w.stop(new Error('interrupted by SIGINT'));
    expect(await state(held)).toBe('dropped: interrupted by SIGINT');
  });
});

describe("LoopStalls: where the suite's own event loop stalled", () => {
  /** A clock the test moves, with the monitor's tick run by hand. */
  function clock() {
    let now = 1000;
    let tick: () => void = () => {};
    const c: LoopClock = { now: () => now, every: (_ms, t) => ((tick = t), { stop: () => {} }) };
    return { c, at: (ms: number) => ((now = ms), tick()), move: (ms: number) => (now = ms) };
  }

  it('finds no stall while ticks come on time, and the stall that covers a moment when one came late', () => {
    const { c, at } = clock();
    const stalls = new LoopStalls(c);
    for (let t = 1000 + STALL_TICK_MS; t <= 2000; t += STALL_TICK_MS) at(t);
    expect(stalls.stalledAt(1500)).toBe(0);
    // The loop was busy from 2000 to 3500: the next tick, due at 2025, ran at 3500.
    at(3500);
    expect(stalls.stalledAt(3000)).toBe(3500 - 2025);
    expect(stalls.stalledAt(2010)).toBe(3500 - 2025);
    expect(stalls.stalledAt(1900)).toBe(0);
    at(3525);
    expect(stalls.stalledAt(3600)).toBe(0);
  });

  it('counts a stall still going on (no tick since) up to now', () => {
    const { c, at, move } = clock();
    const stalls = new LoopStalls(c);
    at(1025);
    move(1025 + STALL_TICK_MS + STALL_MS + 400);
    expect(stalls.stalledAt(1300)).toBe(STALL_MS + 400);
  });

  it('does not take a tick late by less than a stall for one', () => {
    const { c, at } = clock();
    const stalls = new LoopStalls(c);
    at(1000 + STALL_TICK_MS + STALL_MS - 1);
    expect(stalls.stalledAt(1050)).toBe(0);
  });
});

describe("TargetSession: a timeout the suite's own stalled loop caused is not the target's silence", () => {
  const stalled = (ms: number) =>
    new TransportError(
      'PC_ERR_TIMEOUT',
      `no complete response from h within 1000 ms (the suite's own event loop was stalled for ${ms} ms when the deadline came due: an answer may have come and not been read in time)`,
    );
  const silent = () => new TransportError('PC_ERR_TIMEOUT', 'no complete response from h within 1000 ms');
  /** A transport answering from a script: an error, or 200. */
  function scripted(script: (TransportError | 200)[]): Transport & { sent: number } {
    const t = {
      sent: 0,
      get requestsSent() {
        return t.sent;
      },
      async send(spec: RequestSpec): Promise<Exchange> {
        const step = script[t.sent++] ?? 200;
        const request = { method: spec.method, url: `http://h/v1${spec.path}`, headers: {} };
        return step === 200
          ? { seq: t.sent, request, response: { status: 200, headers: {}, body: Buffer.from('[]'), truncated: false }, durationMs: 1 }
          : { seq: t.sent, request, error: step, durationMs: 1000 };
      },
      close: async () => {},
    };
    return t;
  }
  const session = (client: Transport) =>
    new TargetSession({
      client: new RedactionBoundary(client, redactorFor('k3y-silence-test')),
      apiKey: 'k3y-silence-test',
      maxWaitMs: 0,
      onExchange: () => {},
      inspect: () => {},
      observeRateLimit: () => {},
    });
  const request = { method: 'GET' as const, path: '/pets', operation: 'listPets' as const };

  it('is sent again, and the answer that comes is judged; the run goes on', async () => {
    const client = scripted([stalled(1200), stalled(900), 200]);
    const s = session(client);
    const x = await s.send('a-check', request);
    expect(x.response?.status).toBe(200);
    expect(client.sent).toBe(3);
    expect(s.stopped).toBeUndefined();
  });

  it('a request stalled past the bound stops the run, saying the suite stalled, never that the target stopped answering', async () => {
    const client = scripted(Array.from({ length: 10 }, () => stalled(1500)));
    const s = session(client);
    const error = await s.send('a-check', request).catch((e: TargetLost) => e);
    expect(client.sent).toBe(STALLED_RESENDS + 1);
    expect((error as TargetLost).reason).toEqual({ code: 'suite-stalled', ms: 1500, times: STALLED_RESENDS + 1 });
    expect(s.stopped?.message).toMatch(/^the suite's own event loop stalled \(for 1500 ms the last time\)/);
    expect(s.stopped?.message).not.toMatch(/stopped answering/);
    await expect(s.send('a-check', request)).rejects.toBe(s.stopped);
  });

  it('stalled timeouts do not count towards the silence that loses the target; real silence still does', async () => {
    // Three requests, each stalled once and then silent for real: three silent ones in a row, the target is lost.
    const client = scripted([stalled(300), silent(), stalled(300), silent(), stalled(300), silent()]);
    const s = session(client);
    const sent = [s.send('a', request), s.send('b', request), s.send('c', request)].map((p) => p.catch((e: TargetLost) => e));
    const ended = await Promise.all(sent);
    expect(ended.map((e) => (e as TargetLost).reason?.code)).toEqual(['target-silent', 'target-silent', 'target-silent']);
    // Two stalled timeouts and a silent one in a row for the same request: still held (not lost), then judged once the target answers.
    const again = session(scripted([stalled(300), stalled(300), silent(), 200]));
    const held = again.send('a', request);
    await again.send('b', request);
    expect((await held).error?.code).toBe('PC_ERR_TIMEOUT');
    expect(again.stopped).toBeUndefined();
  });
});

describe('TargetSession: a stalled timeout is resent only when the request may be repeated, and counted in a row', () => {
  const stalled = (ms: number) =>
    new TransportError(
      'PC_ERR_TIMEOUT',
      `no complete response from h within 1000 ms (the suite's own event loop was stalled for ${ms} ms when the deadline came due: an answer may have come and not been read in time)`,
    );
  const closedUnder = () => new TransportError('PC_ERR_PROTOCOL', 'h broke the HTTP exchange (UND_ERR_SOCKET)');
  /** A transport answering from a script (an error, or 201 to a POST and 200 to a GET), recording each method sent. */
  function scripted(script: (TransportError | 'answer')[]): Transport & { methods: string[] } {
    const t = {
      methods: [] as string[],
      get requestsSent() {
        return t.methods.length;
      },
      async send(spec: RequestSpec): Promise<Exchange> {
        t.methods.push(spec.method);
        const step = script[t.methods.length - 1] ?? 'answer';
        const request = { method: spec.method, url: `http://h/v1${spec.path}`, headers: {} };
        const seq = t.methods.length;
        return step === 'answer'
          ? {
              seq,
              request,
              response: { status: spec.method === 'POST' ? 201 : 200, headers: {}, body: Buffer.from('[]'), truncated: false },
              durationMs: 1,
            }
          : { seq, request, error: step, durationMs: 1000 };
      },
      close: async () => {},
    };
    return t;
  }
  const session = (client: Transport) =>
    new TargetSession({
      client: new RedactionBoundary(client, redactorFor('k3y-silence-test')),
      apiKey: 'k3y-silence-test',
      maxWaitMs: 0,
      onExchange: () => {},
      inspect: () => {},
      observeRateLimit: () => {},
    });

  it("a POST whose deadline came due while the suite's loop was stalled is not sent again (it may have created an animal): the check is told it cannot be judged, the target neither failed nor silent", async () => {
    const client = scripted([stalled(1200)]);
    const s = session(client);
    const error = await s
      .send('a-check', { method: 'POST', path: '/pets', body: '{"name":"a","categoryId":1}', operation: 'createPet' })
      .catch((e: unknown) => e);
    expect(client.methods).toEqual(['POST']);
    expect(error).toBeInstanceOf(StalledRequest);
    expect((error as StalledRequest).exchange.error?.code).toBe('PC_ERR_TIMEOUT');
    expect((error as StalledRequest).message).toMatch(
      /^the suite's own event loop stalled \(for 1200 ms\) when the deadline of POST \/v1\/pets came due, so whether the target answered is unknown; a POST is not sent again/,
    );
    expect(s.stopped).toBeUndefined();
    // A GET stalled the same way is sent again, and judged on its answer.
    const again = scripted([stalled(1200)]);
    expect((await session(again).send('a-check', { method: 'GET', path: '/pets', operation: 'listPets' })).response?.status).toBe(200);
    expect(again.methods).toEqual(['GET', 'GET']);
  });

  it('requests the proxy failed, in a row: the run stops naming the proxy, never saying the target stopped answering', async () => {
    const refused = () =>
      new TransportError(
        'PC_ERR_UNREACHABLE',
        'the proxy http://p.example:3128 refused the connection (ECONNREFUSED): no tunnel to h:80',
        undefined,
        { proxy: 'http://p.example:3128' },
      );
    const s = session(scripted(Array.from({ length: 10 }, refused)));
    const request = { method: 'GET' as const, path: '/pets', operation: 'listPets' as const };
    const ended = await Promise.all(
      [s.send('a', request), s.send('b', request), s.send('c', request)].map((p) => p.catch((e: TargetLost) => e)),
    );
    expect(ended.map((e) => (e as TargetLost).reason?.code)).toEqual(['proxy-failed', 'proxy-failed', 'proxy-failed']);
    expect(s.stopped?.message).toBe(
      'requests stopped reaching the target through the proxy (the proxy http://p.example:3128 refused the connection (ECONNREFUSED): no tunnel to h:80, 3 requests in a row); the target is not blamed',
    );
  });

  it('a request the proxy did not carry, while the target answers others, is not judged: it never reached the target', async () => {
    const reset = () =>
      new TransportError(
        'PC_ERR_UNREACHABLE',
        'the proxy http://p.example:3128 reset the connection on CONNECT (ECONNRESET): no tunnel to h:80',
        undefined,
        { proxy: 'http://p.example:3128' },
      );
    // Every POST's tunnel fails; GETs are answered.
    const client = scripted([]);
    const answer = client.send.bind(client);
    client.send = async (spec) =>
      spec.method === 'POST' ? { ...(await answer(spec)), response: undefined, error: reset() } : answer(spec);
    const s = session(client);
    const failed = s.send('a', { method: 'POST', path: '/pets', body: '{}', operation: 'createPet' }).catch((e: unknown) => e);
    // Another request answered: the target is alive, so the held one is decided, and the proxy's failure is not the target's.
    await s.send('b', { method: 'GET', path: '/pets', operation: 'listPets' });
    const error = await failed;
    expect(error).toBeInstanceOf(NotJudged);
    expect((error as NotJudged).message).toBe(
      'the proxy did not carry this request to the target (the proxy http://p.example:3128 reset the connection on CONNECT (ECONNRESET): no tunnel to h:80); the target is not blamed',
    );
    expect(client.methods.filter((m) => m === 'POST')).toHaveLength(1);
    expect(s.stopped).toBeUndefined();
  });

  it('"in a row": another outcome between stalled timeouts (a connection closed under the request) starts the count again', async () => {
    const client = scripted([stalled(300), stalled(300), closedUnder(), stalled(300), stalled(300)]);
    const s = session(client);
    const x = await s.send('a-check', { method: 'GET', path: '/pets', operation: 'listPets' });
    expect(x.response?.status).toBe(200);
    expect(client.methods).toHaveLength(6);
    expect(s.stopped).toBeUndefined();
  });
});

describe("the engine: stalled exchanges are the suite's, in every reason", () => {
  it("a stalled POST ends its check inconclusive saying the suite stalled (sent once, nothing failed); a stalled GET is tallied as not read, never as the target's silence", async () => {
    const KEY = 'k3y-stall-engine-2207';
    const server = await startReference({ apiKey: KEY });
    const client = new HttpClient({ baseUrl: server.url, timeoutMs: 5000 });
    const stall = (ms: number) =>
      new TransportError(
        'PC_ERR_TIMEOUT',
        `no complete response from h within 5000 ms (the suite's own event loop was stalled for ${ms} ms when the deadline came due: an answer may have come and not been read in time)`,
      );
    // The first POST /pets, and the first GET /pets?status=unknown: sent and answered, their answers then left unread.
    const pending = [(spec: RequestSpec) => spec.method === 'POST', (spec: RequestSpec) => spec.path === '/pets?status=unknown'];
    const posts: string[] = [];
    let stalledBody: string | undefined;
    const transport: Transport = {
      get requestsSent() {
        return client.requestsSent;
      },
      async send(spec) {
        if (spec.method === 'POST') posts.push(String(spec.body));
        const x = await client.send(spec);
        const hit = pending.findIndex((p) => p(spec));
        if (hit < 0) return x;
        pending.splice(hit, 1);
        if (spec.method === 'POST') stalledBody = String(spec.body);
        return { seq: x.seq, request: x.request, error: stall(1400), durationMs: x.durationMs };
      },
      close: () => client.close(),
    };
    try {
      const result = await runConformance({
        baseUrl: server.url,
        apiKey: KEY,
        seed: 3,
        numRuns: 3,
        timeoutMs: 5000,
        load: 'none',
        transport,
      });
      expect(pending).toEqual([]);
      const findings = result.rules.flatMap((r) => r.checks.flatMap((c) => c.findings));
      expect(findings.filter((f) => f.outcome === 'fail').map((f) => f.message)).toEqual([]);
      const stalledPost = findings.filter((f) =>
        /^cut short: the suite's own event loop stalled \(for 1400 ms\) when the deadline of POST \/v1\/pets came due/.test(f.message),
      );
      expect(stalledPost.length).toBeGreaterThan(0);
      expect(stalledPost.every((f) => f.outcome === 'inconclusive')).toBe(true);
      // Not sent again.
      expect(posts.filter((body) => body === stalledBody)).toEqual([stalledBody]);
      const reasons = result.rules.flatMap((r) =>
        r.checks.filter((c) => c.id === 'listPets.status-outside-enum').map((c) => c.reason ?? ''),
      );
      expect(reasons.join('\n')).toContain("not read in time (the suite's own event loop stalled) ×1");
      expect(reasons.join('\n')).not.toContain('PC_ERR_TIMEOUT');
      // The stalled set-up POST may have made an animal the suite does not know of: no status page can be proven
      // complete, so LIST-STATUS-COMPLETE is decided on no case, and the run says so rather than reading green.
      expect(result.summary.verdict).toBe('inconclusive');
      expect(result.summary.undecided?.map((u) => u.rule)).toContain('LIST-STATUS-COMPLETE');
    } finally {
      await server.close();
    }
  });
});
