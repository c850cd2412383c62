// A PyTorch project mixing two exports (issue 32, item 9): an interrupted export once left the new
// model.py beside the old weights, and load() loaded one model's weights into the other silently.
// model.py and weights.safetensors now carry one stamp and load() refuses weights of another
// export, and weights of another spec. The mixed projects are made here, in-process (no kill
// needed); the full tier kills real exports (export-set.full.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseSpec } from '../../src/catalogue/index.js';
import { buildPytorchProject } from '../../src/io/pytorch/project.js';
import { describeWith, PYTHON, pytorch } from '../peer/available.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-export-mix-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The files of the project exporting `spec` with the parameters of init(seed). */
function project(spec: string, seed: number): Readonly<Record<string, string | Uint8Array>> {
  const m = parseSpec(spec);
  return buildPytorchProject(m, m.init(seed), { settings: { loss: 'bce' } }).files;
}

/** A directory holding model.py of `py` and weights.safetensors of `weights`. */
function mixed(name: string, py: Readonly<Record<string, string | Uint8Array>>, weights: Readonly<Record<string, string | Uint8Array>>): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'model.py'), py['model.py']!);
  writeFileSync(join(dir, 'weights.safetensors'), weights['weights.safetensors']!);
  return dir;
}

describeWith(pytorch(), "model.py's load() refuses a project that mixes two exports", () => {
  it('the same spec with other weights (the stamp differs), another spec; its own weights load', () => {
    const spec = 'dense(2,8) >> tanh >> dense(8,1)';
    const [a, b] = [project(spec, 1), project(spec, 2)];
    const other = project('dense(2,3) >> tanh >> dense(3,1)', 1);
    const dirs = [mixed('own', a, a), mixed('same-spec', a, b), mixed('other-spec', a, other)];
    // one interpreter for the three (importing torch is the cost): each load's outcome, one line each
    const script = `
import importlib.util, sys
for d in sys.argv[1:]:
    spec = importlib.util.spec_from_file_location('model_' + d.replace('/', '_').replace('-', '_'), d + '/model.py')
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    try:
        m.load()
        print('loaded')
    except ValueError as e:
        print('refused: ' + str(e).replace('\\n', ' '))
`;
    const r = spawnSync(PYTHON, ['-c', script, ...dirs], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [own, sameSpec, otherSpec] = r.stdout.trim().split('\n');
    expect(own).toBe('loaded');
    expect(sameSpec).toMatch(/^refused: .*weights of export [0-9a-f]{8}, not of this model\.py \([0-9a-f]{8}\): the project mixes two exports/);
    expect(otherSpec).toMatch(/^refused: .* holds 'dense\(2,3\) >> tanh >> dense\(3,1\)', not 'dense\(2,8\) >> tanh >> dense\(8,1\)'/);
  });
});
