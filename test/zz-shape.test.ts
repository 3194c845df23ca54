import { it } from 'vitest';
import { spawn } from 'node:child_process';
import { runConformance } from '../suites/engine.js';
it('shape', async () => {
  const child = spawn('python3', ['test/fixtures/independent/animal_store.py', '--port', '0', '--api-key', 'shape-key-123']);
  const baseUrl: string = await new Promise((res) => child.stdout.on('data', (d) => res(String(d).trim().split(' ')[1]!)));
  try {
    const t = Date.now();
    const r: any = await runConformance({ baseUrl, apiKey: 'shape-key-123', seed: 7, numRuns: 20 } as any);
    console.log('ms', Date.now() - t);
    console.log(Object.keys(r));
    const s = JSON.stringify(r, (_k, v) => typeof v === 'bigint' ? String(v) : v, 2);
    require('node:fs').writeFileSync('/tmp/shape.json', s);
  } finally { child.kill(); }
});
