import { describe, expect, it } from 'vitest';
import { HEAP_SETTINGS, type HeapHooks, heapFlags, SEMI_SPACE_MB, sizeHeap } from '../../../cli/heap.js';

const MB = 1024 * 1024;

const ALL = HEAP_SETTINGS.map((setting) => setting.flag);

describe('heap settings (cli/heap.ts)', () => {
  it('applies every setting when the user gave none, whatever else node was given', () => {
    expect(ALL).toEqual(['--semi-space-growth-factor=1', '--liftoff-only', '--heap-growing-percent=50']);
    expect(heapFlags([], undefined)).toEqual(ALL);
    expect(heapFlags(['--enable-source-maps', '--import', 'file:///x--liftoff.js'], '--max-old-space-size=4096 --import=x.js')).toEqual(
      ALL,
    );
  });

  it.each([
    ['node args', ['--max-semi-space-size=16'], undefined],
    ['node args, the value apart', ['--max-semi-space-size', '16'], undefined],
    ['node args, underscores', ['--min_semi_space_size=4'], undefined],
    ['NODE_OPTIONS', [], '--require ./a.js --max-semi-space-size=8'],
    ['NODE_OPTIONS, underscores', [], '  --max_semi_space_size=8  '],
    ['the growth factor itself', ['--semi-space-growth-factor=2'], undefined],
  ])('leaves the young generation to the user who sized it (%s)', (_, execArgv, nodeOptions) => {
    expect(heapFlags(execArgv, nodeOptions)).toEqual(['--liftoff-only', '--heap-growing-percent=50']);
  });

  it.each([['--no-liftoff-only'], ['--noliftoff-only'], ['--liftoff'], ['--no-wasm-tier-up'], ['--wasm_dynamic_tiering']])(
    'leaves WebAssembly compilation to the user who chose it (%s)',
    (flag) => {
      expect(heapFlags([flag], undefined)).toEqual(['--semi-space-growth-factor=1', '--heap-growing-percent=50']);
    },
  );

  it('leaves the old generation to the user who set its growth', () => {
    expect(heapFlags(['--heap_growing_percent=100'], undefined)).toEqual(['--semi-space-growth-factor=1', '--liftoff-only']);
  });

  it('sets the immediate settings in one call, the young generation once a collection finds it at its size', async () => {
    const calls: string[] = [];
    let young = 2 * MB;
    let after: (() => void) | undefined;
    const hooks: HeapHooks = {
      set: (flags) => calls.push(flags),
      youngBytes: () => young,
      afterGc: (callback) => {
        after = callback;
        return () => (after = undefined);
      },
    };
    expect(await sizeHeap({ argv: ['node', 'bin'], execArgv: [], env: {} }, hooks)).toEqual(ALL);
    expect(calls).toEqual(['--liftoff-only --heap-growing-percent=50']);
    after!();
    young = 2 * SEMI_SPACE_MB * MB - 1;
    after!();
    expect(calls).toHaveLength(1);
    young = 2 * SEMI_SPACE_MB * MB;
    after!();
    expect(calls).toEqual(['--liftoff-only --heap-growing-percent=50', '--semi-space-growth-factor=1']);
    expect(after).toBeUndefined();
  });

  it('leaves out the setting that waits for a collection when asked to (the code cache is made under the flags a run starts with)', async () => {
    const calls: string[] = [];
    let watched = false;
    const hooks: HeapHooks = {
      set: (flags) => calls.push(flags),
      youngBytes: () => 2 * SEMI_SPACE_MB * MB,
      afterGc: () => ((watched = true), () => {}),
    };
    const applied = await sizeHeap({ argv: ['node', 'bin'], execArgv: [], env: {} }, hooks, { deferred: false });
    expect(applied).toEqual(['--liftoff-only', '--heap-growing-percent=50']);
    expect(calls).toEqual(['--liftoff-only --heap-growing-percent=50']);
    expect(watched).toBe(false);
  });

  it('sets nothing and watches nothing when the user chose every setting, or for --version', async () => {
    const calls: string[] = [];
    let watched = false;
    const hooks: HeapHooks = {
      set: (flags) => calls.push(flags),
      youngBytes: () => 0,
      afterGc: () => ((watched = true), () => {}),
    };
    const user = {
      argv: ['node', 'bin'],
      execArgv: ['--no-liftoff-only', '--heap-growing-percent=20'],
      env: { NODE_OPTIONS: '--max-semi-space-size=32' },
    };
    expect(await sizeHeap(user, hooks)).toEqual([]);
    expect(await sizeHeap({ argv: ['node', 'bin', '--version'], execArgv: [], env: {} }, hooks)).toEqual([]);
    expect(calls).toEqual([]);
    expect(watched).toBe(false);
  });
});
