import { MATH } from './wgsl-math.js';

/** An array argument of a kernel: written or only read; `atomic`: bound as atomic<u32> (for float additions by compare-and-swap). */
export interface ArrayParam {
  readonly name: string;
  readonly write?: boolean;
  readonly atomic?: boolean;
}

/**
 * A compute kernel in WGSL, written against accessors rather than bindings: `ld_x(i)` reads
 * element i of array x and `st_x(i, v)` writes it (both from x's own start: the offset of a
 * view is added for it), scalars are `u.name`. Which arrays share a GPU buffer is known only
 * at the call (in-place calls, views of one array), so the bindings are generated per aliasing
 * pattern: each buffer is bound once, and the accessors of every array in it read that binding.
 */
export interface Kernel {
  readonly name: string;
  readonly arrays: readonly ArrayParam[];
  /** Scalar parameters, each u32 or f32. */
  readonly scalars: readonly (readonly [string, 'u32' | 'f32'])[];
  /** Threads per workgroup: [x] for one-dimensional kernels (`tid` is then the thread's index), [x, y] for tiled ones. */
  readonly workgroup: readonly [number] | readonly [number, number];
  /** The body of main; builtins gid, lid, wid, nwg (and tid for 1-d kernels) are in scope. */
  readonly body: string;
  /** Functions and workgroup variables the body uses. */
  readonly helpers?: string;
}

/** Bytes per uniform block: every block starts at a multiple of 256 (minUniformBufferOffsetAlignment). */
export const UNIFORM_BLOCK = 256;

/** The uniform block's fields, in order: each array's offset, then the scalars. */
export function uniformFields(k: Kernel): (readonly [string, 'u32' | 'f32'])[] {
  return [...k.arrays.map((a) => [`o_${a.name}`, 'u32'] as const), ...k.scalars];
}

/**
 * WGSL for kernel k with constants `consts` (baked in, one pipeline per value) and `slots[i]`
 * the binding that array i reads (arrays in one buffer share a slot).
 */
export function generate(k: Kernel, consts: Readonly<Record<string, number | boolean>>, slots: readonly number[]): string {
  const fields = uniformFields(k);
  if (fields.length * 4 > UNIFORM_BLOCK) throw new Error(`kernel ${k.name}: too many uniforms`);
  const nSlots = Math.max(-1, ...slots) + 1;
  const lines: string[] = [];
  lines.push(`struct U { ${fields.map(([n, t]) => `${n}: ${t}`).join(', ')} }`);
  lines.push('@group(0) @binding(0) var<uniform> u: U;');
  for (let s = 0; s < nSlots; s++) {
    const users = k.arrays.filter((_, i) => slots[i] === s);
    const atomic = users.some((a) => a.atomic);
    const write = users.some((a) => a.write);
    lines.push(`@group(0) @binding(${s + 1}) var<storage, ${write ? 'read_write' : 'read'}> b${s}: array<${atomic ? 'atomic<u32>' : 'f32'}>;`);
  }
  k.arrays.forEach((a, i) => {
    const b = `b${slots[i]}`;
    if (a.atomic) {
      lines.push(
        `fn add_${a.name}(i: u32, v: f32) { let p = &${b}[u.o_${a.name} + i]; var old = atomicLoad(p); loop { let r = atomicCompareExchangeWeak(p, old, bitcast<u32>(bitcast<f32>(old) + v)); if (r.exchanged) { break; } old = r.old_value; } }`,
      );
      return;
    }
    lines.push(`fn ld_${a.name}(i: u32) -> f32 { return ${b}[u.o_${a.name} + i]; }`);
    if (a.write) lines.push(`fn st_${a.name}(i: u32, v: f32) { ${b}[u.o_${a.name} + i] = v; }`);
  });
  for (const [name, v] of Object.entries(consts)) lines.push(`const ${name} = ${typeof v === 'boolean' ? v : `${v >>> 0}u`};`);
  lines.push(MATH, k.helpers ?? '');
  const [wx, wy] = [k.workgroup[0], k.workgroup[1] ?? 1];
  lines.push(`@compute @workgroup_size(${wx}, ${wy})`);
  lines.push(
    'fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {',
  );
  if (k.workgroup.length === 1) lines.push(`  let tid = (wid.y * nwg.x + wid.x) * ${wx}u + lid.x;`);
  lines.push(k.body, '}');
  return lines.join('\n');
}
