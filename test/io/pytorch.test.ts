import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPytorchProject } from '../../src/io/pytorch/project.js';
import { constantLr, cosine, defineLayer, makeCtx, parseSpec, primitive, Rng, stepDecay, Tensor, warmup, zerosLike } from '../../src/index.js';
import { decodeSafetensors, encodeSafetensors, ExportError } from '../../src/io/index.js';
import type { Para } from '../../src/index.js';
import { describeWith, PYTHON, pytorch } from '../peer/available.js';

/**
 * The PyTorch export as a round trip: every exportable family of layers, built in paralens
 * with random parameters, runs in the generated torch module on random inputs; outputs,
 * input gradients and parameter gradients of ⟨y, r⟩ (r a random cotangent) agree with
 * paralens's forward and pullback to 1e-5 relative, float32.
 */
const DRIVER = fileURLToPath(new URL('./pytorch_roundtrip.py', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'paralens-pytorch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Case {
  readonly family: string;
  readonly spec: string;
  readonly shape: number[];
  /** Training mode, with bayes_dense's noise drawn by paralens and handed to PyTorch. */
  readonly training?: boolean;
  /** Sets the last column of each element to 0/1 (a masked set). */
  readonly mask?: boolean;
  /** Inputs are token ids 0 … ids−1. */
  readonly ids?: number;
}

const CASES: readonly Case[] = [
  {
    family: 'dense, activations, residual, par, add',
    spec: 'dense(4,6) >> relu >> residual(dense(6,6) >> tanh) >> (dense(3,2) @ dense(3,2)) >> add(2) >> sigmoid',
    shape: [4],
  },
  {
    family: 'copy, id, discard, softplus, leaky_relu, softmax',
    spec: 'dense(3,4) >> copy >> (dense(4,2) @ id(4)) >> (softplus(3) @ discard(3)) >> leaky_relu(0.2) >> gelu >> softmax',
    shape: [3],
  },
  {
    family: 'conv2d, maxpool2d, avgpool2d, flatten',
    spec: 'conv2d(1,3,3,1,1) >> relu >> maxpool2d(2) >> conv2d(3,4,3) >> gelu >> avgpool2d(2,1) >> flatten >> dense(16,5)',
    shape: [1, 10, 10],
  },
  { family: 'conv1d, globalavgpool', spec: 'conv1d(2,4,3,2,1) >> tanh >> globalavgpool >> dense(4,2)', shape: [2, 9] },
  { family: 'dropout, bayes_dense (evaluation)', spec: 'dense(4,6) >> dropout(0.3) >> tanh >> bayes_dense(6,3)', shape: [4] },
  { family: 'bayes_dense (training, shared noise)', spec: 'dense(4,6) >> tanh >> bayes_dense(6,3,0.2)', shape: [4], training: true },
  { family: 'map, sum_pool', spec: 'map(dense(3,5) >> relu) >> sum_pool >> dense(5,2)', shape: [8, 3] },
  { family: 'max_pool', spec: 'map(dense(3,4)) >> max_pool', shape: [8, 3] },
  { family: 'mean_pool', spec: 'map(dense(3,4) >> gelu) >> mean_pool', shape: [6, 3] },
  { family: 'masked_map, masked_mean_pool', spec: 'masked_map(dense(2,3) >> tanh) >> masked_mean_pool', shape: [5, 3], mask: true },
  { family: 'masked_max_pool', spec: 'masked_map(dense(2,3) >> sigmoid) >> masked_max_pool', shape: [5, 3], mask: true },
  { family: 'masked_sum_pool', spec: 'masked_map(dense(2,4)) >> masked_sum_pool >> dense(4,1)', shape: [5, 3], mask: true },
  { family: 'adapter', spec: 'adapter(4,3) >> tanh', shape: [4] },
  { family: 'equivariant (fixed basis × coefficients)', spec: 'equivariant(S(4),V,V) >> tanh >> equivariant(S(4),V,T(0))', shape: [4] },
  { family: 'emlp: equivariant, gated', spec: 'emlp(S(3),V,V+T(0),T(0),2)', shape: [3] },
  {
    family: 'norm_gated, bilinear',
    spec: 'equivariant(SO(2),V,2V+T(0)) >> norm_gated(SO(2),2V+T(0)) >> equivariant(SO(2),2V+T(0),V) >> bilinear(SO(2),V) >> equivariant(SO(2),V+V*V,T(0))',
    shape: [2],
  },
  { family: 'rope_attention (fixed rotations × learned projections)', spec: 'rope_attention(5,4) >> map(tanh(4)) >> rope_attention(5,4,5)', shape: [5, 4] },
  {
    family: 'embedding, transformer (rope), layernorm, dense on positions',
    spec: 'embedding(11,8) >> transformer(8,2,16,rope) >> layernorm(8) >> dense(8,11)',
    shape: [6],
    ids: 11,
  },
  { family: 'attention (relative, causal), rmsnorm', spec: 'attention(8,2,relative(3)) >> rmsnorm(8) >> attention(8,4,relative)', shape: [5, 8] },
  { family: 'attention (absolute, none; no mask)', spec: 'attention(8,4,absolute(9),none) >> attention(8,2,none)', shape: [6, 8] },
  {
    family: 'attention on declared geometries (derived kernels): seq causal rotary, cyclic',
    spec: 'attention(8,2,seq(6,causal,rotary)) >> attention(8,2,cyclic(6))',
    shape: [6, 8],
  },
  {
    family: 'attention on declared geometries (derived kernels): set, a shorter window of seq',
    spec: 'attention(8,4,set(6)) >> attention(8,2,seq(7))',
    shape: [6, 8],
  },
  {
    family: 'tokens, attention on grid(2,2,D4) and grid(2,2)',
    spec: 'conv2d(1,4,2,2) >> tokens >> attention(4,2,grid(2,2,D4)) >> attention(4,1,grid(2,2))',
    shape: [1, 4, 4],
  },
  { family: 'tied embedding and head', spec: 'tied(embedding(7,4) >> attention(4,1,rope) >> dense(4,7))', shape: [5], ids: 7 },
  { family: 'set_equivariant, message_passing', spec: 'set_equivariant(5,2,3) >> relu >> message_passing(cycle(5),3,2)', shape: [5, 2] },
  { family: 'conv1d_periodic, conv2d_periodic', spec: 'conv2d_periodic(5,6,1,2,3) >> tanh >> flatten >> dense(60,3)', shape: [1, 5, 6] },
  {
    family: 'lstm, gru, rnn (nn.LSTM, nn.GRU, nn.RNN)',
    spec: 'embedding(9,4) >> lstm(4,6) >> gru(6,5) >> rnn(5,3) >> dense(3,9)',
    shape: [7],
    ids: 9,
  },
  {
    family: 'bidirectional, mgu, scan of a cell',
    spec: 'bidirectional(lstm(3,4)) >> mgu(8,5) >> bidirectional(mgu(5,2)) >> scan(gru_cell(4,3))',
    shape: [6, 3],
  },
  { family: 'conv1d_periodic', spec: 'conv1d_periodic(8,2,3,3) >> relu >> conv1d_periodic(8,3,1,5)', shape: [2, 8] },
];

function randn(shape: number[], rng: Rng): Tensor {
  const t = Tensor.zeros(shape);
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
}

/** max |a − b| / max |b| (0 when both are zero). */
function relDiff(a: Tensor, b: Tensor): number {
  expect(a.shape).toEqual(b.shape);
  let d = 0,
    s = 0;
  for (let i = 0; i < a.size; i++) {
    d = Math.max(d, Math.abs(a.data[i]! - b.data[i]!));
    s = Math.max(s, Math.abs(b.data[i]!));
  }
  return s === 0 ? d : d / s;
}

interface Prepared {
  readonly c: Case;
  readonly m: Para;
  readonly y: Tensor;
  readonly dx: Tensor;
  readonly grads: Tensor[];
  readonly out: string;
}

const prepared: Prepared[] = [];

/** Builds each case in paralens (forward and pullback), writes its project and inputs. */
function prepare(c: Case, i: number): Prepared {
  const m = parseSpec(c.spec).at(c.shape);
  const theta = m.init(100 + i);
  const rng = new Rng(7 + i);
  // ρ away from its small initial value, so that training noise matters in the gradients
  theta.forEach((t, k) => {
    if (m.params[k]!.name.endsWith('rho') || m.params[k]!.name.endsWith('bias') || m.params[k]!.name.endsWith('kernel'))
      for (let j = 0; j < t.size; j++) t.data[j]! += 0.3 * rng.normal();
  });
  const x = randn([3, ...c.shape], rng);
  if (c.ids) for (let j = 0; j < x.size; j++) x.data[j] = rng.int(c.ids);
  if (c.mask) for (let r = 0; r < x.size / c.shape[1]!; r++) x.data[r * c.shape[1]! + c.shape[1]! - 1] = rng.uniform() < 0.7 ? 1 : 0;
  const noiseSeed = 1234 + i;
  const lens = m.forward(theta, x, makeCtx({ training: Boolean(c.training), rng: new Rng(noiseSeed) }));
  const r = randn(lens.y.shape as number[], rng);
  const grads = zerosLike(theta);
  const dx = lens.pullback(r, grads, true);
  const project = join(dir, `case${i}`);
  mkdirSync(project);
  for (const [name, body] of Object.entries(buildPytorchProject(m, theta).files)) writeFileSync(join(project, name), body);
  // the draws bayes_dense made: normals from the same generator, weight then bias
  const inputs = [
    { name: 'x', tensor: x },
    { name: 'r', tensor: r },
  ];
  if (c.training) {
    const noise = new Rng(noiseSeed);
    m.params.filter((p) => p.name.endsWith('_mu')).forEach((p, k) => inputs.push({ name: `noise${k}`, tensor: randn(p.shape as number[], noise) }));
  }
  writeFileSync(join(project, 'inputs.safetensors'), encodeSafetensors(inputs));
  return { c, m, y: lens.y, dx, grads, out: join(project, 'out.safetensors') };
}

describeWith(pytorch(), 'export --format pytorch: the torch module is the Para composite', () => {
  beforeAll(() => {
    CASES.forEach((c, i) => prepared.push(prepare(c, i)));
    const list = prepared.map((p, i) => ({
      dir: join(dir, `case${i}`),
      inputs: join(dir, `case${i}`, 'inputs.safetensors'),
      out: p.out,
      training: Boolean(p.c.training),
    }));
    writeFileSync(join(dir, 'cases.json'), JSON.stringify(list));
    const run = spawnSync(PYTHON, [DRIVER, join(dir, 'cases.json')], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`PyTorch driver failed: ${run.stderr}`);
  }, 120_000);

  it.each(CASES.map((c, i) => [c.family, i] as const))('%s: outputs and gradients equal paralens to 1e-5', (_family, i) => {
    const p = prepared[i]!;
    const theirs = decodeSafetensors(readFileSync(p.out)).tensors;
    expect(relDiff(theirs.get('y')!, p.y), 'output').toBeLessThanOrEqual(1e-5);
    expect(relDiff(theirs.get('dx')!, p.dx), 'input gradient').toBeLessThanOrEqual(1e-5);
    p.m.params.forEach((q, k) => expect(relDiff(theirs.get(q.name)!, p.grads[k]!), `gradient of ${q.name}`).toBeLessThanOrEqual(1e-5));
    // a test that can fail: the gradients are not all zero
    expect(p.grads.some((g) => g.data.some((v) => v !== 0))).toBe(true);
  });

  it('dropout trains as nn.Dropout: drops a fraction p, scales the rest by 1/(1−p); identity in evaluation', () => {
    const project = join(dir, 'dropout');
    mkdirSync(project);
    const m = parseSpec('dropout(0.3)').at([50]);
    for (const [name, body] of Object.entries(buildPytorchProject(m, []).files)) writeFileSync(join(project, name), body);
    const script = `import sys, json, torch; sys.path.insert(0, ${JSON.stringify(project)}); import model
net = model.load(); x = torch.ones(2000, 50); net.train(); y = net(x); net.eval(); z = net(x)
print(json.dumps([float((y == 0).float().mean()), sorted(set(round(v, 5) for v in y[y != 0].tolist())), bool(torch.equal(z, x))]))`;
    const r = spawnSync(PYTHON, ['-c', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [dropped, kept, identity] = JSON.parse(r.stdout) as [number, number[], boolean];
    expect(dropped).toBeGreaterThan(0.28);
    expect(dropped).toBeLessThan(0.32);
    expect(kept).toEqual([Math.round(1e5 / 0.7) / 1e5]);
    expect(identity).toBe(true);
  });
});

describeWith(pytorch(), 'train.py keeps paralens conventions', () => {
  it("its learning-rate schedules are src/optim/schedule.ts's, step by step", () => {
    const project = join(dir, 'schedules');
    mkdirSync(project);
    const m = parseSpec('dense(2,1)');
    for (const [name, body] of Object.entries(buildPytorchProject(m, m.init(0)).files)) writeFileSync(join(project, name), body);
    const texts = ['constant', 'step:4:0.5', 'cosine:10', 'cosine:10:0.01', 'warmup:5'];
    const script = `import sys, json; sys.path.insert(0, ${JSON.stringify(project)}); import train
print(json.dumps([[train.schedule(s)(t, 0.1) for t in range(14)] for s in ${JSON.stringify(texts)}]))`;
    const r = spawnSync(PYTHON, ['-c', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const theirs = JSON.parse(r.stdout) as number[][];
    const ours = [constantLr, stepDecay(4, 0.5), cosine(10), cosine(10, 0.01), warmup(5)];
    ours.forEach((f, i) => theirs[i]!.forEach((v, t) => expect(v).toBeCloseTo(f(t, 0.1), 12)));
  });
});

describe('export --format pytorch refuses what it cannot express', () => {
  it('names every layer without a rule', () => {
    // a layer defined outside paralens, with no PyTorch rule, twice in one model
    defineLayer({
      name: 'halve',
      args: [],
      doc: 'x ↦ x/2',
      make: () => primitive({ kind: 'halve', dom: [4], cod: [4], forward: (_t, x) => ({ y: x, pullback: (dy) => dy }) }),
    });
    const m = parseSpec('dense(4,4) >> halve >> residual(dense(4,4) >> halve)').at([4]);
    expect(() => buildPytorchProject(m, m.init(0))).toThrow(ExportError);
    expect(() => buildPytorchProject(m, m.init(0))).toThrow(/no PyTorch rule for 'halve'; exportable kinds: adapter/);
    const any = parseSpec('conv2d(1,2,3) >> flatten');
    expect(() => buildPytorchProject(any, [])).toThrow(/takes inputs of any shape/);
  });
});
