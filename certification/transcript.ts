/** transcript.jsonl read back: each line parsed and validated against spec/transcript-schema.ts. */
import type { TranscriptEntry } from '../core/transcript.js';
import { transcriptEntrySchema } from '../spec/transcript-schema.js';
import { type SchemaViolation, validatorFor, violationsOf } from '../spec/validate.js';

/** Why a line of a transcript cannot be read. */
export type TranscriptDefect = { kind: 'not-json' } | { kind: 'schema'; violations: SchemaViolation[] } | { kind: 'seq-repeated'; seq: number };

/** Parses transcript.jsonl: its entries, or the first line that cannot be read (from 1) and why. */
export function parseTranscript(text: string): { entries: TranscriptEntry[] } | { line: number; defect: TranscriptDefect } {
  const validate = validatorFor<TranscriptEntry>(transcriptEntrySchema);
  const entries: TranscriptEntry[] = [];
  const seen = new Set<number>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const [i, line] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { line: i + 1, defect: { kind: 'not-json' } };
    }
    if (!validate(value)) return { line: i + 1, defect: { kind: 'schema', violations: violationsOf(validate.errors) } };
    // Uniqueness across lines is beyond a schema of one line.
    if (seen.has(value.seq)) return { line: i + 1, defect: { kind: 'seq-repeated', seq: value.seq } };
    seen.add(value.seq);
    entries.push(value);
  }
  return { entries };
}
