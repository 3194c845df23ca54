/**
 * Reporters, keyed by their `--reporter` value. A reporter is an object with
 * optional hooks; the engine's events reach it through the CLI. The pure
 * writers (result in, text out) live beside the adapters.
 */
import { consoleReporter } from './console.js';
import { githubReporter } from './github.js';
import { htmlReporter } from './html.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import type { ReporterName } from './names.js';
import type { Reporter, ReporterContext } from './reporter.js';

export { REPORTER_NAMES, type ReporterName } from './names.js';

export type { Reporter, ReporterContext } from './reporter.js';

export const reporters = {
  json: jsonReporter,
  junit: junitReporter,
  html: htmlReporter,
  github: githubReporter,
  console: consoleReporter,
} satisfies Record<ReporterName, (ctx: ReporterContext) => Reporter>;
