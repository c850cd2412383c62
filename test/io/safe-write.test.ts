// Files that cannot be turned against the user (issue 23, "Found" 6 and 8): every output goes
// through src/io/node-fs.ts — exclusive random temporary names that never follow a symlink, a
// target that must be a regular file or absent (unless --force), writability and free space
// probed before the work, temporary files removed on every exit path and stale ones cleaned.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { checkWritableSync, createTemp, replaceFileSync, tempPath } from '../../src/io/node-fs.js';
import { cli } from '../cli/helpers.js';
import { buildCli } from '../reliability/build.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-safe-write-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => {
  const d = join(work, `d${n++}`);
  mkdirSync(d);
  return d;
};
const TRAIN = ['train', '--model', 'dense(2,4) >> tanh >> dense(4,1)', '--data', 'xor', '--epochs', '2'];

/** A process id that is certainly not running: a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('temporary files: exclusive, random, never following a symlink', () => {
  it('symlinks planted at the old predictable names are never written through', async () => {
    const d = fresh(),
      victim = join(work, `victim${n}`);
    writeFileSync(victim, 'precious');
    const target = join(d, 'm.safetensors');
    for (const name of [`.m.safetensors.${process.pid}.tmp`, `.checkpoint.${process.pid}.tmp`, `.checkpoint.${process.pid}.probe.tmp`])
      symlinkSync(victim, join(d, name));
    const r = await cli(...TRAIN, '--save', target, '--checkpoint', d);
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(target).isFile()).toBe(true);
  });

  it('temporary names are random and created exclusively: an existing entry at the name is never opened', () => {
    const d = fresh(),
      target = join(d, 'x.bin');
    const a = tempPath(target),
      b = tempPath(target);
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`/\\.x\\.bin\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`));
    replaceFileSync(target, 'one');
    expect(readFileSync(target, 'utf8')).toBe('one');
    expect(readdirSync(d)).toEqual(['x.bin']);
    // a symlink planted at a temporary name is never opened: creation is exclusive (O_EXCL|O_NOFOLLOW)
    const t = createTemp(target);
    expect(lstatSync(t.path).isFile()).toBe(true);
    rmSync(t.path);
    symlinkSync(join(work, 'nowhere'), t.path);
    expect(() => openSync(t.path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW)).toThrow(/EEXIST/);
    t.done();
    rmSync(t.path);
  });
});

describe('the target must be a regular file or absent (--force replaces, never follows)', () => {
  it('a symlink as --save target is refused, exit 2; with --force the link itself is replaced', async () => {
    const d = fresh(),
      victim = join(d, 'victim'),
      link = join(d, 'm.safetensors');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, link);
    const r = await cli(...TRAIN, '--save', link);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^paralens: cannot write .*m\.safetensors: it is a symbolic link.*--force/);
    const f = await cli(...TRAIN, '--save', link, '--force');
    expect(f.code, f.err).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(link).isFile()).toBe(true);
  });

  it('devices and FIFOs are refused (as root, --save /dev/null would have replaced /dev/null)', async () => {
    const d = fresh(),
      fifo = join(d, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await cli('export', '--load', join(d, 'none'), '--onnx', fifo);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/it is a FIFO/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    if (process.getuid?.() === 0) {
      const dev = join(d, 'null');
      execFileSync('mknod', [dev, 'c', '1', '3']);
      const s = await cli(...TRAIN, '--save', dev);
      expect(s.code).toBe(2);
      expect(s.err).toMatch(/it is a character device/);
      expect(lstatSync(dev).isCharacterDevice()).toBe(true);
    } else console.log('skipped the character-device case: mknod needs root');
  });

  it('a read-only file is refused unless --force; a directory always', async () => {
    const d = fresh(),
      ro = join(d, 'ro.svg');
    writeFileSync(ro, 'old');
    chmodSync(ro, 0o444);
    const r = await cli('draw', '--model', 'dense(2,1)', '-o', ro);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/it is read-only/);
    expect(readFileSync(ro, 'utf8')).toBe('old');
    expect((await cli('draw', '--model', 'dense(2,1)', '-o', ro, '--force')).code).toBe(0);
    expect(readFileSync(ro, 'utf8')).toMatch(/<svg/);
    mkdirSync(join(d, 'dir.svg'));
    const dir = await cli('draw', '--model', 'dense(2,1)', '-o', join(d, 'dir.svg'), '--force');
    expect(dir.code).toBe(2);
    expect(dir.err).toMatch(/it is a directory/);
  });

  it('a replaced file keeps its mode (--save once turned a 0600 file into a 0644 one); a new one gets the umask', async () => {
    const d = fresh();
    for (const mode of [0o600, 0o640, 0o444]) {
      const f = join(d, `m${mode.toString(8)}.safetensors`);
      writeFileSync(f, 'old');
      chmodSync(f, mode);
      const r = await cli(...TRAIN, '--save', f, ...(mode === 0o444 ? ['--force'] : []));
      expect(r.code, r.err).toBe(0);
      expect(lstatSync(f).mode & 0o777, mode.toString(8)).toBe(mode);
      expect(readFileSync(f).length).toBeGreaterThan(8);
    }
    const f = join(d, 'direct.bin');
    writeFileSync(f, 'old');
    chmodSync(f, 0o4755); // set-user-ID never carries over to written bytes
    replaceFileSync(f, 'new');
    expect(lstatSync(f).mode & 0o7777).toBe(0o755);
    const fresh2 = join(d, 'new.bin');
    replaceFileSync(fresh2, 'x');
    expect(lstatSync(fresh2).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  it("an empty output name is refused, exit 2 (--save '' once saved nothing with exit 0)", async () => {
    for (const args of [
      [...TRAIN, '--save', ''],
      ['draw', '--model', 'relu', '-o', ''],
      ['export', '--load', 'x', '--onnx', ''],
    ]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/needs a file name/);
    }
  });
});

describe('every output is probed before the work starts', () => {
  it('--save into a directory that cannot be written fails before training (no checkpoint written)', async () => {
    const d = fresh();
    const r = await cli(...TRAIN, '--epochs', '50', '--checkpoint', d, '--save', '/proc/paralens-model.safetensors', '--json');
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/cannot write \/proc\/paralens-model\.safetensors/);
    expect(existsSync(join(d, 'checkpoint.safetensors'))).toBe(false);
  });

  it('free space is compared with what will be written', () => {
    const d = fresh();
    expect(() => checkWritableSync(join(d, 'big.bin'), { bytes: 2 ** 62 })).toThrow(/not enough free space: .* needed, .* free/);
    expect(() => checkWritableSync(join(d, 'small.bin'), { bytes: 100 })).not.toThrow();
    expect(readdirSync(d)).toEqual([]); // the probe leaves nothing behind
  });
});

describe('temporary files are removed on every exit path, and stale ones are cleaned', () => {
  it('stale temporary files of killed runs (their pid is gone) are removed by the next write; live ones are kept', async () => {
    const d = fresh(),
      target = join(d, 'm.safetensors'),
      dead = deadPid();
    const stale = [`.m.safetensors.${dead}.0123abcd.tmp`, `.m.safetensors.${dead}.tmp`];
    const live = `.m.safetensors.${process.ppid}.89abcdef.tmp`;
    for (const f of [...stale, live]) writeFileSync(join(d, f), 'partial');
    const r = await cli(...TRAIN, '--save', target);
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(d).sort()).toEqual([live, 'm.safetensors'].sort());
  });

  it('SIGINT and SIGTERM while a temporary file exists remove it, and the process still dies of the signal', async () => {
    const built = buildCli('safe-write');
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const d = fresh();
      // a child holding a temporary file open (as during a long write), then signalled
      const script = `const { createTemp } = await import(${JSON.stringify(join(built.dir, 'src', 'io', 'node-fs.js'))});
        const t = createTemp(${JSON.stringify(join(d, 'out.bin'))}); process.stdout.write('ready\\n'); setTimeout(() => {}, 60000);`;
      const p = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      p.stderr.on('data', (x) => (err += x));
      await new Promise<void>((resolve) => p.stdout.on('data', () => resolve()));
      expect(readdirSync(d)).toHaveLength(1);
      p.kill(signal);
      const exit = await new Promise<NodeJS.Signals | null>((resolve) => p.on('exit', (_c, s) => resolve(s)));
      expect(exit, err).toBe(signal);
      expect(readdirSync(d)).toEqual([]);
    }
    built.cleanup();
  });
});
