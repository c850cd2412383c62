import { expect, it } from 'vitest';
import { describeWith, onnxRuntime, torchOnnx } from '../peer/available.js';
import { runCorpus } from './onnx/corpus.js';

/**
 * The quick part of the ONNX corpus (onnx-corpus.full.test.ts has all of it): an MLP with SiLU,
 * the tutorial CNN with x.view(x.size(0), -1) and a nanoGPT block with its causal mask, at opsets
 * 13 and 17 with a dynamic and a fixed batch — every file imports and agrees with onnxruntime
 * within 1e-5.
 */
const { peer: runtime, value: ort } = await onnxRuntime();

describeWith([torchOnnx(), runtime], 'the ONNX corpus, quick part', () => {
  it('every file imports and agrees with onnxruntime within 1e-5', async () => {
    const run = await runCorpus(ort!, true);
    expect(run.files).toHaveLength(12);
    for (const f of run.files) expect(f.outcome, `${f.file}: ${f.message ?? f.relError}`).toBe('agrees');
    // the named layers were found: dense for nn.Linear, conv2d, layernorm, embedding, gelu (nanoGPT's tanh formula)
    const spec = (m: string): string => run.files.find((f) => f.model === m && f.file.includes('dynamic'))!.spec!;
    expect(spec('cnn_view')).toBe('conv2d(1,6,3,1,1) >> relu >> maxpool2d(2,2) >> conv2d(6,8,3,1,0) >> relu >> maxpool2d(2,2) >> flatten >> dense(72,10)');
    expect(spec('mlp_silu')).toMatch(/^dense\(6,16\) >> graph\(x >> sigmoid >> sigmoid, \(x @ sigmoid\) >> Mul >> mul\) >> dense\(16,12\)/);
    expect(spec('nanogpt')).toMatch(
      /^embedding\(13,16\) >> .*residual\(layernorm\(16\) >> dense\(16,64\) >> gelu >> dense\(64,16\)\) >> layernorm\(16\) >> dense\(16,13\)$/,
    );
  });
});
