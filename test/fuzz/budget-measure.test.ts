// The budget's memory measure (cli-runner.mjs): a case's peak resident set is the runner's own,
// not the test process's. getrusage's maxRSS carries the parent's resident set over fork and
// exec, so a runner started by a test holding its cases in memory reported that memory for every
// case (and, over the restart bound, restarted after each one).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runChild } from './budget.js';
import type { Outcome } from './budget.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-measure-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the budget's child on `cases` with a stand-in CLI; returns what each finished case reported. */
async function runner(cases: string[][], restartMiB: number): Promise<(Outcome & { i: number })[]> {
  const runJs = join(work, 'run.mjs');
  // the stand-in for src/cli/run.js: `alloc N` touches N MiB, anything else does nothing
  writeFileSync(
    runJs,
    `export async function run(argv, io) { if (argv[0] === 'alloc') io.out(String(Buffer.alloc(Number(argv[1]) * 2 ** 20, 1)[7])); return 0; }`,
  );
  const dir = join(work, `cases-${restartMiB}`);
  mkdirSync(dir);
  cases.forEach((argv, i) => writeFileSync(join(dir, `${i}.json`), JSON.stringify({ argv, files: {} })));
  // each report carries its case's index `i` besides the Outcome
  const reports: (Outcome & { i: number })[] = [];
  const lost = await runChild(runJs, dir, cases.length, 0, work, restartMiB, (o) => reports.push(o as Outcome & { i: number }));
  expect(lost, 'a case that never reported').toBeUndefined();
  return reports;
}

it('measures the peak resident set of the runner alone, however much the process that started it holds', async () => {
  // this test process holds 600 MiB (touched, so resident) while it starts the runner
  const held = Buffer.alloc(600 * 2 ** 20, 1);
  const reports = await runner([['noop'], ['alloc', '400'], ['noop']], 2048);
  expect(held[12]).toBe(1);
  expect(reports.map((r) => r.i)).toEqual([0, 1, 2]);
  // negative control of the inheritance: a case that allocates nothing stays far below the 600 MiB held here
  expect(reports[0]!.rssMiB).toBeLessThan(300);
  // and the measure sees what a case does allocate: the peak is monotone, so the case after keeps it
  expect(reports[1]!.rssMiB).toBeGreaterThanOrEqual(400);
  expect(reports[2]!.rssMiB).toBeGreaterThanOrEqual(400);
});

it('stops after the first case whose peak passes the restart bound, so that the next starts in a fresh process', async () => {
  const reports = await runner([['noop'], ['alloc', '300'], ['noop']], 200);
  expect(reports.map((r) => r.i)).toEqual([0, 1]);
});
