/**
 * The char transformer on real text, side by side with PyTorch (bench/text_torch.py): the same
 * model and hyper-parameters trained for the same number of steps on the same text (fortunes by
 * default), each with its own seeded initialisation and window draws; prints tokens/s and
 * validation bits per character of both, and their difference.
 *
 *   node --experimental-wasm-relaxed-simd dist/bench/text.js [--steps 2000] [--batch 32] [--context 64]
 *        [--lr 0.003] [--pos rope] [--d 64] [--heads 4] [--ff 256] [--blocks 2] [--seed 0]
 *        [--data fortunes|text:PATH] [--torch-threads 1] [--json]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { vocabSize } from '../src/data/text.js';
import { loadTextData } from '../src/cli/data.js';
import { parseSpec } from '../src/catalogue/index.js';
import { init } from '../src/tensor/init.js';
import { trainLanguageModel } from '../src/train/language-model.js';
import { PYTHON, torchEnv, torchVersion } from './torch.js';
import { charTransformerSpec } from './workloads.js';

const argv = process.argv.slice(2);
const flag = (name: string, d: string): string => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1]! : d);
const num = (name: string, d: number): number => Number(flag(name, String(d)));
const cfg = {
  steps: num('steps', 2000),
  batch: num('batch', 32),
  context: num('context', 64),
  lr: num('lr', 0.003),
  pos: flag('pos', 'rope'),
  d: num('d', 64),
  heads: num('heads', 4),
  ff: num('ff', 256),
  blocks: num('blocks', 2),
  seed: num('seed', 0),
  data: flag('data', 'fortunes'),
  torchThreads: num('torch-threads', 1),
};
const log = (s: string): void => void process.stderr.write(s + '\n');

async function main(): Promise<void> {
  const be = await init();
  const corpus = loadTextData(cfg.data, { context: cfg.context });
  const V = vocabSize(corpus.vocabulary);
  const spec = charTransformerSpec({ ...cfg, vocab: V });
  log(`${cfg.data}: ${corpus.train.length} training, ${corpus.val.length} validation characters, V = ${V}; ${spec}`);
  const r = trainLanguageModel(parseSpec(spec), corpus, {
    context: cfg.context,
    batch: cfg.batch,
    steps: cfg.steps,
    lr: cfg.lr,
    optimizer: 'adam',
    seed: cfg.seed,
    onStep: (s, n, bits) => {
      if (s % 100 === 0 || s === n) log(`  paralens step ${s}/${n}: ${bits.toFixed(3)} bits/char`);
    },
  });
  const ours = {
    system: `paralens ${be.name}`,
    tokens_per_second: r.tokensPerSecond,
    bits_per_char: r.bitsPerChar,
    val_bits_per_char: r.valBitsPerChar,
    seconds: r.seconds,
    parameters: r.parameters,
  };
  log(`  paralens: ${ours.tokens_per_second.toFixed(0)} tokens/s, val ${ours.val_bits_per_char.toFixed(4)} bits/char`);
  let theirs: Record<string, number | string> | undefined;
  if (torchVersion()) {
    const script = fileURLToPath(new URL('../../bench/text_torch.py', import.meta.url));
    const job = { ...cfg, threads: cfg.torchThreads, eval: true, ...(cfg.data === 'fortunes' ? {} : { text: cfg.data.slice('text:'.length) }) };
    const p = spawnSync(PYTHON, [script], {
      input: JSON.stringify(job),
      env: torchEnv(),
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    if (p.status !== 0) throw new Error(`bench/text_torch.py exited ${p.status}`);
    theirs = JSON.parse(p.stdout) as Record<string, number | string>;
    log(`  ${theirs.system}: ${(theirs.tokens_per_second as number).toFixed(0)} tokens/s, val ${(theirs.val_bits_per_char as number).toFixed(4)} bits/char`);
  } else log('PyTorch not importable by /usr/bin/python3 (apt-get install -y python3-torch): paralens only');
  const report = {
    settings: cfg,
    spec,
    paralens: ours,
    pytorch: theirs ?? null,
    val_bits_per_char_difference: theirs ? ours.val_bits_per_char - (theirs.val_bits_per_char as number) : null,
    tokens_per_second_ratio: theirs ? ours.tokens_per_second / (theirs.tokens_per_second as number) : null,
  };
  if (argv.includes('--json')) process.stdout.write(JSON.stringify(report) + '\n');
  else {
    process.stdout.write(`\n${spec}\n${cfg.steps} Adam steps, lr ${cfg.lr}, batch ${cfg.batch} × ${cfg.context} characters of ${cfg.data}\n\n`);
    process.stdout.write('| system | tokens/s | train bits/char | val bits/char |\n|---|---:|---:|---:|\n');
    for (const s of [ours, theirs].filter(Boolean) as Record<string, number | string>[]) {
      process.stdout.write(
        `| ${s.system} | ${Math.round(s.tokens_per_second as number)} | ${(s.bits_per_char as number).toFixed(4)} | ${(s.val_bits_per_char as number).toFixed(4)} |\n`,
      );
    }
    if (theirs)
      process.stdout.write(
        `\nval bits/char difference (paralens − PyTorch): ${report.val_bits_per_char_difference!.toFixed(4)}; tokens/s ratio: ${report.tokens_per_second_ratio!.toFixed(2)}×\n`,
      );
  }
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`text bench failed: ${(e as Error).message}\n`);
  process.exit(1);
});
