import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { buildCli } from '../reliability/build.js';

/**
 * The budget every input must keep (issue 23): the command ends with exit 0, 1 or 2 — never an
 * internal error, never a hang — within 5 s of CPU time and under 1 GiB of resident memory, and
 * an error is one `paralens: …` line. CPU time, not wall-clock time, so that a loaded machine
 * does not fail the test; the wall clock only bounds a hang (the case is killed).
 */
export const BUDGET = { cpuMs: 5000, rssMiB: 1024, hangMs: 60_000 };

/** Virtual memory the child may reserve (ulimit -v): a bomb fails inside it instead of taking the machine down. */
const VIRTUAL_KIB = 3 * 1024 * 1024;

/**
 * A file a case needs that is not plain bytes, made in the child just before the case: a FIFO
 * (named pipe), a symbolic link (to /dev/zero, say), a sparse file of `size` bytes after `head`,
 * or text repeated `count` times after `head` (tens of megabytes without sending them).
 */
export type SpecialFile =
  | { readonly fifo: true }
  | { readonly symlink: string }
  | { readonly dir: true }
  | { readonly sparse: number; readonly head?: Uint8Array }
  | { readonly repeat: string; readonly count: number; readonly head?: string | Uint8Array; readonly tail?: string };

/** One command line, with files to write into its own directory first ('{dir}' in argv is that directory). */
export interface Case {
  readonly argv: readonly string[];
  readonly files?: Readonly<Record<string, string | Uint8Array | SpecialFile>>;
}

export interface Outcome {
  /** The exit code, 'hang' (killed after BUDGET.hangMs) or 'crash' (the child died: out of memory, …). */
  readonly code: number | 'hang' | 'crash' | 'threw';
  readonly out: string;
  readonly err: string;
  readonly cpuMs: number;
  readonly wallMs: number;
  /** The child's peak resident set after this case (a fresh child after any case above 512 MiB). */
  readonly rssMiB: number;
}

let built: ReturnType<typeof buildCli> | undefined;

/** The compiled CLI (one build per test file), removed at exit. */
function compiled(): ReturnType<typeof buildCli> {
  if (!built) {
    built = buildCli(`budget-${process.pid}`);
    process.once('exit', () => built?.cleanup());
  }
  return built;
}

/**
 * Runs every case in a child process (PARALENS_BACKEND=js, memory capped) and returns what each
 * did and cost. Cases run in-process one after another; a case that hangs or crashes the child
 * is recorded as such and the next case starts in a fresh child.
 */
export async function runCases(cases: readonly Case[], opts: { restartMiB?: number } = {}): Promise<Outcome[]> {
  const cli = compiled();
  const work = mkdtempSync(join(tmpdir(), 'paralens-budget-'));
  // one file per case, read by the child as it reaches it: a child restarted after a heavy case
  // parses one case, not all of them (2000 cases of bombs are 300 MB of JSON)
  const casesDir = join(work, 'cases');
  mkdirSync(casesDir);
  const b64 = (v: string | Uint8Array): string => Buffer.from(typeof v === 'string' ? Buffer.from(v, 'utf8') : v).toString('base64');
  // bytes as base64; a special file as itself, its head (bytes) as base64 too
  const encode = (v: string | Uint8Array | SpecialFile): string | Record<string, unknown> =>
    typeof v === 'string' || v instanceof Uint8Array ? b64(v) : 'head' in v && v.head !== undefined ? { ...v, head: b64(v.head) } : { ...v };
  cases.forEach((c, i) =>
    writeFileSync(
      join(casesDir, `${i}.json`),
      JSON.stringify({ argv: c.argv, files: Object.fromEntries(Object.entries(c.files ?? {}).map(([k, v]) => [k, encode(v)])) }),
    ),
  );
  const outcomes: Outcome[] = [];
  try {
    while (outcomes.length < cases.length) {
      const from = outcomes.length;
      const lost = await runChild(cli.main.replace(/main\.js$/, 'run.js'), casesDir, cases.length, from, work, opts.restartMiB ?? 512, (o) => outcomes.push(o));
      if (lost) outcomes.push(lost);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return outcomes;
}

/**
 * One child from case `from` on; resolves with the outcome of a case that never reported (hang or
 * crash), if any. `runJs` exports `run(argv, io)`: the compiled CLI, or a stand-in in a test of
 * the runner itself.
 */
export function runChild(
  runJs: string,
  casesDir: string,
  count: number,
  from: number,
  work: string,
  restartMiB: number,
  onCase: (o: Outcome) => void,
): Promise<Outcome | undefined> {
  return new Promise((resolve) => {
    const runner = join(__dirname, 'cli-runner.mjs');
    const script = `ulimit -v ${VIRTUAL_KIB} && exec "${process.execPath}" "${runner}" "$@"`;
    const p = spawn('/bin/sh', ['-c', script, 'sh', runJs, casesDir, String(count), String(from), work, String(restartMiB)], {
      cwd: work, // a relative path in a case lands in the scratch directory
      // PARALENS_DEBUG: an untyped error prints its stack, so it fails the one-line check
      env: { ...process.env, PARALENS_BACKEND: 'js', PARALENS_DEBUG: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '',
      buffer = '',
      current: number | undefined,
      started = 0,
      hung = false;
    p.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const watchdog = setInterval(() => {
      if (current !== undefined && performance.now() - started > BUDGET.hangMs) {
        hung = true;
        p.kill('SIGKILL');
      }
    }, 200);
    (p.stdio[3] as NodeJS.ReadableStream).on('data', (d) => {
      buffer += d;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if ('start' in msg) {
          current = msg.start;
          started = performance.now();
        } else {
          current = undefined;
          onCase(msg as Outcome);
        }
      }
    });
    p.on('close', () => {
      clearInterval(watchdog);
      if (current === undefined) return resolve(undefined);
      const wallMs = performance.now() - started;
      resolve({ code: hung ? 'hang' : 'crash', out: '', err: stderr, cpuMs: NaN, wallMs, rssMiB: NaN });
    });
  });
}

/** Counts per fuzzer for docs/reliability.md: cases, exit codes, internal errors, hangs, peak RSS, worst CPU time. */
export interface Tally {
  cases: number;
  codes: Record<string, number>;
  internal: number;
  hangs: number;
  maxRssMiB: number;
  maxCpuMs: number;
  meanCpuMs: number;
  totalCpuS: number;
}

export function tally(outcomes: readonly Outcome[]): Tally {
  const t: Tally = { cases: outcomes.length, codes: {}, internal: 0, hangs: 0, maxRssMiB: 0, maxCpuMs: 0, meanCpuMs: 0, totalCpuS: 0 };
  for (const o of outcomes) {
    t.codes[o.code] = (t.codes[o.code] ?? 0) + 1;
    if (o.code === 'hang') t.hangs++;
    if (/E_INTERNAL/.test(o.out) || o.code === 'crash' || o.code === 'threw' || /\n\s+at /.test(o.err)) t.internal++;
    if (o.rssMiB > t.maxRssMiB) t.maxRssMiB = Math.round(o.rssMiB);
    if (o.cpuMs > t.maxCpuMs) t.maxCpuMs = Math.round(o.cpuMs);
    if (Number.isFinite(o.cpuMs)) t.meanCpuMs += o.cpuMs / outcomes.length;
  }
  t.totalCpuS = Math.round(t.meanCpuMs * outcomes.length) / 1000;
  t.meanCpuMs = Math.round(t.meanCpuMs * 10) / 10;
  return t;
}

/**
 * The budget for one outcome: exit 0, 1 or 2 (1 only as a typed failure of the work, never
 * E_INTERNAL), within BUDGET, and an error message of exactly one line without raw control
 * characters. `what` names the case in the failure message.
 */
export function expectWithinBudget(o: Outcome, what: string): void {
  const where = `${what} → ${o.code} (${Math.round(o.cpuMs)} ms CPU, ${Math.round(o.rssMiB)} MiB): ${o.err.slice(0, 300)}`;
  expect([0, 1, 2], where).toContain(o.code);
  expect(o.cpuMs, where).toBeLessThan(BUDGET.cpuMs);
  expect(o.rssMiB, where).toBeLessThan(BUDGET.rssMiB);
  expect(o.out + o.err, where).not.toMatch(/E_INTERNAL/);
  if (o.code !== 0) {
    expect(o.err, where).toMatch(/^paralens: [^\n]+\n$/);
    // eslint-disable-next-line no-control-regex
    expect(o.err.slice(0, -1), where).not.toMatch(/[\u0000-\u001f\u007f]/);
  }
}

/**
 * A refusal is decided before the work, so it costs little: under a second of CPU time (as does
 * the small work of issue 32's items), where work that is done at scale (exit 0, e.g. predicting
 * 130,000 CSV rows) has the whole BUDGET — the bound that separates linear work from the
 * blow-ups of issue 23 by a wide margin on a loaded machine.
 */
export const QUICK_CPU_MS = 1000;

/** expectWithinBudget, and a refusal (exit ≠ 0) within QUICK_CPU_MS. */
export function expectQuickRefusal(o: Outcome, what: string): void {
  expectWithinBudget(o, what);
  if (o.code !== 0) expect(o.cpuMs, `${what}: a refusal after ${Math.round(o.cpuMs)} ms of CPU`).toBeLessThan(QUICK_CPU_MS);
}

/** Prints a tally when PARALENS_TEST_VERBOSE is set (the numbers in docs/reliability.md). */
export function logTally(name: string, outcomes: readonly Outcome[]): Tally {
  const t = tally(outcomes);
  if (process.env.PARALENS_TEST_VERBOSE) console.log(`fuzz ${name}: ${JSON.stringify(t)}`);
  return t;
}

/**
 * A budgeted fuzzer: runs the cases (in chunks, each in its own capped child) and checks every
 * outcome against BUDGET, naming the failing case and the seed that replays it. Returns the
 * tally that docs/reliability.md reports.
 */
export async function fuzzCli(name: string, cases: readonly Case[], seed: number): Promise<Tally> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < cases.length; i += 2000) outcomes.push(...(await runCases(cases.slice(i, i + 2000))));
  const t = logTally(name, outcomes);
  // the long run's hangs and crashes named at once (the failure report comes only at the end of the file)
  if (process.env.PARALENS_TEST_VERBOSE)
    outcomes.forEach(
      (o, i) =>
        typeof o.code === 'string' &&
        console.log(`fuzz ${name}: case ${i} ${o.code} after ${Math.round(o.wallMs)} ms: ${JSON.stringify(cases[i]!.argv).slice(0, 2000)}`),
    );
  if (process.env.PARALENS_TEST_VERBOSE) {
    // the costliest case, to see where the budget goes
    const worst = outcomes.reduce((w, o, i) => (o.cpuMs > (outcomes[w]?.cpuMs ?? -1) ? i : w), 0);
    const o = outcomes[worst];
    if (o)
      console.log(
        `fuzz ${name}: costliest case ${worst}: ${Math.round(o.cpuMs)} ms CPU, ${Math.round(o.rssMiB)} MiB, exit ${o.code}: ${JSON.stringify(cases[worst]!.argv).slice(0, 300)} ${o.err.trim().slice(0, 200)}`,
      );
  }
  outcomes.forEach((o, i) => {
    const argv = cases[i]!.argv.map((a) => (a.length > 60 ? `${a.slice(0, 60)}…(${a.length} chars)` : a)).join(' ');
    expectWithinBudget(o, `${name} case ${i} (PARALENS_FUZZ_SEED=${seed}): ${JSON.stringify(argv)}`);
  });
  return t;
}
