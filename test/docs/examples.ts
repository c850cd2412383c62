import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The docs' shell examples, run. A page's code blocks hold `$ command` lines, each followed by
 * the output it prints; every block of a page runs, in order, in one bash session in a scratch
 * directory (so a file saved in one example is there for the next), with `paralens` and
 * `npx paralens` meaning this checkout's dist/src/cli/main.js. Outputs are compared as
 * documented in docs/docs-tests.md: timings masked, decimals to 1% (or one unit of the last
 * printed digit), integers and text exactly, `…` lines for omitted output.
 */

export interface Example {
  /** The command as bash runs it (continuation lines joined). */
  command: string;
  /** The documented output lines. */
  expected: string[];
  /** 0-based line range of the output in the page, [start, end). */
  outputLines: [number, number];
}

export interface Block {
  /** Line of the opening fence. */
  line: number;
  /** Commands run before the block without being shown (`<!-- doc-test: setup CMD -->`). */
  setup: string[];
  /** Files a page shows and its examples use (`<!-- doc-test: file NAME -->` before a block): written before this block runs. */
  files: { name: string; text: string }[];
  /** Why the block is not run (`<!-- doc-test: skip REASON -->`), if it is not. */
  skip?: string;
  /** A list of commands shown without their output (`<!-- doc-test: quiet -->`): each must exit 0, nothing is compared. */
  quiet?: boolean;
  /** Text replaced in the commands before they run (`<!-- doc-test: replace A => B -->`), for a slow example the page says is run smaller. */
  replace: [string, string][];
  examples: Example[];
}

const DIRECTIVE = /^<!--\s*doc-test:\s*(skip|setup|quiet|file|replace)\s*(.*?)\s*-->$/;

/** The example blocks of a markdown page: fenced blocks that contain `$ ` lines. */
export function parseExamples(md: string): Block[] {
  const lines = md.split('\n');
  const blocks: Block[] = [];
  let directives: { skip?: string; quiet?: boolean; setup: string[]; file?: string; replace: [string, string][] } = { setup: [], replace: [] };
  let files: { name: string; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const d = DIRECTIVE.exec(lines[i]!.trim());
    if (d) {
      if (d[1] === 'skip') directives.skip = d[2] || 'no reason given';
      else if (d[1] === 'quiet') directives.quiet = true;
      else if (d[1] === 'file') directives.file = d[2]!;
      else if (d[1] === 'replace') {
        const [a, b] = d[2]!.split(' => ');
        if (a === undefined || b === undefined) throw new Error(`doc-test: replace needs 'A => B', got '${d[2]}'`);
        directives.replace.push([a, b]);
      }
      else directives.setup.push(d[2]!);
      continue;
    }
    if (!/^```/.test(lines[i]!)) {
      if (lines[i]!.trim()) directives = { setup: [], replace: [] };
      continue;
    }
    const start = i;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    const body = lines.slice(start + 1, end);
    if (directives.file) files.push({ name: directives.file, text: body.join('\n') + '\n' });
    else if (body.some((l) => l.startsWith('$ '))) {
      const examples: Example[] = [];
      for (let k = 0; k < body.length; k++) {
        if (!body[k]!.startsWith('$ ')) continue;
        let command = body[k]!.slice(2);
        while (command.endsWith('\\') && k + 1 < body.length) command = command.slice(0, -1) + ' ' + body[++k]!.trim();
        let o = k + 1;
        while (o < body.length && !body[o]!.startsWith('$ ')) o++;
        examples.push({ command, expected: body.slice(k + 1, o), outputLines: [start + 1 + k + 1, start + 1 + o] });
        k = o - 1;
      }
      blocks.push({ line: start, setup: directives.setup, files, skip: directives.skip, quiet: directives.quiet, replace: directives.replace, examples });
      files = [];
    }
    directives = { setup: [], replace: [] };
    i = end;
  }
  return blocks;
}

/** Timings vary from run to run: masked before comparing. */
export function maskTimings(line: string): string {
  return line
    .replace(/"([a-z_]*(?:seconds|elapsed|_ms|per_second|per_sec|samples_per_s)[a-z_]*)":\s*-?[\d.]+(?:e[-+]?\d+)?/gi, '"$1":⏱')
    .replace(/\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\s?[kMG]?(?:samples|rows|it|steps|tokens|sets|images)\/s\b/g, '⏱/s')
    .replace(/(^|[^\w.])\d+(?:\.\d+)?(?:e[-+]?\d+)?\s?(?:s|ms|µs|us|min)\b/g, '$1⏱')
    .replace(/\b(?:eta|ETA|time left)\s+\S+/g, 'eta ⏱')
    .replace(/^(\s*(?:seconds|elapsed|wall|time)\s+)-?\d+(?:\.\d+)?(?:e[-+]?\d+)?\s*$/, '$1⏱'); // "seconds   20.05" in a key-value listing
}

const NUMBER = /[-−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?/g;

type Token = string | { n: number; text: string };

function tokens(line: string): Token[] {
  const s = maskTimings(line).replace(/\s+/g, ' ').trim();
  const out: Token[] = [];
  let last = 0;
  for (const m of s.matchAll(NUMBER)) {
    // digits inside a word (x1, conv2d, e3nn, sha256 hashes) are text
    const before = s[m.index! - 1], after = s[m.index! + m[0].length];
    if ((before && /[A-Za-z_]/.test(before)) || (after && /[A-Za-z_]/.test(after) && !/^e/.test(after))) continue;
    if (m.index! > last) out.push(s.slice(last, m.index));
    out.push({ n: Number(m[0].replace('−', '-')), text: m[0] });
    last = m.index! + m[0].length;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}

/** Relative tolerance for decimals (and one unit of the last printed digit). */
export const RELATIVE_TOLERANCE = 0.01;
/** Below this, decimals are float rounding (errors, defects, residuals of 1e-6): any two agree. */
export const ABSOLUTE_TOLERANCE = 2e-5;

function numbersAgree(expected: { n: number; text: string }, actual: { n: number; text: string }): boolean {
  const integer = /^[-−]?\d+$/.test(expected.text) && /^[-−]?\d+$/.test(actual.text);
  if (integer) return expected.n === actual.n;
  const digits = /\.(\d+)/.exec(expected.text.replace(/e.*$/, ''))?.[1]?.length ?? 0;
  const exp = Number(/e([-+]?\d+)$/.exec(expected.text)?.[1] ?? 0);
  const unit = Math.pow(10, exp - digits);
  return Math.abs(expected.n - actual.n) <= Math.max(RELATIVE_TOLERANCE * Math.abs(expected.n), unit * 1.0001, ABSOLUTE_TOLERANCE);
}

/** Whether one output line agrees with the documented one; a documented line ending in `…` needs only its beginning to agree. */
export function lineAgrees(expected: string, actual: string): boolean {
  const prefix = /…\s*$/.test(expected);
  const e = tokens(prefix ? expected.replace(/…\s*$/, '') : expected), a = tokens(actual);
  if (!prefix && e.length !== a.length) return false;
  if (prefix && a.length < e.length) return false;
  return e.every((t, i) => {
    const u = a[i]!;
    if (typeof t === 'string') {
      if (typeof u !== 'string') return false;
      return prefix && i === e.length - 1 ? u.startsWith(t.trimEnd()) : t === u;
    }
    return typeof u !== 'string' && numbersAgree(t, u);
  });
}

const isEllipsis = (l: string): boolean => /^\s*(\.\.\.|…)\s*$/.test(l);

/** Table columns that hold timings (progress.ts `table()`: a header row, then a row of dashes). */
const TIMING_COLUMN = /^(seconds|secs?|s|ms|time|wall|.*\(s\)|.* s|.*seconds|.*ms)$/i;

/** The lines with the cells of timing columns masked, for every text table among them. */
export function maskTimingColumns(lines: readonly string[]): string[] {
  const out = [...lines];
  for (let i = 1; i < out.length; i++) {
    if (!/^-+( {2,}-+)*\s*$/.test(out[i]!) || !out[i - 1]!.trim()) continue;
    const cols = [...out[i]!.matchAll(/-+/g)].map((m) => [m.index!, m.index! + m[0].length] as const);
    const header = out[i - 1]!;
    const timed = cols.map(([a], j) => TIMING_COLUMN.test(header.slice(a, j + 1 < cols.length ? cols[j + 1]![0] : undefined).trim()));
    if (!timed.some(Boolean)) continue;
    for (let k = i + 1; k < out.length && out[k]!.trim(); k++) {
      let row = out[k]!;
      cols.forEach(([a], j) => {
        if (!timed[j]) return;
        const end = j + 1 < cols.length ? cols[j + 1]![0] : row.length;
        if (a < row.length) row = row.slice(0, a) + '⏱'.padEnd(Math.max(0, end - a)) + row.slice(end);
      });
      out[k] = row;
    }
  }
  return out;
}

/** Whether an output agrees with the documented lines: line by line, `…` alone on a line standing for any number of lines. */
export function outputAgrees(expected: readonly string[], actual: readonly string[]): boolean {
  const e = maskTimingColumns(expected.filter((l, i) => l.trim() || i < expected.length - 1)).map((l) => l.trimEnd());
  const a = maskTimingColumns(actual).map((l) => l.trimEnd());
  while (e.length && !e[e.length - 1]!.trim()) e.pop();
  const memo = new Map<string, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    if (memo.has(key)) return memo.get(key)!;
    let ok: boolean;
    if (i === e.length) ok = j === a.length;
    else if (isEllipsis(e[i]!)) ok = go(i + 1, j) || (j < a.length && go(i, j + 1));
    else ok = j < a.length && lineAgrees(e[i]!, a[j]!) && go(i + 1, j + 1);
    memo.set(key, ok);
    return ok;
  };
  return go(0, 0);
}

/** A scratch directory where `paralens` and `npx paralens` run this checkout's CLI, with the repository's data/, test/ and dist/ at hand. */
export function scratch(root: string): { dir: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), 'paralens-docs-'));
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  for (const name of ['data', 'test', 'dist', 'scripts']) symlinkSync(join(root, name), join(dir, name));
  const paralens = join(bin, 'paralens');
  writeFileSync(paralens, `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'dist', 'src', 'cli', 'main.js')}" "$@"\n`);
  // the system Python, which has the Debian packages the docs use (torch, onnx, sklearn)
  symlinkSync('/usr/bin/python3', join(bin, 'python3'));
  writeFileSync(join(bin, 'npx'), `#!/bin/sh\nif [ "$1" = paralens ]; then shift; exec "${paralens}" "$@"; fi\necho "docs test: only 'npx paralens' runs here" >&2; exit 127\n`);
  chmodSync(paralens, 0o755);
  chmodSync(join(bin, 'npx'), 0o755);
  return { dir, bin };
}

/**
 * Runs a page's blocks in one bash session; returns each example's output lines, in order.
 * With `folder`, the session starts in that subfolder of the scratch directory, whose parent
 * then plays the clone (README's examples run in the clone's `try/`, and reach its files as `../`).
 */
export function runBlocks(blocks: readonly Block[], root: string, timeoutMs: number, folder?: string): string[][] {
  const scratchDir = scratch(root);
  const { bin } = scratchDir;
  const dir = folder ? join(scratchDir.dir, folder) : scratchDir.dir;
  if (folder) mkdirSync(dir);
  const SEP = '\u001e';
  const script: string[] = [];
  let k = 0;
  for (const b of blocks) {
    if (b.skip) continue;
    for (const f of b.files) writeFileSync(join(dir, f.name), f.text);
    for (const s of b.setup) script.push(`{ ${s} ; } >/dev/null 2>&1`);
    for (const ex of b.examples) {
      // the marker keeps $? of the example before it (for `$ echo $?`)
      script.push(`__rc=$?; printf '${SEP}${k++}\\n'; ( exit $__rc )`);
      // a quiet block's commands are shown without output: only their exit status is checked
      const command = /^\s*#/.test(ex.command) ? ':' : b.replace.reduce((c, [x, y]) => c.split(x).join(y), ex.command); // a comment line runs as nothing
      script.push(b.quiet ? `{ ${command}\n} >/dev/null 2>&1; echo "exit $?"` : `{ ${command}\n} 2>&1`);
    }
  }
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1', COLUMNS: '100' };
  for (const v of Object.keys(env)) if (/^PARALENS_/.test(v) || v === 'FORCE_COLOR') delete env[v];
  let out: string;
  try {
    out = execFileSync('bash', ['-c', script.join('\n')], { cwd: dir, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    out = String((e as { stdout?: string }).stdout ?? '');
  }
  out = out.split(dir + '/').join('./').split(dir).join('.'); // the scratch directory's name changes every run
  const outputs: string[][] = Array.from({ length: k }, () => []);
  for (const part of out.split(SEP).slice(1)) {
    const nl = part.indexOf('\n');
    const idx = Number(part.slice(0, nl));
    const body = part.slice(nl + 1).replace(/\n$/, '');
    outputs[idx] = body ? body.split('\n') : [];
  }
  return outputs;
}

/** The page with each disagreeing example's documented output replaced by what the command printed (`npm run docs`). */
export function rewrite(md: string, blocks: readonly Block[], outputs: readonly string[][]): string {
  const lines = md.split('\n');
  const edits: { range: [number, number]; text: string[] }[] = [];
  let k = 0;
  for (const b of blocks) {
    if (b.skip) continue;
    for (const ex of b.examples) {
      const got = outputs[k++]!;
      // a quiet block shows no output: nothing to write (its failures are the test's to report)
      if (!b.quiet && !outputAgrees(ex.expected, got)) edits.push({ range: ex.outputLines, text: got });
    }
  }
  for (const { range, text } of edits.reverse()) lines.splice(range[0], range[1] - range[0], ...text);
  return lines.join('\n');
}

/** What an example must print: its documented output, or for a quiet block's command its exit status 0. */
export const expectedOf = (b: Block, ex: Example): string[] => (b.quiet ? ['exit 0'] : ex.expected);

/** The bash that a `$ ` line would run, for messages. */
export const shown = (ex: Example): string => `$ ${ex.command}`;


/** The newest modification time of the files under a directory (recursively) with an extension: dist/ older than src/ needs a build. */
export function newest(dir: string, ext: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p, ext));
    else if (e.name.endsWith(ext)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}
