import { RangeArgError, ShapeError } from '../errors.js';
import { mat, matmul, transpose } from '../linalg/matrix.js';
import type { Mat } from '../linalg/matrix.js';
import { backend } from '../tensor/registry.js';
import type { Para, ParamSpec } from './para.js';
import { reparam } from './structure.js';
import type { ParamMap } from './structure.js';

/**
 * The parameter maps r: Q → P that spec strings can write, as the second argument of
 * `reparam(f, MAP)`:
 *
 *   tie((i,j,…),…)      each group of f's parameters (indices into f.params) reads one shared tensor
 *   cubic(c)            θ = φ + c·φ³ elementwise, on one flat φ holding all of f's parameters
 *   linear((row),…)     θ = Mφ for an invertible P×P matrix M given row by row (P = f's parameter count)
 *
 * Each prints as what it reads (numbers in JavaScript's shortest round-trip form), so
 * `reparam(f, MAP)` parses back to the same morphism. A map built in code from functions
 * (a ParamMap without `writable`) prints by its name and refuses printSpec.
 */

/** A value inside a map's argument list: a number, or a parenthesised tuple of values. */
type MapValue = number | readonly MapValue[];

const tuple = (vs: readonly MapValue[]): string => `(${vs.map((v) => (typeof v === 'number' ? String(v) : tuple(v))).join(',')})`;

/**
 * Weight tying: the parameters of f at the given indices all read one shared tensor per
 * group. `groups[g]` lists indices into f.params that share group g's tensor (same shapes);
 * parameters in no group stay free. The pullback sums the gradients of a group.
 * Prints as `reparam(f, tie((0,2),(1,3)))`.
 */
export function tie(f: Para, groups: readonly (readonly number[])[]): Para {
  return reparam(f, tieMap(f, groups));
}

function tieMap(f: Para, groups: readonly (readonly number[])[]): ParamMap {
  const name = `tie${tuple(groups)}`;
  const owner = new Map<number, number>();
  groups.forEach((g, gi) => {
    if (g.length === 0) throw new RangeArgError(`${name}: group ${gi + 1} is empty; a group lists at least one parameter index`);
    for (const i of g) {
      if (!(Number.isInteger(i) && i >= 0 && i < f.params.length)) {
        throw new RangeArgError(`${name}: ${i} is not a parameter index of ${f}; expected an integer from 0 to ${f.params.length - 1}`);
      }
      if (owner.has(i)) throw new RangeArgError(`${name}: parameter ${i} is listed twice; each index may appear once, in one group`);
      if (f.params[i]!.shape.join(',') !== f.params[g[0]!]!.shape.join(',')) {
        throw new ShapeError(`tie: ${f.params[i]!.name} and ${f.params[g[0]!]!.name} have different shapes`);
      }
      owner.set(i, gi);
    }
  });
  const free = f.params.map((_, i) => i).filter((i) => !owner.has(i));
  const qSpecs: ParamSpec[] = [...groups.map((g, gi) => ({ ...f.params[g[0]!]!, name: `tied${gi}` })), ...free.map((i) => f.params[i]!)];
  const source = (i: number): number => (owner.has(i) ? owner.get(i)! : groups.length + free.indexOf(i));
  return {
    name,
    writable: true,
    params: qSpecs,
    map: (q) => ({
      p: f.params.map((_, i) => q[source(i)]!),
      pullback: (dp, dq) => dp.forEach((g, i) => backend().axpy(1, g.data, dq[source(i)]!.data)),
    }),
  };
}

/** The number of scalars in f's parameters: the length of the flat φ of cubic and linear. */
function parameterCount(f: Para): number {
  return f.params.reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
}

/** θ = h(φ) for a single flat parameter φ [P], split into f's parameter shapes; hT(φ, dθ) is the pullback dθ ↦ dφ. */
function flatMap(f: Para, name: string, h: (phi: Float64Array) => Float64Array, hT: (phi: Float64Array, dTheta: Float64Array) => Float64Array): ParamMap {
  const P = parameterCount(f);
  return {
    name,
    writable: true,
    params: [
      {
        name: 'phi',
        shape: [P],
        init: (rng, out) => {
          for (let i = 0; i < out.length; i++) out[i] = rng.normal() * 0.5;
        },
      },
    ],
    map(q, ctx) {
      const th = h(Float64Array.from(q[0]!.data));
      let o = 0;
      const p = f.params.map((s) => {
        const t = ctx.alloc(s.shape, q[0]!.dtype);
        t.data.set(th.subarray(o, o + t.size));
        o += t.size;
        return t;
      });
      return {
        p,
        pullback(dp, dq) {
          const flat = new Float64Array(P);
          let k = 0;
          for (const d of dp) {
            flat.set(d.data, k);
            k += d.size;
          }
          const g = hT(Float64Array.from(q[0]!.data), flat);
          for (let i = 0; i < P; i++) dq[0]!.data[i]! += g[i]!;
        },
      };
    },
  };
}

/** f with θ = Mφ (M a P×P matrix, P = f's parameter count; invertible for a change of coordinates). Prints as `reparam(f, linear((row),…))`. */
export function linearReparam(f: Para, M: Mat): Para {
  const P = parameterCount(f);
  if (M.rows !== P || M.cols !== P) throw new ShapeError(`linear: ${f} has ${P} parameters, so θ = Mφ needs M ${P}×${P}, but got ${M.rows}×${M.cols}`);
  const rows = Array.from({ length: P }, (_, i) => Array.from(M.data.subarray(i * P, (i + 1) * P)));
  const apply = (A: Mat, v: Float64Array): Float64Array => matmul(A, mat(v.length, 1, v)).data;
  const Mt = transpose(M);
  return reparam(
    f,
    flatMap(
      f,
      `linear${tuple(rows)}`,
      (phi) => apply(M, phi),
      (_phi, d) => apply(Mt, d),
    ),
  );
}

/** f with θ = φ + c·φ³ elementwise (for c ≥ 0 a nonlinear, invertible change of coordinates). Prints as `reparam(f, cubic(c))`. */
export function cubicReparam(f: Para, c = 0.5): Para {
  if (!Number.isFinite(c)) throw new RangeArgError(`cubic: c must be a finite number, got ${c}`);
  return reparam(
    f,
    flatMap(
      f,
      `cubic(${c})`,
      (phi) => phi.map((v) => v + c * v ** 3),
      (phi, d) => d.map((v, i) => v * (1 + 3 * c * phi[i]! ** 2)),
    ),
  );
}

/** Reads `name(v,…)` with v a number or a parenthesised tuple of values; throws on anything else. */
function readMap(text: string): { name: string; args: MapValue[] } {
  const tokens = text.match(/[A-Za-z_]\w*|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[(),]|\S/g) ?? [];
  let k = 0;
  const fail = (what: string): never => {
    throw new Error(`parameter map '${text}': ${what}; expected e.g. tie((0,2)), cubic(0.5) or linear((1,0),(0,1))`);
  };
  const value = (): MapValue => {
    const t = tokens[k++];
    if (t === '(') return list();
    const v = Number(t);
    if (t === undefined || !Number.isFinite(v)) fail(`expected a number or '(' but found ${t === undefined ? 'the end' : `'${t}'`}`);
    return v;
  };
  const list = (): MapValue[] => {
    const vs = [value()];
    while (tokens[k] === ',') {
      k++;
      vs.push(value());
    }
    if (tokens[k++] !== ')') fail(`expected ',' or ')'`);
    return vs;
  };
  const name = tokens[k++] ?? '';
  if (!/^[A-Za-z_]/.test(name)) fail('expected the name of a map');
  if (tokens[k++] !== '(') fail(`expected '(' after ${name}`);
  const args = list();
  if (k !== tokens.length) fail(`unexpected '${tokens[k]}' after the map`);
  return { name, args };
}

const PARAM_MAPS: Record<string, (f: Para, args: MapValue[], text: string) => Para> = {
  tie: (f, args, text) =>
    tie(
      f,
      args.map((g) => (typeof g === 'number' ? notTuple(text, 'tie', 'groups like (0,2)') : g.map((i) => intOf(i, text)))),
    ),
  cubic: (f, args, text) => (args.length === 1 && typeof args[0] === 'number' ? cubicReparam(f, args[0]) : notTuple(text, 'cubic', 'one number c')),
  linear: (f, args, text) => {
    const rows = args.map((r) =>
      typeof r === 'number'
        ? notTuple(text, 'linear', 'rows like (1,0)')
        : r.map((v) => (typeof v === 'number' ? v : notTuple(text, 'linear', 'numbers in each row'))),
    );
    const P = rows.length;
    if (rows.some((r) => r.length !== P)) throw new ShapeError(`linear: M must be square, but its rows have lengths ${rows.map((r) => r.length).join(', ')}`);
    return linearReparam(f, mat(P, P, rows.flat()));
  },
};

function notTuple(text: string, name: string, want: string): never {
  throw new Error(`parameter map '${text}': ${name} takes ${want}`);
}

function intOf(v: MapValue, text: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new Error(`parameter map '${text}': tie takes integer parameter indices, got ${typeof v === 'number' ? v : tuple(v)}`);
  return v;
}

/** `reparam(f, MAP)` from the text of MAP (the spec parser's `reparam` layer). */
export function reparamFromSpec(f: Para, text: string): Para {
  const { name, args } = readMap(text);
  const make = Object.hasOwn(PARAM_MAPS, name) ? PARAM_MAPS[name] : undefined;
  if (!make) throw new Error(`unknown parameter map '${name}'; known: ${Object.keys(PARAM_MAPS).join(', ')}`);
  return make(f, args, text);
}
