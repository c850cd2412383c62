/**
 * Fashion-MNIST for real, side by side with PyTorch: an MLP 784-256-10 and a small CNN
 * trained in paralens (fast backend where it loads) and in PyTorch (bench/fashion_torch.py)
 * from the SAME initial weights, with the same optimiser, learning rate, batch size and
 * epochs; prints per-epoch training time and test accuracy for both.
 *
 *   node --experimental-wasm-relaxed-simd dist/bench/fashion.js [--epochs N] [--batch N] [--lr X]
 *        [--optimizer adam|sgd] [--schedule constant|cosine] [--mlp SPEC] [--cnn SPEC] [--limit N] [--data-dir D] [--torch-threads N] [--models mlp,cnn] [--json]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Dataset } from '../src/data/dataset.js';
import { FASHION_MNIST_DIR, loadFashionMnist } from '../src/data/node.js';
import { softmaxCrossEntropy } from '../src/nn/loss.js';
import { parseSpec } from '../src/catalogue/index.js';
import { cosine } from '../src/optim/schedule.js';
import { backend } from '../src/tensor/registry.js';
import { init } from '../src/tensor/init.js';
import { Trainer } from '../src/train/trainer.js';
import { PYTHON, torchEnv, torchVersion } from './torch.js';

const argv = process.argv.slice(2);
const flag = (name: string, d: string): string => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1]! : d);
const opts = {
  epochs: Number(flag('epochs', '5')),
  batch: Number(flag('batch', '64')),
  lr: Number(flag('lr', '0.001')),
  optimizer: flag('optimizer', 'adam'),
  schedule: flag('schedule', 'constant'),
  limit: argv.includes('--limit') ? Number(flag('limit', '0')) : undefined,
  dataDir: flag('data-dir', FASHION_MNIST_DIR),
  torchThreads: Number(flag('torch-threads', '2')),
  models: flag('models', 'mlp,cnn').split(','),
  json: argv.includes('--json'),
};
const log = (s: string): void => void process.stderr.write(s + '\n');

/** The two models (override with --mlp SPEC / --cnn SPEC; the PyTorch side builds dense, conv2d, maxpool2d, relu, flatten). */
export const MODELS: Record<string, string> = {
  mlp: flag('mlp', 'dense(784,256) >> relu >> dense(256,10)'),
  cnn: flag('cnn', 'conv2d(1,8,3,1,1) >> relu >> maxpool2d(2) >> conv2d(8,16,3,1,1) >> relu >> maxpool2d(2) >> flatten >> dense(784,10)'),
};

interface EpochRow {
  epoch: number;
  seconds: number;
  loss: number;
  testAccuracy: number;
}

/** The image layout [N,1,28,28] of a flat [N,784] set (same data, reshaped). */
const asImages = (d: Dataset): Dataset => ({ ...d, x: d.x.reshape([d.x.batch, 1, 28, 28]) });

async function main(): Promise<void> {
  const be = await init();
  log(`paralens backend: ${be.name}`);
  const { train, test } = loadFashionMnist({ dataDir: opts.dataDir, limit: opts.limit });
  log(`Fashion-MNIST: ${train.x.batch} training, ${test.x.batch} test images from ${opts.dataDir}`);
  const torch = torchVersion();
  if (!torch) log('PyTorch not importable by /usr/bin/python3 (apt-get install -y python3-torch): paralens only');
  const report: Record<string, unknown> = { backend: backend().name, settings: { ...opts, json: undefined }, torch: torch ?? null, models: {} };

  for (const kind of opts.models) {
    const spec = MODELS[kind];
    if (!spec) throw new Error(`unknown model '${kind}'; known: ${Object.keys(MODELS).join(', ')}`);
    const [tr, te] = kind === 'cnn' ? [asImages(train), asImages(test)] : [train, test];
    const steps = opts.epochs * Math.ceil(tr.x.batch / opts.batch);
    const schedule = opts.schedule === 'cosine' ? cosine(steps) : undefined;
    const trainer = new Trainer(parseSpec(spec), tr, {
      loss: softmaxCrossEntropy,
      batch: opts.batch,
      lr: opts.lr,
      optimizer: opts.optimizer,
      optimizerOptions: { schedule },
      seed: 0,
    });
    const theta0 = trainer.theta.map((t) => Array.from(t.data));
    const ours: EpochRow[] = [];
    for (let e = 1; e <= opts.epochs; e++) {
      const t = performance.now();
      const s = trainer.runEpoch();
      const seconds = (performance.now() - t) / 1000;
      const acc = trainer.evaluate(te).accuracy!;
      ours.push({ epoch: e, seconds, loss: s.loss, testAccuracy: acc });
      log(`  paralens ${kind} epoch ${e}: ${seconds.toFixed(2)} s, loss ${s.loss.toFixed(4)}, test accuracy ${acc.toFixed(4)}`);
    }
    let theirs: EpochRow[] | undefined;
    if (torch) {
      const script = fileURLToPath(new URL('../../bench/fashion_torch.py', import.meta.url));
      const job = {
        model: kind,
        spec,
        schedule: opts.schedule,
        theta: theta0,
        epochs: opts.epochs,
        batch: opts.batch,
        lr: opts.lr,
        optimizer: opts.optimizer,
        dataDir: opts.dataDir,
        limit: opts.limit ?? null,
        threads: opts.torchThreads,
      };
      const r = spawnSync(PYTHON, [script], {
        input: JSON.stringify(job),
        env: torchEnv(),
        encoding: 'utf8',
        maxBuffer: 1 << 26,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      if (r.status !== 0) throw new Error(`bench/fashion_torch.py exited ${r.status}`);
      theirs = (JSON.parse(r.stdout) as { epochs: EpochRow[] }).epochs;
    }
    (report.models as Record<string, unknown>)[kind] = { spec, paralens: ours, pytorch: theirs ?? null };
    if (!opts.json) {
      process.stdout.write(
        `\n${kind}: ${spec}\n${opts.optimizer} lr ${opts.lr} (${opts.schedule} schedule), batch ${opts.batch}, same initial weights; PyTorch ${torch ?? '(absent)'} with ${opts.torchThreads} thread(s), paralens backend ${backend().name}\n\n`,
      );
      process.stdout.write('| epoch | paralens s | PyTorch s | paralens test acc | PyTorch test acc |\n|---:|---:|---:|---:|---:|\n');
      ours.forEach((o, i) => {
        const p = theirs?.[i];
        process.stdout.write(
          `| ${o.epoch} | ${o.seconds.toFixed(2)} | ${p ? p.seconds.toFixed(2) : '—'} | ${o.testAccuracy.toFixed(4)} | ${p ? p.testAccuracy.toFixed(4) : '—'} |\n`,
        );
      });
    }
  }
  if (opts.json) process.stdout.write(JSON.stringify(report) + '\n');
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`fashion bench failed: ${(e as Error).message}\n`);
  process.exit(1);
});
