import { distance } from 'fastest-levenshtein';

/**
 * The names nearest to `word` that are near enough to be what was meant (at most `max`,
 * nearest first): an edit distance of at most a third of the longer name (at most 3, case
 * ignored), or one name inside the other (`sum` → `get-sum`). None when
 * nothing is close: a suggestion that is a guess is worse than none.
 */
export function nearest(word: string, names: Iterable<string>, max = 3): string[] {
  const typed = word.toLowerCase();
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of new Set(names)) {
    if (name === word) continue;
    const lower = name.toLowerCase();
    const d = distance(typed, lower);
    // A third of the longer name: none for names of 1 to 3 characters ("c" is not "a").
    const limit = Math.min(3, Math.floor(Math.max(typed.length, lower.length) / 3));
    if (d <= limit) scored.push({ name, score: d });
    else if (typed.length >= 3 && (lower.includes(typed) || typed.includes(lower)))
      scored.push({ name, score: limit + 1 });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((s) => s.name);
}

/** ` — did you mean "tools"?` (or `"a" or "b"`), or `''` when nothing is near. */
export function didYouMean(word: string, names: Iterable<string>, quote = true): string {
  const found = nearest(word, names);
  if (found.length === 0) return '';
  const q = (n: string) => (quote ? `"${n}"` : n);
  const list =
    found.length === 1
      ? q(found[0]!)
      : `${found.slice(0, -1).map(q).join(', ')} or ${q(found[found.length - 1]!)}`;
  return ` — did you mean ${list}?`;
}
