// Peers that tests compare against or run in (PyTorch, NumPy, ONNX Runtime, Chromium, the
// built dist/, the wasm backend, the Fashion-MNIST package): probed once, and the one rule
// for a test that needs one — run it when the peer is here; under CI=true FAIL naming what
// is missing and how to install it; otherwise skip it and print why. A test that needs a
// peer never passes silently.
//
// To check that rule, make a peer unavailable: PARALENS_TEST_PYTHON=/nonexistent (the
// interpreter the Python peers run in), PARALENS_TEST_CHROMIUM=/nonexistent, or
// PARALENS_TEST_MISSING=onnxruntime,wasm,… (peer ids, comma-separated) for any of them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';

/** CI=true (or 1): a missing peer is a failure, not a skip. */
export const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

/** The Python the Python peers run in. */
export const PYTHON = process.env.PARALENS_TEST_PYTHON ?? '/usr/bin/python3';
/** The Chromium the browser tests drive. */
export const CHROMIUM = process.env.PARALENS_TEST_CHROMIUM ?? '/usr/bin/chromium';

export interface Peer {
  /** Short id, as PARALENS_TEST_MISSING names it: 'pytorch', 'numpy', 'python', 'onnxruntime', 'chromium', 'dist', 'wasm', 'fashion-mnist'. */
  readonly id: string;
  /** What it is, for messages: 'PyTorch (python3-torch)'. */
  readonly name: string;
  /** Why it cannot be used, or undefined when it can. */
  readonly missing: string | undefined;
  /** How to get it. */
  readonly install: string;
}

const hidden = new Set(
  (process.env.PARALENS_TEST_MISSING ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** A peer from its probe: the probe returns undefined when the peer works, else why not (a throw counts as why not). */
function peer(id: string, name: string, install: string, probe: () => string | undefined): Peer {
  let missing: string | undefined;
  if (hidden.has(id)) missing = 'hidden by PARALENS_TEST_MISSING';
  else {
    try {
      missing = probe();
    } catch (e) {
      missing = (e as Error).message;
    }
  }
  return { id, name, install, missing };
}

/**
 * A peer that is something to load (a package, the wasm backend): the loaded value when it
 * loads, and the peer, missing with the error's message when it does not.
 */
async function loadedPeer<T>(id: string, name: string, install: string, load: () => Promise<T>): Promise<{ peer: Peer; value: T | undefined }> {
  if (hidden.has(id)) return { peer: { id, name, install, missing: 'hidden by PARALENS_TEST_MISSING' }, value: undefined };
  try {
    const value = await load();
    return { peer: { id, name, install, missing: undefined }, value };
  } catch (e) {
    return { peer: { id, name, install, missing: (e as Error).message.split('\n')[0] }, value: undefined };
  }
}

/** Python with these modules importable (PYTHON -c 'import …'). */
function pythonPeer(id: string, name: string, modules: readonly string[], install: string): Peer {
  return peer(id, name, install, () => {
    if (!existsSync(PYTHON)) return `${PYTHON} does not exist`;
    const r = spawnSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { encoding: 'utf8' });
    if (r.status === 0) return undefined;
    return `${PYTHON} -c 'import ${modules.join(', ')}' failed: ${(r.stderr || String(r.error ?? '')).trim().split('\n').pop()}`;
  });
}

/** A file that must exist (a binary, a built module, a data set). */
function filePeer(id: string, name: string, path: string, install: string): Peer {
  return peer(id, name, install, () => (existsSync(path) ? undefined : `${path} does not exist`));
}

/** Probed on first use (a Python probe takes a second; most test files need none). */
const once = <T>(f: () => T): (() => T) => {
  let v: T | undefined;
  return () => (v ??= f());
};

export const pytorch = once(() => pythonPeer('pytorch', 'PyTorch (python3-torch)', ['torch'], 'apt-get install -y python3-torch'));
export const torchOnnx = once(() =>
  pythonPeer('pytorch', 'PyTorch with ONNX export (python3-torch, python3-onnx)', ['torch', 'onnx'], 'apt-get install -y python3-torch python3-onnx'),
);
export const numpy = once(() => pythonPeer('numpy', 'NumPy (python3-numpy)', ['numpy'], 'apt-get install -y python3-numpy'));
export const python = once(() => pythonPeer('python', 'python3 with struct and json', ['struct', 'json'], 'apt-get install -y python3'));
export const chromium = once(() => filePeer('chromium', 'Chromium', CHROMIUM, 'apt-get install -y chromium'));
export const fashionMnist = once(() =>
  filePeer(
    'fashion-mnist',
    'Fashion-MNIST (dataset-fashion-mnist)',
    '/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz',
    'apt-get install -y dataset-fashion-mnist',
  ),
);
/** A file of the built package (dist/), which `npm ci` builds. */
export const built = (path: string): Peer => filePeer('dist', `the build (${path})`, path, 'npm run build (npm ci runs it)');
/** The wasm backend (built by `npm run build`), loaded and registered. */
export const wasmBackend = once(() =>
  loadedPeer('wasm', 'the wasm backend', 'npm run build (npm ci runs it)', async () => (await import('../../src/tensor/wasm-backend.js')).loadWasmBackend()),
);
/** The webgpu backend on a WebGPU adapter in Node: Dawn (the `webgpu` package) on a GPU, or on Chromium's SwiftShader Vulkan driver. */
export const webgpuBackend = once(() =>
  loadedPeer('webgpu', 'a WebGPU adapter (Dawn; SwiftShader where there is no GPU)', 'apt-get install -y libvulkan1 chromium', async () =>
    (await import('../../src/tensor/webgpu/backend.js')).createWebGpuBackend(),
  ),
);
/** ONNX Runtime for Node (the onnxruntime-node package) and its module. */
export const onnxRuntime = once(() =>
  loadedPeer('onnxruntime', 'ONNX Runtime (onnxruntime-node)', 'npm ci (a devDependency)', () => import('onnxruntime-node')),
);

const all = (peers: Peer | readonly Peer[]): readonly Peer[] => (Array.isArray(peers) ? peers : [peers as Peer]);
const absent = (peers: readonly Peer[]): Peer[] => peers.filter((p) => p.missing !== undefined);
const why = (ps: readonly Peer[]): string => ps.map((p) => `${p.name} is not available (${p.missing}); ${p.install}`).join('; ');

/**
 * describe(title, body) when the peers are here. Without them: under CI a failing test that
 * names what is missing; otherwise the block is skipped and the reason printed.
 */
export function describeWith(peers: Peer | readonly Peer[], title: string, body: () => void): void {
  const gone = absent(all(peers));
  if (gone.length === 0) return describe(title, body);
  if (CI) {
    describe(title, () =>
      it(`needs ${gone.map((p) => p.name).join(', ')}`, () => {
        throw new Error(`CI=true: ${why(gone)}`);
      }),
    );
    return;
  }
  console.warn(`skipped "${title}": ${why(gone)}`);
  describe.skip(title, body);
}

/**
 * Inside a test, for the part that needs the peers: when one is missing, fail under CI,
 * otherwise print why and skip the rest of the test (ctx.skip ends it).
 */
export function needs(ctx: { skip(note?: string): void }, peers: Peer | readonly Peer[]): void {
  const gone = absent(all(peers));
  if (gone.length === 0) return;
  if (CI) throw new Error(`CI=true: ${why(gone)}`);
  console.warn(`skipped the rest of the test: ${why(gone)}`);
  ctx.skip(why(gone));
}

/** it(title, fn) when the peers are here; otherwise as describeWith: failing under CI, else skipped with the reason printed. */
export function itWith(peers: Peer | readonly Peer[], title: string, fn: () => unknown, timeout?: number): void {
  const gone = absent(all(peers));
  if (gone.length === 0) return void it(title, fn, timeout);
  if (CI)
    return void it(title, () => {
      throw new Error(`CI=true: ${why(gone)}`);
    });
  console.warn(`skipped "${title}": ${why(gone)}`);
  it.skip(title, fn);
}

/** scikit-learn's bundled CSV files (sklearn/datasets/data/*.csv): real files with their own header formats. */
export const SKLEARN_DATA = '/usr/lib/python3/dist-packages/sklearn/datasets/data';
export const sklearnData = once(() =>
  filePeer('sklearn', "scikit-learn's bundled data (python3-sklearn)", `${SKLEARN_DATA}/wine_data.csv`, 'apt-get install -y python3-sklearn'),
);
