/** transcript.har read back: parsed and validated against spec/transcript-schema.ts. */
import type { Transcript, TranscriptEntry } from '../core/transcript.js';
import { transcriptSchema } from '../spec/transcript-schema.js';
import { type SchemaViolation, validatorFor, violationsOf } from '../spec/validate.js';

/** Why a transcript cannot be read (`entry`: the index of the entry whose `_seq` repeats an earlier one's). */
export type TranscriptDefect =
  { kind: 'not-json' } | { kind: 'schema'; violations: SchemaViolation[] } | { kind: 'seq-repeated'; entry: number; seq: number };

/** Parses transcript.har: its entries, or why it cannot be read. */
export function parseTranscript(text: string): { entries: TranscriptEntry[] } | { defect: TranscriptDefect } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { defect: { kind: 'not-json' } };
  }
  const validate = validatorFor<Transcript>(transcriptSchema);
  if (!validate(value)) return { defect: { kind: 'schema', violations: violationsOf(validate.errors) } };
  const { entries } = value.log;
  // Uniqueness of a field across entries is beyond the schema.
  const seen = new Set<number>();
  for (const [i, entry] of entries.entries()) {
    if (seen.has(entry._seq)) return { defect: { kind: 'seq-repeated', entry: i, seq: entry._seq } };
    seen.add(entry._seq);
  }
  return { entries };
}
