import type { Data } from '../../tensor/tensor.js';

/**
 * The CG contraction of one tensor-product path, compiled: the nonzero Clebsch–Gordan entries
 * are few and known when the layer is built, so each path gets straight-line JavaScript with
 * the coefficients inlined and the loads of x₁, x₂ and dZ hoisted — the code generation e3nn
 * does for its tensor products (e3nn's `codegen_tensor_product`), here by `new Function`.
 * Layouts as in TensorProductPlan: x rows of n values, copy u of an irrep at off + u·d, Z rows
 * r·d₃ + m₃ of K columns, this path's columns from k.
 */
export interface PathKernels {
  /** Z[(r·d₃ + m₃)·K + k + u·mul₂ + v] += Σ C[m₁,m₂,m₃] x₁[r,u,m₁] x₂[r,v,m₂]. */
  forward(
    x1: Data,
    x2: Data,
    z: Data,
    rows: number,
    n1: number,
    n2: number,
    off1: number,
    off2: number,
    K: number,
    k: number,
    mul1: number,
    mul2: number,
  ): void;
  /** dx₁[r,u,m₁] += Σ C x₂[r,v,m₂] dZ[…]. */
  backward1(
    x2: Data,
    dz: Data,
    dx1: Data,
    rows: number,
    n1: number,
    n2: number,
    off1: number,
    off2: number,
    K: number,
    k: number,
    mul1: number,
    mul2: number,
  ): void;
  /** dx₂[r,v,m₂] += Σ C x₁[r,u,m₁] dZ[…]. */
  backward2(
    x1: Data,
    dz: Data,
    dx2: Data,
    rows: number,
    n1: number,
    n2: number,
    off1: number,
    off2: number,
    K: number,
    k: number,
    mul1: number,
    mul2: number,
  ): void;
}

const cache = new Map<string, PathKernels>();

/** Kernels for the CG entries (m₁, m₂, m₃, coefficient) of a path between irreps of dimensions d₁, d₂, d₃. */
export function pathKernels(d1: number, d2: number, d3: number, cg: readonly (readonly [number, number, number, number])[]): PathKernels {
  const key = `${d1},${d2},${d3}|${cg.map((e) => e.join(':')).join(';')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const as = [...new Set(cg.map((e) => e[0]))].sort((a, b) => a - b);
  const bs = [...new Set(cg.map((e) => e[1]))].sort((a, b) => a - b);
  const cs = [...new Set(cg.map((e) => e[2]))].sort((a, b) => a - b);
  // w_{c,a} = Σ_{entries (a, b, c)} C·x₂[b]: the row's coefficient of x₁[a] in Z[c]
  const ca = new Map<string, string[]>();
  for (const [a, b, c, v] of cg) {
    const kk = `${c}_${a}`;
    ca.set(kk, [...(ca.get(kk) ?? []), `${v} * b${b}`]);
  }
  const loadB = bs.map((b) => `const b${b} = x2[yv + ${b}];`).join(' ');
  const weights = [...ca.entries()].map(([kk, terms]) => `const w${kk} = ${terms.join(' + ')};`).join(' ');
  const head = `
    for (let r = 0; r < rows; r++) {
      const xr = r * n1 + off1, yr = r * n2 + off2, zb = r * ${d3} * K + k;
      for (let v = 0; v < mul2; v++) {
        const yv = yr + v * ${d2};`;
  const uLoop = (body: string): string => `
        for (let u = 0; u < mul1; u++) {
          const xu = xr + u * ${d1}, col = zb + u * mul2 + v;
          ${body}
        }`;
  const forwardBody = `${head} ${loadB} ${weights} ${uLoop(`${as.map((a) => `const a${a} = x1[xu + ${a}];`).join(' ')}
          ${cs
            .map(
              (c) =>
                `z[col + ${c} * K] += ${[...ca.keys()]
                  .filter((kk) => kk.startsWith(`${c}_`))
                  .map((kk) => `w${kk} * a${kk.split('_')[1]}`)
                  .join(' + ')};`,
            )
            .join('\n          ')}`)}
      }
    }`;
  const back1Body = `${head} ${loadB} ${weights} ${uLoop(`${cs.map((c) => `const g${c} = dz[col + ${c} * K];`).join(' ')}
          ${as
            .map(
              (a) =>
                `dx1[xu + ${a}] += ${[...ca.keys()]
                  .filter((kk) => kk.endsWith(`_${a}`))
                  .map((kk) => `w${kk} * g${kk.split('_')[0]}`)
                  .join(' + ')};`,
            )
            .join('\n          ')}`)}
      }
    }`;
  // dx₂[b] = Σ_u Σ_{entries (a, b, c)} C·x₁[a]·dZ[c], accumulated over u before one write per b
  const back2Body = `${head} ${bs.map((b) => `let s${b} = 0;`).join(' ')} ${uLoop(`${as.map((a) => `const a${a} = x1[xu + ${a}];`).join(' ')} ${cs.map((c) => `const g${c} = dz[col + ${c} * K];`).join(' ')}
          ${bs
            .map(
              (b) =>
                `s${b} += ${cg
                  .filter((e) => e[1] === b)
                  .map(([a, , c, v]) => `${v} * a${a} * g${c}`)
                  .join(' + ')};`,
            )
            .join('\n          ')}`)}
        ${bs.map((b) => `dx2[yv + ${b}] += s${b};`).join(' ')}
      }
    }`;
  const args = 'rows, n1, n2, off1, off2, K, k, mul1, mul2';
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const make = (first: string, body: string): never => new Function(first, body) as never;
  const kernels: PathKernels = {
    forward: make(`x1, x2, z, ${args}`, forwardBody),
    backward1: make(`x2, dz, dx1, ${args}`, back1Body),
    backward2: make(`x1, dz, dx2, ${args}`, back2Body),
  };
  if (cache.size > 4096) cache.clear();
  cache.set(key, kernels);
  return kernels;
}
