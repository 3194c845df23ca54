/**
 * bin/ sets V8's heap settings on its own process before the CLI loads (cli/heap.ts, issue 23 item 3), and a user's
 * own flag of the same setting, in NODE_OPTIONS or node's arguments, wins. Seen from inside the CLI's process by a
 * preloaded probe (test/fixtures/heap-probe.mjs): the flags set, and how large the young generation grows when
 * objects survive a while (V8's default lets it grow to 32 MB, both semi-spaces; the CLI stops it at 2 ×
 * SEMI_SPACE_MB, or one doubling more when two collections come before its watch runs).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SEMI_SPACE_MB } from '../../../cli/heap.js';
import { runCli, tempDir } from '../../helpers.js';

const PROBE = pathToFileURL(new URL('../../fixtures/heap-probe.mjs', import.meta.url).pathname).href;

/**
 * Runs `rules` (quick, and not `--version` or `--help`, which the CLI leaves alone) with the probe preloaded; resolves
 * to the flags the CLI set and the young generation's largest size.
 */
async function probe(nodeOptions: string, nodeArgs: string[] = []): Promise<{ set: string[]; newSpaceMB: number }> {
  const file = join(tempDir(), 'heap.json');
  const ran = await runCli(['rules'], {
    nodeArgs,
    env: { NODE_OPTIONS: `--import=${PROBE} ${nodeOptions}`.trim(), HEAP_PROBE_FILE: file },
  });
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(readFileSync(file, 'utf8')) as { set: string[]; newSpaceMB: number };
}

describe('the CLI sizes its own heap, unless the user did', () => {
  it('sets every setting, and the young generation stays small', async () => {
    const { set, newSpaceMB } = await probe('');
    expect(set).toEqual(['--liftoff-only --heap-growing-percent=50', '--semi-space-growth-factor=1']);
    expect(newSpaceMB).toBeLessThanOrEqual(4 * SEMI_SPACE_MB);
  });

  it("leaves the young generation to NODE_OPTIONS' --max-semi-space-size, which then governs", async () => {
    const { set, newSpaceMB } = await probe('--max-semi-space-size=16');
    expect(set).toEqual(['--liftoff-only --heap-growing-percent=50']);
    expect(newSpaceMB).toBeGreaterThan(4 * SEMI_SPACE_MB);
  });

  it("leaves to node's own arguments the settings they name, and applies the others", async () => {
    const { set, newSpaceMB } = await probe('', ['--no-liftoff-only', '--heap_growing_percent=100']);
    expect(set).toEqual(['--semi-space-growth-factor=1']);
    expect(newSpaceMB).toBeLessThanOrEqual(4 * SEMI_SPACE_MB);
  });
});
