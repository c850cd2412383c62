// Inputs for the budgeted CLI fuzzers (budget.ts): what a hostile or careless user can type or
// hand over as a file. Sizes reach past every limit on purpose — the cost model must refuse
// them, not the generator avoid them.
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { mutate } from './cleanly.js';
import type { SpecialFile } from './budget.js';
import { npyBytes } from '../data/npy-files.js';

/** Cases per fuzzer: a few hundred in `npm test`; PARALENS_FUZZ_RUNS for the long run of docs/reliability.md. */
export const FUZZ_CASES = Number(process.env.PARALENS_FUZZ_RUNS ?? 200);

/** The seed of this run (PARALENS_FUZZ_SEED to replay one); printed with every failure. */
export const FUZZ_SEED = Number(process.env.PARALENS_FUZZ_SEED ?? Date.now() % 2 ** 31);

/** `n` values of `arb`, reproducibly from FUZZ_SEED (and the fuzzer's own offset). */
export function sample<T>(arb: fc.Arbitrary<T>, n: number, offset: number): T[] {
  return fc.sample(arb, { numRuns: n, seed: FUZZ_SEED + offset });
}

const NUMBERS = ['0', '1', '2', '3', '4', '7', '16', '64', '65', '100', '999', '4096', '4097', '99999', '1e9', '-1', '1.5', '2e30', '00', '9'.repeat(12)];
const num = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NUMBERS) }, { weight: 1, arbitrary: fc.nat(5000).map(String) });

/** Token soups over a grammar's alphabet, with numbers of every size. */
function soup(tokens: readonly string[], maxLength: number): fc.Arbitrary<string> {
  return fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...tokens) }, { weight: 1, arbitrary: num }), { maxLength }).map((t) => t.join(''));
}

/** A valid expression with a random cut, insertion and splice (fast-check's mutations of text). */
function mutated(valid: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...valid), fc.nat(80), fc.nat(80), fc.oneof(fc.string({ maxLength: 4 }), num))
    .map(([s, i, j, ins]) => s.slice(0, i % (s.length + 1)) + ins + s.slice(j % (s.length + 1)));
}

/** Deep or long repetitions: nesting past the parsers' limits, and chains past the size limits. */
function repeated(open: string, middle: string, close: string): fc.Arbitrary<string> {
  return fc.integer({ min: 1, max: 5000 }).map((k) => open.repeat(k) + middle + close.repeat(k));
}

/** Raw text: control characters, line breaks, characters outside the BMP, lone surrogates. */
export const rawText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('a\nb', '\u0000', '😀)', '\ud800', '\r\n', ' '.repeat(10)),
);

export const REP_VALID = ['V', 'T(2)', 'V+T(0)', '3V', 'T(1,1)', 'T2', 'T1_1', 'dual(V)*V', '(V+T(0))*V', 'sum(V,T(0))', 'tensor(V,V)', '2(V+T0)'];
export const GROUP_VALID = [
  'S(4)',
  'Z(8)',
  'D(6)',
  'Trans(16)',
  'Trans(8,8)',
  'SO(3)',
  'O(5)',
  'O(1,3)',
  'SO+(1,3)',
  'Perm((1,2,3,0),(3,2,1,0))',
  'S(3)xZ(2)',
  'O(1)',
  'Z(3)*Z(3)',
  'DirectProduct(S(3),Z(2))',
  'DirectSum(SO(2),Z(3))',
  'RubiksCube()',
];

export const repExpr = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...REP_VALID) },
  soup(['V', 'T', 'T(', '(', ')', ',', '+', '*', '⊗', '_', 'dual(', 'sum(', 'tensor(', ' ', 'x', '-1'], 16),
  mutated(REP_VALID),
  repeated('(', 'V', ')'),
  repeated('dual(', 'V', ')'),
  fc.tuple(num, num).map(([a, b]) => `${a}(${b}(${a}V))`),
  num.map((k) => `T(${k})`),
  rawText,
);

export const groupExpr = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...GROUP_VALID) },
  soup(
    ['S', 'Z', 'D', 'SO', 'SO+', 'O', 'Trans', 'Perm', 'DirectProduct(', 'DirectSum(', 'RubiksCube()', '(', ')', ',', 'x', '*', ' ', '(1,0)', '(0,1,2)'],
    14,
  ),
  mutated(GROUP_VALID),
  fc.tuple(fc.constantFrom('S', 'Z', 'D', 'SO', 'O', 'Trans'), num).map(([g, n]) => `${g}(${n})`),
  fc
    .tuple(fc.array(fc.constantFrom('O(64)', 'SO(40)', 'S(4096)', 'Z(3)', 'S(64)', 'RubiksCube()'), { minLength: 2, maxLength: 6 }), fc.constantFrom('x', '*'))
    .map(([fs, op]) => fs.join(op)),
  fc.integer({ min: 1, max: 40 }).map((k) => `${'DirectProduct(Z(2),'.repeat(k)}Z(2)${')'.repeat(k)}`),
  rawText,
);

const LAYERS = [
  'dense',
  'sigmoid',
  'relu',
  'tanh',
  'softmax',
  'copy',
  'add',
  'id',
  'discard',
  'residual',
  'leaky_relu',
  'gelu',
  'dropout',
  'conv2d',
  'maxpool2d',
  'flatten',
  'map',
  'sum_pool',
  'equivariant',
  'set_equivariant',
  'message_passing',
  'conv1d_periodic',
  'conv2d_periodic',
  'gated',
  'norm_gated',
  'bilinear',
  'emlp',
  'rope_attention',
  'bayes_dense',
  'adapter',
  'embedding',
  'layernorm',
  'rmsnorm',
  'attention',
  'transformer',
  'tensor_product',
  'irreps_linear',
  'irreps_gate',
  'irreps_norm',
  'sh_embedding',
  'e3_conv',
  'displace',
  'points_linear',
  'tokens',
  'reparam',
  'tied',
  'masked_map',
  'max_pool',
];
export const SPEC_VALID = [
  'dense(2,4) >> sigmoid >> dense(4,1) >> sigmoid',
  'residual(dense(3,3) >> tanh) @ copy(2)',
  'copy(3) >> (dense(3,2) @ dense(3,2)) >> add(2)',
  'embedding(32,8) >> transformer(8,2,16,rope) >> dense(8,32)',
  'attention(8,2,relative)',
  'attention(8,2,seq(8,causal,rotary)) >> attention(8,2,grid(2,4))',
  'points_linear(4,1x0e+1x1o,4x0e+2x1o) >> attention(4x0e+2x1o,2,points(4)) >> points_linear(4,4x0e+2x1o,1x1o) >> displace(4)',
  'irreps_linear(1x0e+1x1o,2x1o)',
  'tensor_product(1x0e+1x1o,1x1o,1x0e+1x1e)',
  'sh_embedding(4,2,4,2.0)',
  'e3_conv(4,1x0e,2x0e+1x1o,1x1o,2)',
  'equivariant(S(4),V,V+T(0)) >> gated(S(4),V)',
  'set_equivariant(5,2,3)',
  'conv1d_periodic(8,1,2,3)',
  'emlp(SO(3),V,V+T(0),T(0),2)',
  'message_passing(cycle(6),2,2)',
  'map(dense(2,2),3) >> sum_pool',
];

export const specExpr = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...SPEC_VALID) },
  soup([...LAYERS, '(', ')', ',', '>>', '@', ' ', 'S(4)', 'Z(2)', 'V', 'T(64)', 'T2', 'cycle(9)', 'seq(9)', 'grid(2,2,D4)', 'points(3)', '$', '>'], 24),
  mutated(SPEC_VALID),
  repeated('(', 'relu', ')'),
  repeated('residual(', 'dense(2,2)', ')'),
  fc
    .tuple(fc.constantFrom('equivariant', 'gated', 'bilinear', 'norm_gated'), groupExpr, repExpr, repExpr)
    .map(([l, g, a, b]) => (l === 'equivariant' ? `${l}(${g},${a},${b})` : `${l}(${g},${a})`)),
  fc
    .tuple(
      fc.constantFrom(
        'set_equivariant',
        'conv1d_periodic',
        'dense',
        'adapter',
        'emlp(S(3),V,V,V,',
        'embedding',
        'layernorm',
        'attention',
        'transformer',
        'sh_embedding',
        'displace',
        'e3_conv',
      ),
      num,
      num,
    )
    .map(([l, a, b]) => (l.endsWith(',') ? `${l}${a})` : `${l}(${a},${b},2,3)`)),
  // e3nn irreps with every multiplicity and degree
  fc
    .tuple(fc.constantFrom('irreps_linear', 'irreps_norm', 'irreps_gate', 'tensor_product'), num, num, fc.constantFrom('e', 'o', ''))
    .map(([l, k, deg, p]) => `${l}(${k}x${deg}${p},${deg}x${k}${p}${l === 'tensor_product' ? ',1x0e' : ''})`),
  fc.integer({ min: 1, max: 20_000 }).map((k) => Array.from({ length: k }, () => 'id(2)').join(' >> ')),
  rawText,
);

const names = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
export const posetExpr = fc.oneof(
  fc.integer({ min: 1, max: 1500 }).map((n) => names(n, 'p').join('<')),
  fc.integer({ min: 2, max: 2100 }).map((n) =>
    names(n, 'a')
      .map((a) => `${a}<top`)
      .join(', '),
  ),
  fc.array(fc.tuple(fc.nat(30), fc.nat(30)), { maxLength: 60 }).map((ps) => ps.map(([a, b]) => `x${a}<x${b}`).join(', ')),
  fc.array(fc.tuple(fc.nat(12), fc.nat(12)), { maxLength: 30 }).map((ps) => ps.map(([a, b]) => `${a}<=${b}`).join(',')),
  soup(['a', 'b', 'c', '<', '<=', ',', ' ', '★', "'", '-', '.', '(', '>'], 20),
  rawText,
);

export const edgesExpr = fc.oneof(
  fc.integer({ min: 1, max: 3000 }).map((n) => names(n + 1, 'v').join('>')),
  fc.integer({ min: 1, max: 40 }).map((k) => [...names(k, 'x').map((x) => `${x}>h`), 'h>y'].join(', ')),
  // diamonds in a row: the number of paths doubles with each
  fc.integer({ min: 1, max: 40 }).map((k) => Array.from({ length: k }, (_, i) => `n${i}>l${i}, n${i}>r${i}, l${i}>n${i + 1}, r${i}>n${i + 1}`).join(', ')),
  fc.array(fc.tuple(fc.nat(20), fc.nat(20)), { maxLength: 50 }).map((es) => es.map(([a, b]) => `v${a}>v${b}`).join(', ')),
  soup(['a', 'b', 'c', '>', ',', ' ', '<', '.', "'"], 20),
  rawText,
);

/** Comma-separated rows of cells: numbers, NaN, overflow, labels, quotes, empty fields; sometimes many rows or columns. */
const cell = fc.oneof(
  fc.double().map(String),
  fc.integer().map(String),
  fc.constantFrom('', 'a', 'Iris-setosa', ' ', 'NaN', '1e400', '0x10', '"1,2"', '"', '\t3', 'Infinity', '-0', '１', '😀'),
);
export const csvText = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.option(fc.constant('a,b,label'), { freq: 2 }),
        fc.array(
          fc.array(cell, { minLength: 0, maxLength: 4 }).map((r) => r.join(',')),
          { maxLength: 12 },
        ),
        fc.constantFrom('\n', '\r\n', '\r'),
      )
      .map(([h, rows, nl]) => [...(h ? [h] : []), ...rows].join(nl)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 20_000 }).map((n) => 'a,b\n' + Array.from({ length: n }, (_, i) => `${i % 13},${(i * 7) % 5}`).join('\n')),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((w) => Array.from({ length: w }, (_, i) => String(i)).join(',') + '\n') },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom('\ufeffa,b\n1,2\n', '', '\n\n', '#only a comment\n', 'a,b\n1,2,3\n') },
);

/** A text corpus: prose, raw Unicode, invalid UTF-8, a long or very wide alphabet, or nothing. */
export const textFile: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.uint8Array({ maxLength: 400 }),
  fc.integer({ min: 0, max: 200_000 }).map((n) => 'the quick brown fox jumps over the lazy dog\n'.repeat(Math.ceil(n / 44)).slice(0, n)),
  fc.integer({ min: 1, max: 60_000 }).map((n) => Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + (i % 20_000))).join('')),
  fc.constantFrom('', 'a', '\n', 'ab'),
);

/** IDX bytes: magic 00 00 type rank, big-endian dims, then `body`. */
export function idx(dims: readonly number[], body: Uint8Array, type = 0x08): Uint8Array {
  const out = new Uint8Array(4 + 4 * dims.length + body.length);
  out.set([0, 0, type, dims.length]);
  const v = new DataView(out.buffer);
  dims.forEach((d, i) => v.setUint32(4 + 4 * i, d >>> 0, false));
  out.set(body, 4 + 4 * dims.length);
  return out;
}

const ops = fc.array(fc.tuple(fc.nat(4), fc.nat(1 << 20), fc.nat(255)), { minLength: 1, maxLength: 4 });

/** A Fashion-MNIST-shaped directory of n images whose files may be mutated, gzipped, or declare absurd sizes. */
export const fashionDir = fc
  .tuple(
    fc.integer({ min: 1, max: 40 }),
    fc.boolean(),
    fc.option(ops, { freq: 2 }),
    fc.option(fc.constantFrom([2 ** 31, 28, 28], [0xffffffff], [60000, 1000, 1000], [5, 28]), { freq: 4 }),
    fc.nat(3),
  )
  .map(([n, gz, mutation, dims, which]) => {
    const images = idx(
      [n, 28, 28],
      new Uint8Array(n * 784).map((_, i) => (i * 31) % 256),
    );
    const labels = idx(
      [n],
      new Uint8Array(n).map((_, i) => i % 10),
    );
    const files: Record<string, Uint8Array> = {};
    for (const split of ['train', 't10k']) {
      files[`${split}-images-idx3-ubyte`] = images;
      files[`${split}-labels-idx1-ubyte`] = labels;
    }
    const victim = Object.keys(files)[which]!;
    if (dims) files[victim] = idx(dims, new Uint8Array(64));
    if (mutation) files[victim] = mutate(files[victim]!, mutation);
    if (!gz) return files;
    return Object.fromEntries(Object.entries(files).map(([k, v]) => [`${k}.gz`, new Uint8Array(gzipSync(v))]));
  });

export { ops as byteMutations };

// ---- issue 32: what a file becomes (nesting, keys, zero-sized dimensions, compression ratios, special files) ----

/** A safetensors file whose header is `head + repeat×count + tail` (made in the child: a 26 MB header costs no transfer). */
function headerBomb(head: string, repeat: string, count: number, tail: string): SpecialFile {
  const n = Buffer.byteLength(head) + Buffer.byteLength(repeat) * count + Buffer.byteLength(tail);
  const prefix = new Uint8Array(8 + Buffer.byteLength(head));
  new DataView(prefix.buffer).setUint32(0, n, true);
  new DataView(prefix.buffer).setUint32(4, Math.floor(n / 2 ** 32), true);
  prefix.set(new TextEncoder().encode(head), 8);
  return { head: prefix, repeat, count, tail };
}

/** Safetensors files whose headers nest deep, hold many keys or tensors, or write numbers and marks the format refuses. */
export const hostileHeaders: fc.Arbitrary<Uint8Array | SpecialFile> = fc.oneof(
  fc.integer({ min: 1, max: 20_000 }).map((k) => headerBomb('{"__metadata__":{"spec":"dense(2,1)"},"x":', '[', k, ']'.repeat(k) + '}')),
  fc.integer({ min: 1, max: 5000 }).map((k) => headerBomb('{"__metadata__":{"training":"', '[', k, `${']'.repeat(k)}"}}`)),
  fc.integer({ min: 1, max: 2_000_000 }).map((k) => headerBomb('{"__metadata__":{', '"k":"",', k, '"z":""}}')),
  fc
    .integer({ min: 1, max: 300_000 })
    .map((k) => headerBomb('{', '"t":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},', k, '"u":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}}')),
  fc
    .constantFrom(
      '\ufeff{}',
      '{"w":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}}',
      '{"w":{"dtype":"F32","shape":[1e0],"data_offsets":[0,4]}}',
      '{"a":1,"a":2}',
      '{"w":{"dtype":"F32","shape":[-0],"data_offsets":[0,0]}}',
    )
    .map((h) => headerBomb(h, '', 0, '')),
);

/** A .npy header and body: any dtype paralens knows or not, shapes with zeros and huge sizes, bodies short, exact or long. */
export const npyFile = fc
  .tuple(
    fc.constantFrom('<f4', '<f8', '|u1', '<i8', '|b1', '<U3', '>f4', '<f2', '|O'),
    fc.array(fc.oneof(fc.constantFrom(0, 1, 2, 3, 2 ** 31, 2 ** 30, 5e7, 65536), fc.nat(9)), { maxLength: 4 }),
    fc.integer({ min: -8, max: 8 }),
    fc.boolean(),
  )
  .map(([descr, shape, off, fortran]) => {
    const width = Number(/\d+$/.exec(descr)?.[0] ?? 8) * (descr.includes('U') ? 4 : 1);
    const need = shape.reduce((a, b) => a * b, 1) * width;
    // the body the header declares (when small), or a few bytes more or fewer than it
    const body = new Uint8Array(need <= 4096 ? Math.max(0, need + (off > 4 ? off : 0) - (off < -4 ? -off : 0)) : Math.abs(off));
    return npyBytes(descr, shape, body, fortran);
  });

/** Gzip members concatenated: `members` copies of `block` bytes of `text` deflated (a bomb of any ratio up to 1000:1). */
export function gzipMembers(text: string, block: number, members: number): Uint8Array {
  const one = gzipSync(Buffer.from(text.repeat(Math.ceil(block / Math.max(1, text.length))).slice(0, block)), { level: 9 });
  return Buffer.concat(Array.from({ length: members }, () => one));
}

/** Compressed files of every ratio: gzipped tables and IDX images, from honest (2:1) to bombs (1000:1). */
export const compressed = fc.tuple(
  fc.constantFrom('1,2\n', 'a,b,c\n0,1,x\n', '\0', 'abcdefghij'),
  fc.integer({ min: 1, max: 4 << 20 }),
  fc.integer({ min: 1, max: 200 }),
);

/** What a path can be besides a regular file: a FIFO, a link to a device, a directory, a sparse file of any size. */
export const specialFile: fc.Arbitrary<SpecialFile> = fc.oneof(
  fc.constant({ fifo: true as const }),
  fc.constantFrom('/dev/zero', '/dev/null', '/dev/urandom', '/proc/self/environ', '/nonexistent').map((t) => ({ symlink: t })),
  fc.constant({ dir: true as const }),
  fc
    .tuple(fc.constantFrom(1e3, 1e8, 1.9e9, 2.2e9, 5e9), fc.constantFrom(new Uint8Array(0), npyBytes('<f4', [4, 2], new Uint8Array(32))))
    .map(([size, head]) => ({ sparse: size, head })),
);
