// Writes a generated file only when its text changed, so a build that changes nothing leaves its time alone
// (tsc and the tests' staleness checks read it). Used by the build steps that generate sources.
import { readFileSync, writeFileSync } from 'node:fs';

/** Writes `text` to `target` unless it already holds exactly that. */
export function writeIfChanged(target, text) {
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // not generated yet
  }
  if (current !== text) writeFileSync(target, text);
}
