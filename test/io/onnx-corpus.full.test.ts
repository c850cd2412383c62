import { expect, it } from 'vitest';
import { describeWith, onnxRuntime, torchOnnx } from '../peer/available.js';
import { refusedForPending, refusedOperators, runCorpus } from './onnx/corpus.js';

/**
 * The whole corpus (test/io/onnx/corpus.py: 39 PyTorch models × opsets 13 and 17 × a dynamic
 * and a fixed batch axis): at least 95% of the files onnxruntime runs import and agree with it
 * within 1e-5, once the operators still pending (PENDING_OPERATORS: Loop, Scan) are set aside;
 * every file refused names its operators or its node. The figure of docs/onnx.md:
 * `PARALENS_TEST_TIER=full npx vitest run test/io/onnx-corpus.full.test.ts`.
 */
const { peer: runtime, value: ort } = await onnxRuntime();

describeWith([torchOnnx(), runtime], 'the ONNX corpus: ordinary PyTorch models, every file', () => {
  it('imports ≥ 95% of the files onnxruntime runs (pending operators aside), each within 1e-5 of it; the refused name their operators', async () => {
    const run = await runCorpus(ort!, false);
    const counted = run.files.length;
    const agree = run.files.filter((f) => f.outcome === 'agrees');
    const pending = run.files.filter(refusedForPending);
    console.log(
      `ONNX corpus (torch ${run.torch}): ${agree.length} of ${counted} files onnxruntime runs import and agree within 1e-5 (${((100 * agree.length) / counted).toFixed(1)}%); ` +
        `${pending.length} refused for operators still pending; of the rest ${agree.length} of ${counted - pending.length} (${((100 * agree.length) / (counted - pending.length)).toFixed(1)}%); ` +
        `worst agreement ${Math.max(...agree.map((f) => f.relError!)).toExponential(2)}`,
    );
    for (const f of run.files.filter((g) => g.outcome !== 'agrees')) console.log(`  ${f.file}: ${f.outcome} ${f.message ?? f.relError}`);
    expect(counted).toBeGreaterThanOrEqual(140);
    expect(agree.length / (counted - pending.length)).toBeGreaterThanOrEqual(0.95);
    expect(run.files.filter((f) => f.outcome === 'differs')).toEqual([]);
    for (const f of run.files.filter((g) => g.outcome === 'refused')) expect(refusedOperators(f.message!).length, f.message).toBeGreaterThan(0);
    // the recurrent models read for any batch; a fixed batch is refused naming the node (docs/onnx.md)
    const recurrent = run.files.filter((f) => /^(lstm|gru|rnn)\./.test(f.file) && !f.file.includes('fixed'));
    expect(recurrent.map((f) => `${f.file} ${f.outcome}`)).toEqual(recurrent.map((f) => `${f.file} agrees`));
    expect(recurrent).toHaveLength(6);
  }, 900_000);
});
