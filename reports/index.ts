/**
 * Reporters, keyed by their `--reporter` value. A reporter is an object with
 * optional hooks; the engine's events reach it through the CLI. The pure
 * writers (result in, text out) live beside the adapters.
 *
 * junit and html write only at the run's end, so their modules (xmlbuilder2,
 * the page's templates and assets) are loaded then, by {@link onRunEndOf}: a run
 * reaches its first request without them, and one that does not write them
 * never loads them.
 */
import { consoleReporter } from './console.js';
import { githubReporter } from './github.js';
import { jsonReporter } from './json.js';
import type { ReporterName } from './names.js';
import type { Reporter, ReporterContext } from './reporter.js';

export { REPORTER_NAMES, type ReporterName } from './names.js';
export { renderVerdictLine } from './console.js';

export type { Reporter, ReporterContext } from './reporter.js';

/** A reporter with `onRunEnd` only, whose module `load` imports when the run ends. */
function onRunEndOf(load: () => Promise<(ctx: ReporterContext) => Reporter>): (ctx: ReporterContext) => Reporter {
  return (ctx) => ({
    async onRunEnd(result, written) {
      return (await (await load())(ctx).onRunEnd?.(result, written)) ?? [];
    },
  });
}

/** The reporters by `--reporter` value: each makes one run's reporter from where and how it writes. */
export const reporters = {
  json: jsonReporter,
  junit: onRunEndOf(async () => (await import('./junit.js')).junitReporter),
  html: onRunEndOf(async () => (await import('./html.js')).htmlReporter),
  github: githubReporter,
  console: consoleReporter,
} satisfies Record<ReporterName, (ctx: ReporterContext) => Reporter>;
