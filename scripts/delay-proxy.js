// A TCP proxy on loopback that makes a target look `rttMs` away: each byte
// waits rttMs/2 in each direction, and a connection opens one round trip
// later (the TCP handshake). Bytes keep their order. For benchmarks only.
//
// It also counts dependent waves: HTTP/1.1 exchanges are framed on each
// connection (one request at a time, as the suite sends them), a request
// starting when its first byte reaches the proxy (on a connection opened for
// it, at once: the handshake's round trip is waited here; on one opened ahead,
// when it is sent) and ending when the last byte of its
// answer is handed to the client. A request's depth is 1 + the largest depth
// of the requests that had ended before it started; the run's waves are the
// largest depth: the round trips the client waited one after another, however
// many it had in flight.
//
//   import { startDelayProxy } from './delay-proxy.js';
//   const proxy = await startDelayProxy({ target: 'http://127.0.0.1:8080', rttMs: 30 });
//   // proxy.url: http://127.0.0.1:PORT ... proxy.stats(): { requests, waves, maxInFlight, log } ... await proxy.close();
//
//   node scripts/delay-proxy.js --target http://127.0.0.1:8080 --rtt 30 [--port 0] [--log]
import { connect, createServer } from 'node:net';
import { parseArgs } from 'node:util';

/**
 * Frames one HTTP/1.1 response stream: `push(chunk)` returns how many
 * responses the chunk completed. A response without length ends with the
 * connection (the caller ends it then). HEAD answers, 1xx, 204 and 304 have no body.
 */
function responseFramer(nextMethod) {
  let buffer = Buffer.alloc(0);
  let state = 'head';
  let remaining = 0;
  return {
    push(chunk) {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      let completed = 0;
      for (;;) {
        if (state === 'head') {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return completed;
          const head = buffer.subarray(0, end).toString('latin1');
          buffer = buffer.subarray(end + 4);
          const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(head)?.[1]);
          if (status >= 100 && status < 200) continue;
          const method = nextMethod();
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
          if (method === 'HEAD' || status === 204 || status === 304 || (length && Number(length[1]) === 0)) {
            completed++;
            continue;
          }
          if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) state = 'chunk-size';
          else if (length) [state, remaining] = ['body', Number(length[1])];
          else state = 'until-close';
        } else if (state === 'body') {
          const take = Math.min(remaining, buffer.length);
          remaining -= take;
          buffer = buffer.subarray(take);
          if (remaining > 0) return completed;
          state = 'head';
          completed++;
        } else if (state === 'chunk-size') {
          const end = buffer.indexOf('\r\n');
          if (end < 0) return completed;
          const size = parseInt(buffer.subarray(0, end).toString('latin1'), 16);
          buffer = buffer.subarray(end + 2);
          if (size === 0) state = 'trailers';
          else [state, remaining] = ['chunk', size + 2];
        } else if (state === 'chunk') {
          const take = Math.min(remaining, buffer.length);
          remaining -= take;
          buffer = buffer.subarray(take);
          if (remaining > 0) return completed;
          state = 'chunk-size';
        } else if (state === 'trailers') {
          const end = buffer.indexOf('\r\n');
          if (end < 0) return completed;
          buffer = buffer.subarray(end + 2);
          if (end === 0) {
            state = 'head';
            completed++;
          }
        } else return completed; // until-close
      }
    },
  };
}

/** The wave counter the proxy's connections share. */
function waveCounter({ keepLog }) {
  const t0 = performance.now();
  let deepestEnded = 0;
  let deepest = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let requests = 0;
  const log = [];
  return {
    /** The depth a request starting now would have, and when now is. */
    now() {
      return { depth: deepestEnded + 1, at: performance.now() - t0 };
    },
    /** A request that started at `since` (a {@link now} taken then). */
    start(line, since = this.now()) {
      const request = { n: ++requests, depth: since.depth, start: since.at, end: undefined, line };
      deepest = Math.max(deepest, request.depth);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (keepLog) log.push(request);
      return request;
    },
    end(request) {
      if (request.end !== undefined) return;
      request.end = performance.now() - t0;
      inFlight--;
      deepestEnded = Math.max(deepestEnded, request.depth);
    },
    stats() {
      return { requests, waves: deepest, maxInFlight, log };
    },
  };
}

/** Starts the proxy; resolves once it listens. `log`: keep every request's start, end and depth (for `stats().log`). */
export async function startDelayProxy({ target, rttMs, port = 0, log = false }) {
  const upstream = new URL(target);
  const oneWay = rttMs / 2;
  const sockets = new Set();
  const waves = waveCounter({ keepLog: log });
  const server = createServer((client) => {
    sockets.add(client);
    // Requests sent on this connection and not yet answered in full, oldest first.
    const open = [];
    const framer = responseFramer(() => open.find((r) => !r.framed)?.method);
    // A request starts when its first byte reaches the proxy: on a connection opened for it, at once (it then waits the
    // handshake's round trip here); on one the client opened ahead, when it is sent.
    const onRequestBytes = (chunk) => {
      if (open.some((r) => !r.framed)) return; // the rest of a request already started
      const line = chunk.subarray(0, Math.max(0, chunk.indexOf('\r\n'))).toString('latin1');
      open.push({ method: line.split(' ')[0], framed: false, request: waves.start(line) });
    };
    const onResponseBytes = (chunk) => {
      const done = [];
      for (let n = framer.push(chunk); n > 0; n--) {
        const r = open.find((o) => !o.framed);
        if (!r) break;
        r.framed = true;
        done.push(r);
      }
      return done;
    };
    const settle = (done) => {
      for (const r of done) {
        waves.end(r.request);
        open.splice(open.indexOf(r), 1);
      }
    };
    // Bytes the client sent before the handshake's round trip was over: passed on once it is.
    let early = [];
    let clientEnded = false;
    let upstreamSocket;
    client.on('data', (chunk) => {
      onRequestBytes(chunk);
      if (early) early.push(chunk);
      else setTimeout(() => upstreamSocket.writable && upstreamSocket.write(chunk), oneWay);
    });
    client.on('end', () => {
      if (early) clientEnded = true;
      else setTimeout(() => upstreamSocket.end(), oneWay);
    });
    client.on('error', () => {
      if (early) client.destroy();
    });
    setTimeout(() => {
      if (client.destroyed) {
        sockets.delete(client);
        settle(open.slice());
        return;
      }
      const server = connect({ host: upstream.hostname.replace(/^\[|\]$/g, ''), port: Number(upstream.port) });
      upstreamSocket = server;
      sockets.add(server);
      server.setNoDelay(true);
      client.setNoDelay(true);
      for (const chunk of early) setTimeout(() => server.writable && server.write(chunk), oneWay);
      if (clientEnded) setTimeout(() => server.end(), oneWay);
      early = undefined;
      server.on('data', (chunk) => {
        const done = onResponseBytes(chunk);
        setTimeout(() => {
          if (client.writable) client.write(chunk);
          settle(done);
        }, oneWay);
      });
      server.on('end', () =>
        setTimeout(() => {
          client.end();
          settle(open.slice());
        }, oneWay),
      );
      const close = () => {
        client.destroy();
        server.destroy();
        sockets.delete(client);
        sockets.delete(server);
        settle(open.slice());
      };
      client.on('error', close).on('close', () => setTimeout(close, oneWay));
      server.on('error', close).on('close', () => setTimeout(close, oneWay));
    }, rttMs);
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const base = `${upstream.protocol}//127.0.0.1:${server.address().port}${upstream.pathname.replace(/\/$/, '')}`;
  return {
    url: base,
    /** Requests seen, dependent waves, the most in flight at once, and (with `log`) each request. */
    stats: () => waves.stats(),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      target: { type: 'string' },
      rtt: { type: 'string', default: '30' },
      port: { type: 'string', default: '0' },
      log: { type: 'boolean', default: false },
    },
  });
  if (!values.target) {
    console.error('usage: node scripts/delay-proxy.js --target URL --rtt MS [--port N] [--log]');
    process.exit(2);
  }
  const proxy = await startDelayProxy({ target: values.target, rttMs: Number(values.rtt), port: Number(values.port), log: values.log });
  console.log(proxy.url);
  process.on('SIGINT', () => {
    const { requests, waves, maxInFlight, log } = proxy.stats();
    for (const r of log) console.log(`${r.n}\tdepth ${r.depth}\t${r.start.toFixed(1)}\t${r.end?.toFixed(1) ?? '-'}\t${r.line}`);
    console.log(`${requests} requests, ${waves} waves, at most ${maxInFlight} in flight`);
    process.exit(0);
  });
}
