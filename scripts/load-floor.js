// The floor of a Node load sender (not a test; issue 23, item 4): the least a Node process can spend per request on
// keep-alive HTTP/1.1, measured in the same run as the suite and wrk by scripts/bench-load.js. `connections` raw
// net.Socket connections, each writing one fixed request and reading its answer (status line, Content-Length or
// chunked) before writing the next, for `seconds`; no histogram, no judging, no deadline. What the suite spends above
// this is the suite's own; what this spends above wrk is Node's (streams, libuv, the event loop).
// Usage: node scripts/load-floor.js <url> <seconds> <connections> [authorization]  → prints `{ requests, errors }`
import { connect } from 'node:net';

const [url, seconds, connections, authorization] = process.argv.slice(2);
const target = new URL(url);
const head = Buffer.from(
  `GET ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\n${authorization ? `authorization: ${authorization}\r\n` : ''}\r\n`,
  'latin1',
);
let requests = 0;
let errors = 0;
let stopping = false;
let open = Number(connections);

/** One connection: sends, reads the whole answer, sends again until the time is up. */
function lane() {
  const socket = connect({ host: target.hostname, port: Number(target.port), noDelay: true });
  let buffered = null;
  /** Bytes of body still to read (-1: in the head; -2: chunked). */
  let want = -1;
  const send = () => {
    if (stopping) {
      socket.end();
      return;
    }
    want = -1;
    socket.write(head);
  };
  socket.on('connect', send);
  socket.on('data', (chunk) => {
    let data = buffered ? Buffer.concat([buffered, chunk]) : chunk;
    buffered = null;
    for (;;) {
      if (want === -1) {
        const end = data.indexOf('\r\n\r\n');
        if (end < 0) {
          buffered = data;
          return;
        }
        const text = data.toString('latin1', 0, end);
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
        want = length ? Number(length[1]) : /\r\ntransfer-encoding:\s*chunked/i.test(text) ? -2 : 0;
        data = data.subarray(end + 4);
      }
      if (want === -2) {
        // Chunked: the floor only needs the terminating chunk.
        const last = data.indexOf('0\r\n\r\n');
        if (last < 0) {
          buffered = data;
          return;
        }
        data = data.subarray(last + 5);
      } else if (data.length < want) {
        buffered = data;
        return;
      } else {
        data = data.subarray(want);
      }
      requests++;
      send();
      if (data.length === 0) return;
    }
  });
  socket.on('error', () => errors++);
  socket.on('close', () => {
    if (--open === 0) process.stdout.write(`${JSON.stringify({ requests, errors })}\n`);
  });
}

for (let i = 0; i < Number(connections); i++) lane();
setTimeout(() => (stopping = true), Number(seconds) * 1000);
