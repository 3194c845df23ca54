/**
 * V8's memory settings for the CLI's own process (issue 23, item 3: a functional
 * run's peak RSS at most 110 MB, a load profile's flat in time). bin/ applies
 * them first, before any module of the suite is loaded; the library
 * (index.ts) never does: a host process sizes its own heap.
 *
 * Measured (scripts/bench-memory.js, Node 20): of a functional run's peak,
 * about 16 MB was the young generation grown to its default 16 MB semi-spaces,
 * up to 35 MB a passing peak while TurboFan recompiled undici's HTTP parser
 * (llhttp, WebAssembly) once it ran hot, and about 20 MB garbage of the old
 * generation that V8 let grow to four times the live set before collecting it,
 * the run being short and the collector idle.
 *
 * Only flags V8 reads after start-up can be set from inside the process
 * (`v8.setFlagsFromString`): `--max-semi-space-size` is read once, when the
 * heap is made, and set later changes nothing (measured: the young generation
 * still grew to 32 MB). V8 grows the semi-spaces by doubling from 1 MB, reading
 * its growth factor each time; so once a collection finds them at
 * {@link SEMI_SPACE_MB}, the factor is set to 1 and they grow no further.
 * Held at 1 MB from the start, a plain undici request loop scavenged every ~90
 * requests instead of every ~650, and paid for it in CPU per request on a busy
 * machine. Flags V8 reads only when the heap is made, or whose change needs
 * V8 to be idle, are not for this: `--single-threaded-gc` set so crashed V8.
 *
 * `--version` and `--help` are left alone: they print a line or a page, and
 * loading node:v8 (about 5 ms) would be most of what they add to `node -e 0`.
 *
 * A user's own setting wins: a flag of the same setting in node's arguments
 * or in NODE_OPTIONS (either spelling, `-` or `_`, with or without `no-`)
 * leaves that setting to V8 and the user.
 */

/** The young generation's semi-spaces grow no larger than this, MB (V8's default: 16). */
export const SEMI_SPACE_MB = 4;

/** One setting: the flag applied, and the V8 flags (names without dashes) that, when the user gives one, leave it alone. */
export interface HeapSetting {
  /** The flag as V8 takes it. */
  readonly flag: string;
  /** Flags of the same setting: any of them given by the user means the user's choice stands. */
  readonly yieldsTo: readonly string[];
  /** Set not at once but after the first collection that finds the young generation (both semi-spaces) this large, bytes. */
  readonly onceYoungAt?: number;
}

/**
 * What the CLI sets, each for a measured reason (module comment):
 * - the young generation stops growing at {@link SEMI_SPACE_MB} semi-spaces (growth factor 1 from then): objects of
 *   one exchange die young anyway, and a larger nursery only delays collecting them;
 * - WebAssembly stays on the baseline compiler (Liftoff): undici's llhttp is the only WebAssembly the suite runs,
 *   a parse is a small share of an exchange's CPU, and its optimising recompilation cost a passing 35 MB;
 * - the old generation is collected when it has grown by half over what the last collection kept, not up to four
 *   times, so garbage does not pile up while live memory stays flat.
 */
export const HEAP_SETTINGS: readonly HeapSetting[] = [
  {
    flag: '--semi-space-growth-factor=1',
    yieldsTo: ['semi-space-growth-factor', 'max-semi-space-size', 'min-semi-space-size'],
    onceYoungAt: 2 * SEMI_SPACE_MB * 1024 * 1024,
  },
  { flag: '--liftoff-only', yieldsTo: ['liftoff-only', 'liftoff', 'wasm-tier-up', 'wasm-dynamic-tiering'] },
  { flag: '--heap-growing-percent=50', yieldsTo: ['heap-growing-percent'] },
];

/**
 * The V8 flag names among `args`, with dashes, without their value; a negated flag (`--no-x`, V8's `--nox`) also
 * counts as `x`.
 */
function flagNames(args: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const arg of args) {
    const match = /^--?([A-Za-z][\w-]*)/.exec(arg);
    if (!match) continue;
    const name = match[1]!.replace(/_/g, '-');
    names.add(name);
    if (name.startsWith('no')) names.add(name.replace(/^no-?/, ''));
  }
  return names;
}

/**
 * The settings of {@link HEAP_SETTINGS} to apply, given node's own arguments (`process.execArgv`) and NODE_OPTIONS:
 * those of which the user gave no flag of the same setting.
 */
export function heapSettings(execArgv: readonly string[], nodeOptions: string | undefined): HeapSetting[] {
  const given = flagNames([...execArgv, ...(nodeOptions ?? '').split(/\s+/)]);
  return HEAP_SETTINGS.filter((setting) => !setting.yieldsTo.some((name) => given.has(name)));
}

/** {@link heapSettings}' flags. */
export function heapFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return heapSettings(execArgv, nodeOptions).map((setting) => setting.flag);
}

/** How the settings reach V8: V8 itself, or a test's stand-in. */
export interface HeapHooks {
  /** Sets V8 flags (`v8.setFlagsFromString`). */
  set(flags: string): void;
  /** The young generation's size now, both semi-spaces, bytes. */
  youngBytes(): number;
  /** Calls `after` after each garbage collection until the returned function is called; never keeps the process alive. */
  afterGc(after: () => void): () => void;
}

/** V8's own hooks, loaded when a command needs them. */
async function v8Hooks(): Promise<HeapHooks> {
  const [{ getHeapSpaceStatistics, setFlagsFromString }, { PerformanceObserver }] = await Promise.all([
    import('node:v8'),
    import('node:perf_hooks'),
  ]);
  return {
    set: setFlagsFromString,
    youngBytes: () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0,
    afterGc: (after) => {
      const observer = new PerformanceObserver(after);
      observer.observe({ entryTypes: ['gc'] });
      return () => observer.disconnect();
    },
  };
}

/** The arguments of the commands that only print (`--version`, `--help`): nothing to size. */
const PRINT_ONLY = new Set(['--version', '-v', '--help', '-h']);

/**
 * Applies {@link heapSettings} to this process's V8 (bin/ passes `process`), before the suite's modules load: at once,
 * or, for a setting that waits for the young generation to reach a size, after the collection that finds it so.
 * Resolves to the flags applied or to be applied; none for `--version` and `--help`. With `deferred: false` the
 * settings that wait are left out: scripts/build-code-cache.js makes the bundle's code cache under the flags a run
 * compiles the bundle with, which is before its first collection (V8 takes a cache only under the flags it was made
 * with, and a flag set at a collection during the build's run would be one of them).
 */
export async function sizeHeap(
  of: {
    readonly argv: readonly string[];
    readonly execArgv: readonly string[];
    readonly env: { readonly NODE_OPTIONS?: string | undefined };
  },
  hooks?: HeapHooks,
  { deferred = true }: { deferred?: boolean } = {},
): Promise<string[]> {
  if (of.argv.slice(2).some((arg) => PRINT_ONLY.has(arg))) return [];
  const settings = heapSettings(of.execArgv, of.env.NODE_OPTIONS).filter((setting) => deferred || setting.onceYoungAt === undefined);
  if (settings.length === 0) return [];
  const v8 = hooks ?? (await v8Hooks());
  const now = settings.filter((setting) => setting.onceYoungAt === undefined).map((setting) => setting.flag);
  if (now.length > 0) v8.set(now.join(' '));
  for (const setting of settings) {
    const at = setting.onceYoungAt;
    if (at === undefined) continue;
    const stop = v8.afterGc(() => {
      if (v8.youngBytes() < at) return;
      stop();
      v8.set(setting.flag);
    });
  }
  return settings.map((setting) => setting.flag);
}
