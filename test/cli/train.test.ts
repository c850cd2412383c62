import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';
import { built, needs } from '../peer/available.js';

describe('paralens train', () => {
  it('trains XOR and prints one JSON object with --json', async () => {
    const r = await cli(
      'train',
      '--model',
      'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid',
      '--data',
      'xor',
      '--epochs',
      '6000',
      '--batch',
      '1',
      '--lr',
      '0.5',
      '--loss',
      'mse',
      '--json',
    );
    expect(r.code).toBe(0);
    const j = r.json();
    expect(j.accuracy).toBe(1);
    expect(j.final_loss).toBeLessThan(0.01);
    expect(j.epochs).toBe(6000);
    expect(j.parameters).toBe(2 * 4 + 4 + 4 * 4 + 4 + 4 + 1);
    expect(typeof j.seconds).toBe('number');
    expect(r.out.trim().split('\n')).toHaveLength(1);
  });

  it('natural gradient and K-FAC see the model through the Trainer and beat SGD on XOR', async () => {
    const loss = async (opt: string) => {
      const r = await cli(
        'train',
        '--model',
        'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid',
        '--data',
        'xor',
        '--epochs',
        '200',
        '--loss',
        'mse',
        '--lr',
        '0.5',
        '--optimizer',
        opt,
        '--json',
      );
      expect(r.code).toBe(0);
      return r.json().final_loss as number;
    };
    expect(await loss('sgd')).toBeGreaterThan(0.1);
    expect(await loss('natural')).toBeLessThan(1e-3);
    expect(await loss('kfac')).toBeLessThan(1e-3);
  });

  it('reports test accuracy on Iris', async () => {
    const r = await cli(
      'train',
      '--model',
      'dense(4,16) >> relu >> dense(16,3)',
      '--data',
      'iris',
      '--epochs',
      '200',
      '--batch',
      '16',
      '--lr',
      '0.01',
      '--optimizer',
      'adam',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(r.json().test_accuracy).toBeGreaterThanOrEqual(0.93);
    expect(r.json().loss).toBe('softmax-cross-entropy');
  });

  it('prints readable output without --json', async () => {
    const r = await cli('train', '--model', 'dense(2,8) >> tanh >> dense(8,1)', '--data', 'moons', '--epochs', '20');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/final loss/);
    expect(r.out).toMatch(/accuracy .* \(test /);
  });

  it('exits 1 when the loss becomes NaN, naming the epoch', async () => {
    const r = await cli('train', '--model', 'dense(4,3)', '--data', 'iris', '--loss', 'mse', '--lr', '1e6', '--epochs', '50', '--json');
    expect(r.code).toBe(1);
    expect(r.json().error.code).toBe('E_NONFINITE');
    expect(r.err).toMatch(/at epoch \d+/);
  });

  it.each([
    [['--model', 'dense(2,4) >> >> sigmoid', '--data', 'xor'], /column 15/],
    [['--model', 'dense(2,4) >> dense(3,1)', '--data', 'xor'], /dense\(3,1\) expects \[\*,3\] but got \[\*,4\] from dense\(2,4\)/],
    [['--model', 'dense(2,4) >> sigmod', '--data', 'xor'], /unknown layer 'sigmod'.*known:/],
    [['--model', 'dense(2,1)', '--data', 'mnist'], /unknown data set 'mnist'; known: xor, moons/],
    [['--model', 'dense(2,1)', '--data', 'xor', '--optimizer', 'adagrad'], /unknown optimizer 'adagrad'; known: sgd/],
    [['--model', 'dense(2,1)', '--data', 'xor', '--loss', 'hinge'], /unknown loss 'hinge'; known: mse/],
    [['--model', 'dense(2,1)', '--data', 'xor', '--lr', '0'], /--lr must be > 0/],
    [['--model', 'dense(2,1)', '--data', 'xor', '--lr', '-1'], /--lr must be > 0/],
    [['--model', 'dense(2,1)', '--data', 'xor', '--epochs', '0'], /--epochs must be > 0/],
    [['--model', 'dense(2,1)', '--data', 'xor', '--epochs', 'many'], /--epochs expects a number/],
    [['--model', 'dense(3,1)', '--data', 'xor'], /expects inputs \[\*,3\] but xor has inputs/],
    [['--data', 'xor'], /--model SPEC is required/],
    [['--model', 'dense(2,1)', '--data', 'xor', '--colour'], /unknown flag --colour/],
  ])('bad input %j exits 2 with one clear line', async (args, re) => {
    const r = await cli('train', ...(args as string[]));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(re as RegExp);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe('paralens', () => {
  it('--help lists the commands, and every command has --help with its flags', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/tour/);
    const t = await cli('train', '--help');
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/--epochs N\s+number of epochs \(default: 100\)/);
  });

  it('an unknown command exits 2 listing the known ones', async () => {
    const r = await cli('trian');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^paralens: unknown command 'trian' \(did you mean 'train'\?\); known: tour, train/);
  });

  it('tour --only para prints the seed XOR table and the summary', async () => {
    const r = await cli('tour', '--only', 'para', '--json');
    expect(r.code).toBe(0);
    const j = r.json();
    const p = j.sections.para.xor.predictions;
    expect(p[0]).toBeLessThan(0.1);
    expect(p[1]).toBeGreaterThan(0.9);
    expect(j.summary.length).toBeGreaterThan(3);
  });
});

describe('the paralens process', () => {
  it('ends quietly when its reader closes the pipe early (… | head)', async (ctx) => {
    const { execSync } = await import('node:child_process');
    const { join } = await import('node:path');
    const main = join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
    needs(ctx, built(main)); // built by npm ci; this test runs the built CLI
    const out = execSync(`node ${main} derive --group "S(6)" --in "T(2)" --out "T(2)" --basis | head -1; echo "exit \${PIPESTATUS[0]}"`, {
      shell: '/bin/bash',
      encoding: 'utf8',
    });
    expect(out).not.toMatch(/EPIPE|Unhandled/);
    expect(out).toMatch(/exit 0/);
  });
});
