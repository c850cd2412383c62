import { RangeArgError } from '../errors.js';

/**
 * Area under the ROC curve of `score` for predicting `positive`: the probability that a
 * random positive scores higher than a random negative, ties counting one half
 * (Mann–Whitney U / (n₊ n₋), with mid-ranks). Undefined when one class is empty.
 */
export function auroc(score: ArrayLike<number>, positive: ArrayLike<boolean>): number | undefined {
  const n = score.length;
  if (positive.length !== n) throw new RangeArgError(`auroc: ${n} scores but ${positive.length} labels`);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => score[a]! - score[b]!);
  let rankSum = 0, nPos = 0;
  for (let s = 0; s < n; ) {
    let e = s;
    while (e + 1 < n && score[order[e + 1]!] === score[order[s]!]) e++;
    const midRank = (s + e) / 2 + 1;
    for (let k = s; k <= e; k++) if (positive[order[k]!]) {
      rankSum += midRank;
      nPos++;
    }
    s = e + 1;
  }
  const nNeg = n - nPos;
  if (nPos === 0 || nNeg === 0) return undefined;
  return (rankSum - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}
