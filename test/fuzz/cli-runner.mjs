// The child process of test/fuzz/budget.ts: runs CLI cases in-process, one after another, and
// reports on file descriptor 3 (one JSON line each) what every case did and what it cost.
//
//   node cli-runner.mjs RUN_JS CASES_DIR COUNT FIRST WORK_DIR RESTART_MIB
//
// RUN_JS is the compiled src/cli/run.js; CASES_DIR holds COUNT cases, CASES_DIR/<i>.json each
// {argv, files}, read as the runner reaches it (a restarted runner parses no case it does not
// run); each case's files
// are written into a fresh directory WORK_DIR/c<i> (bytes in base64, or a special file: a FIFO, a
// symbolic link, a sparse file, repeated text), whose path replaces '{dir}' in argv. Before a
// case: {"start": i}; after it: {"i", "code", "out", "err", "cpuMs", "wallMs", "rssMiB"} where
// rssMiB is the process's peak resident set so far (monotone: the first case to cross a bound is
// the one that did it). The runner exits once the peak passes RESTART_MIB, so that the parent
// restarts it and the next case is measured in a fresh process.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [runJs, casesDir, count, first, work, restartMiB] = process.argv.slice(2);
const { run } = await import(pathToFileURL(runJs).href);
const report = (o) => writeSync(3, JSON.stringify(o) + '\n');
// long output is cut in the middle, keeping its last line's end (the one-line check reads it)
const clip = (s) => (s.length > 4000 ? `${s.slice(0, 3000)}…${s.slice(-1000)}` : s);
// the peak resident set of this process's own memory: VmHWM, not getrusage's maxRSS, which Linux
// carries over from the parent through fork and exec (a runner started by a test process holding
// 2 GB of cases would report 2 GB for every case, and restart after each one)
const peakMiB = () => {
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  if (!hwm) throw new Error('cli-runner: no VmHWM in /proc/self/status (the budget needs Linux)');
  return Number(hwm[1]) / 1024;
};

for (let i = Number(first); i < Number(count); i++) {
  const c = JSON.parse(readFileSync(join(casesDir, `${i}.json`), 'utf8'));
  const dir = join(work, `c${i}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, f] of Object.entries(c.files ?? {})) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    const head = Buffer.from(f.head ?? '', 'base64');
    if (typeof f === 'string') writeFileSync(path, Buffer.from(f, 'base64'));
    else if (f.fifo) execFileSync('mkfifo', [path]);
    else if (f.symlink) symlinkSync(f.symlink, path);
    else if (f.dir) mkdirSync(path, { recursive: true });
    else if (f.sparse !== undefined) {
      writeFileSync(path, head);
      truncateSync(path, f.sparse);
    } else writeFileSync(path, Buffer.concat([head, Buffer.from(f.repeat.repeat(f.count)), Buffer.from(f.tail ?? '')]));
  }
  const argv = c.argv.map((a) => a.split('{dir}').join(dir));
  const out = [],
    err = [];
  report({ start: i });
  const cpu0 = process.cpuUsage(),
    t0 = performance.now();
  let code;
  try {
    code = await run(argv, { out: (s) => out.push(s), err: (s) => err.push(s), errIsTTY: false });
  } catch (e) {
    code = 'threw';
    err.push(String(e?.stack ?? e));
  }
  const cpu = process.cpuUsage(cpu0);
  const rssMiB = peakMiB();
  report({ i, code, out: clip(out.join('')), err: clip(err.join('')), cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0, rssMiB });
  rmSync(dir, { recursive: true, force: true });
  if (rssMiB > Number(restartMiB)) break;
}
