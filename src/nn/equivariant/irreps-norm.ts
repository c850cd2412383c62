import type { Para } from '../../para/para.js';
import { toIrreps } from '../../symmetry/irreps/irrep.js';
import type { IrrepsLike } from '../../symmetry/irreps/irrep.js';
import { rowsShape } from './irreps-gate.js';
import { normNonlinearity } from './norm.js';

/**
 * irreps_norm(irreps[, n]): the norm nonlinearity on irreps (Worrall et al. 2017; e3nn's
 * `NormActivation`): every copy v of an irrep other than the even scalars is scaled by
 * σ(‖v‖ + b) with a learned bias per copy (‖D(g)v‖ = ‖v‖, so this is equivariant; odd scalars
 * s ↦ s·σ(|s| + b) keep their parity), even scalars go through swish. irreps → irreps.
 */
export function irrepsNorm(irreps: IrrepsLike, n?: number): Para {
  const ir = toIrreps(irreps);
  const scalars: number[] = [];
  const blocks: Int32Array[] = [];
  ir.terms.forEach((t, i) => {
    const d = ir.irDim(i);
    for (let u = 0; u < t.mul; u++) {
      const off = ir.offsets[i]! + u * d;
      if (t.ir.l === 0 && t.ir.p !== -1) scalars.push(off);
      else blocks.push(Int32Array.from({ length: d }, (_, j) => off + j));
    }
  });
  return normNonlinearity('irreps_norm', n ? [String(ir), n] : [String(ir)], rowsShape(ir.dim, n), scalars, blocks);
}
