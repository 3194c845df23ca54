// The floor bench-network.js sets a functional run beside (not a test, not the suite): a fresh Node process that
// loads undici and sends `count` requests to `baseUrl`, `inFlight` at a time, none waiting for another's answer,
// each answer read whole and parsed as JSON, nothing judged, redacted or written. What the machine, the wire and the
// target take for that many exchanges from a cold process: the suite's run does the same exchanges, in the waves its
// checks depend on, and judges each. The requests are pages of `GET /pets?limit=n`, n from 1 to 100 in turn, the
// heaviest answers a run reads. Prints one line of JSON: { seconds, requests } (from its start to its last answer).
//
//   node scripts/network-floor.js <baseUrl> <count> <inFlight> [<CA file, for https>]   (the key in PETSTORE_API_KEY)
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

const [baseUrl, count, inFlight, ca] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), process.argv[5]];
const started = performance.now();
const base = new URL(baseUrl);
const pool = new Pool(base.origin, { connections: inFlight, ...(ca ? { connect: { ca: readFileSync(ca) } } : {}) });
const headers = { authorization: `Bearer ${process.env.PETSTORE_API_KEY}`, accept: 'application/json' };
let next = 0;
let answered = 0;
async function lane() {
  while (next < count) {
    const limit = (next++ % 100) + 1;
    const { body } = await pool.request({ method: 'GET', path: `${base.pathname.replace(/\/$/, '')}/pets?limit=${limit}`, headers });
    JSON.parse(await body.text());
    answered++;
  }
}
await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
const seconds = (performance.now() - started) / 1000;
await pool.close();
console.log(JSON.stringify({ seconds, requests: answered }));
