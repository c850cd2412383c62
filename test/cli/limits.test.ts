import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

describe('work too large for this machine is refused up front (exit 2, one line)', () => {
  it.each([
    [['end', '--group', 'S(3)', '--in', 'V', '--out', 'T(9)'], /end over S\(3\) of V and T\(9\): 59049 unknowns need about .* GiB .* limit is 1\.0 GiB/],
    [['coend', '--group', 'S(3)', '--in', 'T(5)', '--out', 'T(5)'], /coend over S\(3\) of T\(5\) and T\(5\): 59049 unknowns/],
  ])('%j', async (args, re) => {
    const r = await cli(...(args as string[]), '--json');
    expect(r.code).toBe(2);
    expect(r.json().error.code).toBe('E_TOO_LARGE');
    expect(r.err).toMatch(re as RegExp);
  });
});

describe('a checkpoint directory that cannot be written', () => {
  it('fails before training, exit 2, naming the directory', async () => {
    const r = await cli('train', '--model', 'dense(2,1)', '--data', 'xor', '--epochs', '1000000', '--checkpoint', '/proc/paralens-no/such', '--json');
    expect(r.code).toBe(2);
    expect(r.json().error.code).toBe('E_CHECKPOINT');
    expect(r.err).toMatch(/cannot write a checkpoint in \/proc\/paralens-no\/such/);
  });
});
