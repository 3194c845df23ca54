/**
 * The nearest of known words to one typed: the did-you-mean of flags, commands,
 * profiles and rule ids.
 */

/** Edit distance (Damerau–Levenshtein, adjacent swaps count one) between two words. */
export function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`, when it is close enough to be a typo: at
 * most a third of the word's letters off (at least one), or `word` a prefix of
 * exactly one candidate (`--base` for `--base-url`); case aside (`list-limit-defalt`
 * for `LIST-LIMIT-DEFAULT`).
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const prefixed = candidates.filter((c) => lower.length >= 3 && c.toLowerCase().startsWith(lower));
  if (prefixed.length === 1) return prefixed[0];
  let best: { candidate: string; d: number } | undefined;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (!best || d < best.d) best = { candidate, d };
  }
  return best && best.d <= Math.max(1, Math.floor(word.length / 3)) ? best.candidate : undefined;
}
