import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeModel } from '../../src/io/index.js';
import { saveModel } from '../../src/io/node.js';
import { cli } from '../cli/helpers.js';
import { idxInterchange } from './idx-interchange-fixture.js';

/**
 * Issue 29, point 8: the interchange defects of IDX data. A model file whose classes are
 * names (Fashion-MNIST's) read against an IDX directory's numeric labels; a model trained on
 * idx:DIR exported to PyTorch and train.py's trained.safetensors are in
 * idx-interchange.full.test.ts (they run PyTorch).
 */
const { dir, data, trained } = idxInterchange();

describe('predict --data idx:DIR on a model file whose classes are names (issue 29, point 8)', () => {
  it('names the numeric labels by the file classes: the accuracy is the one with the preprocessing, not 0', async () => {
    const file = await trained('names', 'fashion-mnist');
    const withPre = await cli('predict', '--load', file, '--data', `idx:${data}`, '--json');
    expect(withPre.code, withPre.err).toBe(0);
    const accuracy = withPre.json().accuracy as number;
    expect(accuracy).toBeGreaterThan(0.5);
    // the same model as train.py wrote it before it carried the preprocessing: spec, settings (classes named), no preprocessing
    const m = decodeModel(readFileSync(file));
    const bare = join(dir, 'bare.safetensors');
    await saveModel(bare, m.model, m.theta, m.settings);
    expect(decodeModel(readFileSync(bare)).preprocessing).toBeUndefined();
    const p = await cli('predict', '--load', bare, '--data', `idx:${data}`, '--json');
    expect(p.code, p.err).toBe(0);
    expect(p.json().scaling).toBe('÷255 (pixels to [0,1])');
    expect(p.json().accuracy).toBe(accuracy);
  }, 60_000);
});
