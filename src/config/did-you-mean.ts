/** Optimal string alignment distance (Levenshtein plus adjacent swaps): "dtabase" -> "database" is 1. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * cols + j] = v;
    }
  }
  return at(a.length, b.length);
}

/** Case, '-' and '_' do not matter when guessing: dependsOn, depends-on and dependson all mean depends_on. */
function fold(s: string): string {
  return s.toLowerCase().replace(/[-_\s]/g, "");
}

/**
 * The closest candidate to a mistyped word, or undefined when nothing is close enough to be a
 * useful guess (a wrong suggestion is worse than none).
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > 200) return undefined; // not a typo, and the distance is quadratic
  let best: string | undefined;
  let bestScore = Infinity;
  const w = fold(word);
  for (const c of candidates) {
    if (c === word || Math.abs(c.length - word.length) > Math.max(2, word.length / 2)) continue;
    const f = fold(c);
    const score = f === w ? 0 : editDistance(w, f);
    const limit = Math.max(1, Math.floor(Math.max(w.length, f.length) / 3));
    if (score <= limit && score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}

/** `(did you mean "x"?)` suffix, or "" when there is no good guess. */
export function didYouMeanSuffix(word: string, candidates: Iterable<string>): string {
  const guess = didYouMean(word, candidates);
  return guess === undefined ? "" : ` (did you mean "${guess}"?)`;
}

/** "a, b, c" for a hint, shortened for long lists: "a, b, ... and 40 more". */
export function listNames(names: readonly string[], max = 10): string {
  if (names.length <= max) return names.join(", ");
  return `${names.slice(0, max).join(", ")}, ... and ${names.length - max} more`;
}
