import { GEOMETRY_FORMS } from '../../symmetry/geometry/geometry.js';
import { attentionDimension, attentionElements, attentionGroup, deriveAttention, deriveAttentionCost, valueMapLines } from '../../symmetry/geometry/derive.js';
import type { DerivedAttention } from '../../symmetry/geometry/derive.js';
import { kernelMatrix } from '../../symmetry/geometry/kernels.js';
import { parseGeometry, geometryText } from '../../symmetry/geometry/geometry.js';
import { irrepName } from '../../symmetry/irreps/irrep.js';
import { UsageError } from '../args.js';
import type { CliIO } from '../command.js';
import { fmt } from '../progress.js';

export const ATTENTION_FORMS = GEOMETRY_FORMS.join(', ');

/** The most numbers --basis prints (dimension × N² for a finite geometry). */
const MAX_BASIS_VALUES = 2 ** 22;

/** The basis as nested arrays: N×N matrices (finite), or the invariant forms, the rotary forms and the Clebsch–Gordan tensors. */
function basisJson(d: DerivedAttention): Record<string, unknown> {
  if (d.kind === 'finite') {
    const N = d.kernels.points;
    const rows = (m: Float64Array, n: number): number[][] => Array.from({ length: n }, (_, i) => Array.from(m.subarray(i * n, (i + 1) * n)));
    const out: Record<string, unknown> = { basis: Array.from({ length: d.kernels.dimension }, (_, b) => rows(kernelMatrix(d.kernels, b), N)) };
    if (d.rotary) {
      const dh = d.rotary.dh;
      out.rotary_forms = Array.from({ length: d.rotary.dimension }, (_, b) => rows(d.rotary!.forms.subarray(b * dh * dh, (b + 1) * dh * dh), dh));
    }
    return out;
  }
  return {
    invariant_forms: d.points.invariantForms.map((m) => [0, 1, 2].map((i) => Array.from(m.subarray(3 * i, 3 * i + 3)))),
    clebsch_gordan: d.points.valueMaps.map((p) => {
      const [a, e, o] = [2 * p.in.l + 1, 2 * p.edge.l + 1, 2 * p.out.l + 1];
      return Array.from({ length: a }, (_, i) => Array.from({ length: e }, (_, j) => Array.from(p.cg.subarray((i * e + j) * o, (i * e + j + 1) * o))));
    }),
  };
}

/** The flags of `derive` that --attention reads (derive.ts declares them). */
export interface AttentionFlags {
  readonly attention?: string;
  readonly group?: string;
  readonly in?: string;
  readonly out?: string;
  readonly decompose?: string;
  readonly symmetry?: string;
  readonly basis?: boolean;
  readonly json?: boolean;
  readonly 'max-memory': number;
  readonly 'head-width': number;
}

/**
 * `paralens derive --attention GEOMETRY`: the kernel space the solver derives for attention on a
 * declared geometry — its dimension, one description per basis element, the value maps, and with
 * --basis the matrices.
 */
export async function runAttention(flags: AttentionFlags, io: CliIO): Promise<number> {
  for (const k of ['group', 'in', 'out', 'decompose', 'symmetry'] as const)
    if (flags[k] !== undefined) throw new UsageError(`derive --attention takes a geometry alone; drop --${k}`);
  const g = parseGeometry(String(flags.attention));
  const maxBytes = flags['max-memory'] * 2 ** 20;
  deriveAttentionCost(g, maxBytes);
  const N = g.kind === 'points' ? 0 : g.kind === 'grid' ? g.H * g.W : g.kind === 'set' ? g.n : g.T;
  const d = deriveAttention(g, { headWidth: flags['head-width'], maxBytes });
  const dimension = attentionDimension(d);
  if (flags.basis && d.kind === 'finite' && dimension * N * N > MAX_BASIS_VALUES)
    throw new UsageError(
      `derive --attention ${geometryText(g)} --basis: ${dimension} matrices of ${N}×${N} are more than ${MAX_BASIS_VALUES} numbers; drop --basis (the descriptions name every element)`,
    );
  const elements = attentionElements(d);
  if (flags.json) {
    const out: Record<string, unknown> = {
      geometry: geometryText(g),
      group: attentionGroup(d),
      ...(d.kind === 'finite' ? { points: d.kernels.points } : { points: d.geometry.n, lmax: d.geometry.lmax }),
      dimension,
      elements: elements.map((description, index) => ({ index, description, ...(d.kind === 'finite' ? { pairs: d.kernels.sizes[index] } : {}) })),
      value_maps:
        d.kind === 'points'
          ? d.points.valueMaps.map((p) => ({ in: irrepName(p.in), edge: `Y_${p.edge.l}`, out: irrepName(p.out), radial: d.points.radial.centres.length }))
          : [{ in: 'trivial', out: 'trivial', description: valueMapLines(d)[0] }],
      ...(d.kind === 'finite' && d.rotary
        ? { rotary: { head_width: d.rotary.dh, frequencies: Array.from(d.rotary.frequencies), dimension: d.rotary.dimension, residual: d.rotary.residual } }
        : {}),
      ...(d.kind === 'points' ? { invariants: d.points.invariantForms.length } : {}),
      seconds: d.seconds,
      ...(flags.basis ? basisJson(d) : {}),
    };
    io.out(JSON.stringify(out) + '\n');
    return 0;
  }
  io.out(`geometry     ${geometryText(g)}\n`);
  io.out(`group        ${attentionGroup(d)}\n`);
  io.out(
    `dimension    ${dimension}${d.kind === 'finite' ? ` (invariant kernels on the visible pairs of ${N} positions)` : ' (radial basis × the invariant |x_k − x_q|²)'}\n`,
  );
  io.out(`derived in   ${fmt(d.seconds, 3)} s\n`);
  elements.forEach((e, i) => io.out(`  ${String(i + 1).padStart(3)}  ${e}\n`));
  io.out(
    `value maps:\n${valueMapLines(d)
      .map((l) => `  ${l}\n`)
      .join('')}`,
  );
  if (d.kind === 'finite' && d.rotary)
    io.out(
      `rotary: ρ(m) = ⊕ R(m·ω_i) on dh = ${d.rotary.dh}; Hom(ρ, ρ) has dimension ${d.rotary.dimension} (span{I_i, J_i} per pair; B = I gives RoPE's score)\n`,
    );
  if (flags.basis) {
    const cell = (v: number): string => (Math.abs(v) < 1e-12 ? '0' : Number(v.toFixed(3)).toString());
    if (d.kind === 'finite')
      for (let b = 0; b < dimension; b++) {
        const m = kernelMatrix(d.kernels, b);
        io.out(`basis element ${b + 1}:\n`);
        for (let i = 0; i < N; i++) io.out(`  [ ${Array.from(m.subarray(i * N, (i + 1) * N), cell).join(' ')} ]\n`);
      }
    else
      for (const p of d.points.valueMaps)
        io.out(`Clebsch–Gordan ${irrepName(p.in)} ⊗ Y_${p.edge.l} → ${irrepName(p.out)}: [ ${Array.from(p.cg, cell).join(' ')} ]\n`);
  }
  return 0;
}
