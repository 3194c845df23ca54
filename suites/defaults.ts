/**
 * The engine's defaults, in a module of their own: the CLI prints them in
 * `--help` without loading the engine (and fast-check, undici, ajv with it).
 * suites/engine.ts re-exports them.
 */
export const DEFAULTS = {
  numRuns: 40,
  strict: false,
  timeoutMs: 10_000,
  /** No load unless asked for; the CLI asks for `smoke` by default. */
  load: 'none',
  maxBodyBytes: 1024 * 1024,
  propertyTimeLimitMs: 60_000,
  /** Requests in flight at most in the functional phases (--concurrency). */
  concurrency: 32,
  maxWaitMs: 120_000,
  /** How long a just-created animal may stay unreadable while it is asked for again (--visibility-window). */
  visibilityWindowMs: 2_000,
  maxTimeMs: 30 * 60_000,
} as const;
