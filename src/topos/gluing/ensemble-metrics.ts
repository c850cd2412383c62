import { RangeArgError } from '../../errors.js';
import { ranks } from '../../linalg/rank.js';

/**
 * Area under the ROC curve of `score` for predicting `positive`: the probability that a
 * random positive scores higher than a random negative, ties counting one half
 * (Mann–Whitney U / (n₊ n₋), with mid-ranks). Undefined when one class is empty.
 */
export function auroc(score: ArrayLike<number>, positive: ArrayLike<boolean>): number | undefined {
  const n = score.length;
  if (positive.length !== n) throw new RangeArgError(`auroc: ${n} scores but ${positive.length} labels`);
  const r = ranks(Array.from(score));
  let rankSum = 0,
    nPos = 0;
  for (let i = 0; i < n; i++)
    if (positive[i]) {
      rankSum += r[i]!; // mid-ranks are multiples of ½: the sum is exact in any order
      nPos++;
    }
  const nNeg = n - nPos;
  if (nPos === 0 || nNeg === 0) return undefined;
  return (rankSum - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}
