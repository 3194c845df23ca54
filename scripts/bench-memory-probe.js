// Preloaded into the CLI by scripts/bench-memory.js (`--import`), never by the CLI itself: the largest heap figures of
// process.memoryUsage() (heapTotal, heapUsed, external, arrayBuffers) over the run, read every 50 ms, written as JSON
// to the file named by PC_BENCH_MEMORY_PROBE when the process exits, with the CPU seconds it used (user + system, its
// collector's threads included: a smaller heap is paid for in collections). RSS alone cannot tell a live set that grows from
// collection lag, nor the JS heap from buffers. Only the process that is the CLI writes: the embedded reference it
// starts inherits NODE_OPTIONS, so the file is claimed by the first process to write it (`wx`).
import { writeFileSync } from 'node:fs';

const file = process.env.PC_BENCH_MEMORY_PROBE;
if (file && !process.argv.includes('serve')) {
  const peaks = { heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
  const sample = () => {
    const usage = process.memoryUsage();
    for (const key of Object.keys(peaks)) peaks[key] = Math.max(peaks[key], usage[key]);
  };
  setInterval(sample, 50).unref();
  process.once('exit', () => {
    sample();
    try {
      const cpu = process.cpuUsage();
      writeFileSync(file, JSON.stringify({ ...peaks, cpuSeconds: (cpu.user + cpu.system) / 1e6 }), { flag: 'wx' });
    } catch {
      // another process of the run wrote first
    }
  });
}
