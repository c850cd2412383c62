import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import { residentData } from '../../tensor/memory.js';
import type { Para } from '../../para/para.js';
import { glorotUniform, zeros } from '../initializers.js';
import { backend, Tensor } from '../../tensor/index.js';
import type { DType } from '../../tensor/index.js';

/**
 * The equivariant maps V⊗R^cin → V⊗R^cout for a group acting on n points by permutations
 * are Hom_G(V,V) ⊗ Hom(R^cin, R^cout): y = Σ_b M_b · X · Λ_bᵀ (+ a bias shared by all
 * points), with M_b (n×n) a basis of the derived end and Λ_b (cout×cin) free. DeepSets and
 * message passing are this layer with different M_b.
 *
 * Per sample: X is [n, cin] (points × channels), Y is [n, cout].
 */
export function pointMixing(kind: string, args: readonly (number | string)[], mixers: readonly Float64Array[], n: number, cin: number, cout: number): Para {
  const nb = mixers.length;
  // the mixers as tensors of the input's dtype, made once per dtype (not copied every step)
  const asTensors = new Map<DType, Tensor[]>();
  const mixersAs = (dt: DType): Tensor[] => {
    let M = asTensors.get(dt);
    if (!M) {
      M = mixers.map((m) => {
        const data = residentData(dt, n * n); // where the backend computes, like parameters
        data.set(m);
        return new Tensor(data, [n, n]);
      });
      asTensors.set(dt, M);
    }
    return M;
  };
  const self: Para = primitive({
    kind,
    args,
    dom: [n, cin],
    cod: [n, cout],
    params: [
      ...mixers.map((_, b) => ({ name: `lambda${b}`, shape: [cout, cin], init: glorotUniform(cin * nb, cout) })),
      { name: 'bias', shape: [cout], init: zeros },
    ],
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const be = backend();
      const B = x.batch,
        dt = x.dtype;
      const M = mixersAs(dt);
      const y = ctx.alloc([B, n, cout], dt);
      const Z = ctx.alloc([B * n, cout], dt);
      for (let b = 0; b < nb; b++) {
        be.gemm(false, true, B * n, cout, cin, x.data, theta[b]!.data, Z.data, false);
        for (let s = 0; s < B; s++)
          be.gemm(
            false,
            false,
            n,
            cout,
            n,
            M[b]!.data,
            Z.data.subarray(s * n * cout, (s + 1) * n * cout),
            y.data.subarray(s * n * cout, (s + 1) * n * cout),
            true,
          );
      }
      be.addRowVector(y.data, theta[nb]!.data, B * n, cout, y.data, 'identity');
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dx = ctx.alloc([B, n, cin], dt);
          const dZ = ctx.alloc([B * n, cout], dt);
          for (let b = 0; b < nb; b++) {
            for (let s = 0; s < B; s++)
              be.gemm(
                true,
                false,
                n,
                cout,
                n,
                M[b]!.data,
                dy.data.subarray(s * n * cout, (s + 1) * n * cout),
                dZ.data.subarray(s * n * cout, (s + 1) * n * cout),
                false,
              );
            if (dTheta) be.gemm(true, false, cout, cin, B * n, dZ.data, x.data, dTheta[b]!.data, true);
            if (needDx) be.gemm(false, false, B * n, cin, cout, dZ.data, theta[b]!.data, dx.data, true);
          }
          if (dTheta) be.sumRows(dy.data, B * n, cout, dTheta[nb]!.data, true);
          return dx;
        },
      };
    },
  });
  return self;
}
