// An exported PyTorch project is written as a set (issue 32, item 9): an interrupted export once
// left a project mixing two models (3 of 24 kills) whose load() then loaded one model's weights
// into the other silently. Two models of the same spec are exported in turn into one directory
// and each export is killed (SIGKILL) at a random instant once it has begun writing. Every state
// left behind is the old set, the new set, or the new model.py beside the old weights — which
// model.py's load() refuses, its stamp not being the weights' — never new weights beside an old
// model.py; and the next export cleans what the killed one left.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeModel } from '../../src/io/model-file.js';
import { readSafetensorsHeader } from '../../src/io/safetensors.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { Rng } from '../../src/random/rng.js';
import { buildCli } from './build.js';
import { writeFileSync } from 'node:fs';

const work = mkdtempSync(join(tmpdir(), 'paralens-export-set-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The stamp model.py carries and the one weights.safetensors carries. */
function stamps(dir: string): { model?: string; weights?: string } {
  const py = existsSync(join(dir, 'model.py')) ? /^PROJECT = "([0-9a-f]+)"$/m.exec(readFileSync(join(dir, 'model.py'), 'utf8'))?.[1] : undefined;
  const w = existsSync(join(dir, 'weights.safetensors')) ? readSafetensorsHeader(readFileSync(join(dir, 'weights.safetensors'))).metadata.project : undefined;
  return { model: py, weights: w };
}

describe('export --format pytorch writes its project as a set', () => {
  it('24 exports killed while writing leave the old set, the new one, or a mix that load() refuses — never new weights beside an old model.py', async () => {
    const built = buildCli('export-set');
    try {
      // two models of one spec (so the spec cannot tell them apart: only the stamp does)
      const spec = 'dense(8,64) >> tanh >> dense(64,64) >> tanh >> dense(64,2)';
      const files = [1, 2].map((seed) => {
        const m = parseSpec(spec);
        const path = join(work, `m${seed}.safetensors`);
        writeFileSync(path, encodeModel(m, m.init(seed), { loss: 'bce', epochs: 3 }));
        return path;
      });
      const dir = join(work, 'project');
      const rng = new Rng(32);
      const run = (file: string, killAfterMs?: number): Promise<number | null> =>
        new Promise((resolve) => {
          const p = spawn(process.execPath, [built.main, 'export', '--format', 'pytorch', '--load', file, '--out', dir, '--input-shape', '8'], {
            env: { ...process.env, PARALENS_BACKEND: 'js' },
            stdio: 'ignore',
          });
          if (killAfterMs !== undefined) {
            // once it has begun writing (a temporary file of its appears), a random instant later
            const poll = setInterval(() => {
              if (readdirSync(dir).some((n) => n.endsWith('.tmp') && n.includes(`.${p.pid}.`))) {
                clearInterval(poll);
                setTimeout(() => p.kill('SIGKILL'), killAfterMs);
              }
            }, 1);
            p.on('exit', () => clearInterval(poll));
          }
          p.on('exit', (code) => resolve(code));
        });
      expect(await run(files[0]!)).toBe(0);
      const stampOf = [stamps(dir).model!];
      expect(await run(files[1]!)).toBe(0);
      stampOf.push(stamps(dir).model!);
      expect(stampOf[0]).not.toBe(stampOf[1]);
      const seen = new Set<string>();
      for (let k = 0; k < 24; k++) {
        const before = stamps(dir).weights!;
        const target = stampOf[0] === before ? 1 : 0; // export the other model
        await run(files[target]!, rng.uniform() * 12);
        const after = stamps(dir);
        const state = after.model === after.weights ? (after.model === before ? 'old' : 'new') : 'mixed';
        seen.add(state);
        if (state === 'mixed') {
          // the mix a kill between the renames can leave: the new model.py, whose load() refuses the old weights
          expect(after.model, `kill ${k}`).toBe(stampOf[target]);
          expect(after.weights, `kill ${k}`).toBe(before);
        } else expect([stampOf[0], stampOf[1]]).toContain(after.model);
        // the next export completes the set and removes what the killed one left
        expect(await run(files[target]!)).toBe(0);
        expect(stamps(dir)).toEqual({ model: stampOf[target], weights: stampOf[target] });
        expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      }
      if (process.env.PARALENS_TEST_VERBOSE) console.log(`export kills left: ${[...seen].join(', ')}`);
    } finally {
      built.cleanup();
    }
  }, 600_000);
});
