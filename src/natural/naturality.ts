import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import { checkAdapter } from '../nn/natural/adapter.js';
import type { InputMorphism, RepresentationFunctor } from './functor.js';

/** The naturality square of η at one arrow f, measured on data. */
export interface NaturalityReport {
  readonly arrow: string;
  /** mean over x of ‖G(f)(η(F x)) − η(F(f)(F x))‖₂. */
  readonly defect: number;
  /** defect / mean ‖η(F(f)(F x))‖₂. */
  readonly relative: number;
  /** How far F and G are from acting affinely on features along f (0 = an exact action). */
  readonly residualF: number;
  readonly residualG: number;
}

/**
 * The naturality defect of η: F ⇒ G (seed 000, §Natural transformations: "the mapping
 * commutes with all arrows in the source category"): for each arrow f of the input
 * category, the two paths around the square
 *
 *     F(X) --η--> G(X)
 *      |F(f)       |G(f)
 *      v           v
 *     F(X) --η--> G(X)
 *
 * are compared at the features F(x) of every data point x, and the norm of the
 * difference averaged. η is a Para morphism with parameters θ (its component at the one
 * object); a defect of 0 for every f means η is natural on this data.
 */
export function naturalityDefect(
  eta: Para,
  theta: readonly Tensor[],
  F: RepresentationFunctor,
  G: RepresentationFunctor,
  arrows: readonly InputMorphism[],
  x: Tensor,
): NaturalityReport[] {
  const N = x.batch;
  const Fx = F.features(x);
  const p = Fx.length / N;
  const q = G.features(x.rows(0, 1)).length;
  const e = checkAdapter(eta, p, q, `η: ${F.name} ⇒ ${G.name}`);
  const runEta = (h: Float64Array): Float64Array => Float64Array.from(e.run(theta, Tensor.of(h, [N, p], 'float64')).data);
  const etaFx = runEta(Fx);
  return arrows.map((f) => {
    const Ff = F.action(f, x),
      Gf = G.action(f, x);
    const right = Gf.map(etaFx, N); // G(f) ∘ η_X
    const down = runEta(Ff.map(Fx, N)); // η_Y ∘ F(f)
    let defect = 0,
      scale = 0;
    for (let r = 0; r < N; r++) {
      let d = 0,
        s = 0;
      for (let j = 0; j < q; j++) {
        d += (right[r * q + j]! - down[r * q + j]!) ** 2;
        s += down[r * q + j]! ** 2;
      }
      defect += Math.sqrt(d) / N;
      scale += Math.sqrt(s) / N;
    }
    return { arrow: f.name, defect, relative: defect / Math.max(scale, 1e-300), residualF: Ff.residual, residualG: Gf.residual };
  });
}
