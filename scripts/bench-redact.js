// Benchmark (not a test): what the redactor costs on the texts a run scans, beside JSON.parse of the same texts
// (the reference, measured in the same run). Every body a run receives is scanned, under load too; a key of the
// longest length the suite takes is scanned for as fast as a short one. Medians of several rounds, µs per text.
//
//   npm run bench:redact [-- --rounds 9 --dist ./dist]
//
// --dist points at another build (an older checkout's dist/) to compare two versions on one machine in one sitting.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './median.js';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1];
};

/** A page of `n` animals as a target answers it: names of several scripts, ids across int64. */
function page(n) {
  const names = ['Rex', 'Миша', 'ลูกแมว', 'Pépé le chat', '小白', 'Bello-42'];
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      id: 9007199254740993 + i,
      name: `${names[i % names.length]} ${i}`,
      categoryId: i % 7,
      status: ['available', 'pending', 'sold'][i % 3],
    })),
  );
}

export async function benchRedact({ rounds = 9, dist = new URL('../dist/', import.meta.url).pathname } = {}) {
  const { redactorFor } = await import(pathToFileURL(resolve(dist, 'core/redact.js')).href);
  const keys = {
    'key of 24': 'Zq9-Xkw7PvtJ-mR4yQ8nTb-L',
    'key of 4096': Array.from({ length: 4096 }, (_, i) => 'AbCdEfGh0123+/=-'[(i * 31 + (i >> 4)) % 16]).join(''),
  };
  const texts = {
    'a header value': 'application/json; charset=utf-8',
    'a page of 100 animals': page(100),
    'an Error body': JSON.stringify({ code: 'unauthorized', message: 'missing or invalid bearer token', status: 401 }),
    'a page of 14 000 animals (about 1 MiB)': page(14_000),
  };
  const rows = [];
  for (const [keyName, key] of Object.entries(keys)) {
    const redactor = redactorFor(key);
    redactor.redact('warm the compiled forms');
    for (const [textName, text] of Object.entries(texts)) {
      const repeats = Math.max(1, Math.floor(2e6 / text.length));
      const time = (work) => {
        const samples = [];
        for (let r = 0; r < rounds; r++) {
          const started = process.hrtime.bigint();
          // A fresh string each time: the redactor remembers short texts it has seen.
          for (let i = 0; i < repeats; i++) work(`${text}${i % 2 ? ' ' : ''}`);
          samples.push(Number(process.hrtime.bigint() - started) / 1000 / repeats);
        }
        return median(samples);
      };
      const redact = time((t) => redactor.redact(t));
      const parse = text.startsWith('[') || text.startsWith('{') ? time((t) => JSON.parse(t)) : undefined;
      rows.push({
        key: keyName,
        text: textName,
        'redact µs': redact.toFixed(1),
        'JSON.parse µs': parse === undefined ? '-' : parse.toFixed(1),
        ratio: parse === undefined ? '-' : (redact / parse).toFixed(2),
      });
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchRedact({ rounds: Number(arg('rounds', 9)), ...(arg('dist') ? { dist: resolve(arg('dist')) } : {}) });
  console.table(rows);
}
