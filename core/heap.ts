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
 * heap is made, and set later changes nothing, so the young generation is kept
 * at its initial size by not letting it grow instead.
 *
 * A user's own setting wins: a flag of the same setting in node's arguments
 * or in NODE_OPTIONS (either spelling, `-` or `_`, with or without `no-`)
 * leaves that setting to V8 and the user.
 */
import { setFlagsFromString } from 'node:v8';

/** One setting: the flag applied, and the V8 flags (names without dashes) that, when the user gives one, leave it alone. */
export interface HeapSetting {
  /** The flag as V8 takes it. */
  readonly flag: string;
  /** Flags of the same setting: any of them given by the user means the user's choice stands. */
  readonly yieldsTo: readonly string[];
}

/**
 * What the CLI sets, each for a measured reason (module comment):
 * - the young generation stays at its initial 1 MB semi-spaces (growth factor 1): objects of one exchange die young
 *   anyway, and a larger nursery only delays collecting them;
 * - WebAssembly stays on the baseline compiler (Liftoff): undici's llhttp is the only WebAssembly the suite runs,
 *   a parse is a small share of an exchange's CPU, and its optimising recompilation cost a passing 35 MB;
 * - the old generation is collected when it has grown by half over what the last collection kept, not up to four
 *   times, so garbage does not pile up while live memory stays flat.
 */
export const HEAP_SETTINGS: readonly HeapSetting[] = [
  {
    flag: '--semi-space-growth-factor=1',
    yieldsTo: ['semi-space-growth-factor', 'max-semi-space-size', 'min-semi-space-size'],
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
export function heapFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = flagNames([...execArgv, ...(nodeOptions ?? '').split(/\s+/)]);
  return HEAP_SETTINGS.filter((setting) => !setting.yieldsTo.some((name) => given.has(name))).map((setting) => setting.flag);
}

/**
 * Applies {@link heapFlags} to this process's V8 (bin/ passes `process`), once, before the suite's modules load;
 * returns the flags applied. `set` is V8's (a test passes its own).
 */
export function sizeHeap(
  of: { readonly execArgv: readonly string[]; readonly env: { readonly NODE_OPTIONS?: string | undefined } },
  set: (flags: string) => void = setFlagsFromString,
): string[] {
  const flags = heapFlags(of.execArgv, of.env.NODE_OPTIONS);
  if (flags.length > 0) set(flags.join(' '));
  return flags;
}
