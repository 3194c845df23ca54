// A TCP proxy on loopback that makes a target look `rttMs` away: each byte
// waits rttMs/2 in each direction, and a connection opens one round trip
// later (the TCP handshake). Bytes keep their order. For benchmarks only.
//
//   import { startDelayProxy } from './delay-proxy.js';
//   const proxy = await startDelayProxy({ target: 'http://127.0.0.1:8080', rttMs: 30 });
//   // proxy.url: http://127.0.0.1:PORT ... await proxy.close();
//
//   node scripts/delay-proxy.js --target http://127.0.0.1:8080 --rtt 30 [--port 0]
import { connect, createServer } from 'node:net';
import { parseArgs } from 'node:util';

/** Starts the proxy; resolves once it listens. */
export async function startDelayProxy({ target, rttMs, port = 0 }) {
  const upstream = new URL(target);
  const oneWay = rttMs / 2;
  const sockets = new Set();
  const server = createServer((client) => {
    sockets.add(client);
    client.pause();
    const forward = (from, to) => {
      from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), oneWay));
      from.on('end', () => setTimeout(() => to.end(), oneWay));
    };
    setTimeout(() => {
      const server = connect({ host: upstream.hostname.replace(/^\[|\]$/g, ''), port: Number(upstream.port) });
      sockets.add(server);
      server.setNoDelay(true);
      client.setNoDelay(true);
      forward(client, server);
      forward(server, client);
      client.resume();
      const close = () => {
        client.destroy();
        server.destroy();
        sockets.delete(client);
        sockets.delete(server);
      };
      client.on('error', close).on('close', () => setTimeout(close, oneWay));
      server.on('error', close).on('close', () => setTimeout(close, oneWay));
    }, rttMs);
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const base = `${upstream.protocol}//127.0.0.1:${server.address().port}${upstream.pathname.replace(/\/$/, '')}`;
  return {
    url: base,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { target: { type: 'string' }, rtt: { type: 'string', default: '30' }, port: { type: 'string', default: '0' } },
  });
  if (!values.target) {
    console.error('usage: node scripts/delay-proxy.js --target URL --rtt MS [--port N]');
    process.exit(2);
  }
  const proxy = await startDelayProxy({ target: values.target, rttMs: Number(values.rtt), port: Number(values.port) });
  console.log(proxy.url);
}
