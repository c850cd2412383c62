import { ARRAY_SCALES, arraysDataset, withImageLayout } from '../data/arrays.js';
import type { ArrayScale, ImageLayout } from '../data/arrays.js';
import type { Dataset } from '../data/dataset.js';
import { readFashionMnist, readIdxDirectory, readNpyFile, readNpzFile, readTableFile } from '../data/node.js';
import { readFortunes, readTextFile } from '../data/node-text.js';
import type { NdArray } from '../data/npy.js';
import { modelInputs } from '../data/preprocessing.js';
import type { Feature, Preprocessing } from '../data/preprocessing.js';
import type { LoadedData } from '../data/splits.js';
import { builtInData, builtInDataNames } from '../data/registry.js';
import { nbodyData } from '../data/nbody.js';
import { isPointCloud, pointCloudDataset } from '../data/point-cloud.js';
import { encodeTable, tablePreprocessing } from '../data/tabular.js';
import type { Task } from '../data/task.js';
import { textCorpus } from '../data/text.js';
import type { TextCorpus } from '../data/text.js';
import { DataError, ShapeError, UnknownNameError } from '../errors.js';
import type { Para } from '../para/para.js';
import { UsageError } from './args.js';
import type { Flags } from './args.js';

/** What a command asks of its data. */
export interface CliDataOptions {
  seed: number;
  /** --data-dir: where fashion-mnist's IDX files are. */
  dataDir?: string;
  /** The model the data will feed: it decides the image layout and whether two classes are one output or two. */
  model?: Para;
  /** --target: the target column of a table, or the .npy file of targets. */
  target?: string;
  /** --task: classification or regression (default: inferred from the target). */
  task?: Task;
  /** For k-means: no target unless named, or the last column of a table holds class names. */
  optionalTarget?: boolean;
  /** For predict: read the file as the model was trained — its columns, categories and classes. */
  preprocessing?: Preprocessing;
  /** --scale: how array inputs become model inputs (arrays only; token ids always `none`). */
  scale?: ArrayScale;
  /** The model reads token ids: a table's numeric columns are read as they are (mean 0, std 1), never standardised. */
  ids?: boolean;
}

/** A kind of --data value: how --help names it, which values it takes, and how it loads them. */
interface DataSource {
  readonly form: string;
  matches(spec: string): boolean;
  load(spec: string, opts: CliDataOptions): Promise<LoadedData>;
}

/**
 * The image layout a model takes: 'image' ([1,H,W], channel-first) when its domain has rank 3
 * or it cannot take a flat vector of `flat` features (a model starting with conv2d), else 'flat'.
 */
export function layoutFor(model: Para | undefined, flat: number): ImageLayout {
  if (!model) return 'flat';
  if (model.dom) return model.dom.length === 3 ? 'image' : 'flat';
  try {
    model.at([flat]);
    return 'flat';
  } catch (e) {
    if (e instanceof ShapeError) return 'image';
    throw e;
  }
}

/** Whether the model has exactly one output (then two classes are one logit, trained with bce). */
function oneOutput(model: Para | undefined): boolean {
  return model?.cod !== undefined && model.cod.reduce((a, b) => a * b, 1) === 1;
}

/** [N,H,W] images in the layout the model takes. */
function laidOut(ds: Dataset, model: Para | undefined): Dataset {
  return ds.x.rank === 3 ? withImageLayout(ds, layoutFor(model, ds.x.shape[1]! * ds.x.shape[2]!)) : ds;
}

function fromArrays(x: NdArray, y: NdArray | undefined, name: string, opts: CliDataOptions): LoadedData {
  if (isPointCloud(x, opts.model?.dom, name, y)) return { data: pointCloudDataset(x, y, name) };
  const saved = opts.preprocessing;
  const classes = saved?.target?.task === 'classify' ? saved.target.classes : undefined;
  const { data, preprocessing } = arraysDataset(x, y, {
    name,
    task: opts.task ?? saved?.target?.task,
    classes,
    binaryAsOneColumn: oneOutput(opts.model),
    scale: opts.scale,
  });
  if (!saved) return { data: laidOut(data, opts.model), preprocessing };
  return { data: laidOut(data, opts.model), ...savedScaling(saved, x, name) };
}

/**
 * A saved preprocessing for new arrays: a model trained on pixels (÷255) given float data
 * already within [0,1] reads it as it is — dividing again would feed it values 255 times too
 * small — and says so.
 */
export function savedScaling(saved: Preprocessing, x: Pick<NdArray, 'kind' | 'data'>, name: string): { preprocessing: Preprocessing; scalingNote?: string } {
  if (saved.input !== 'array' || saved.scale === 1 || x.kind === 'uint8') return { preprocessing: saved };
  for (let i = 0; i < x.data.length; i++) if (!(x.data[i]! >= 0 && x.data[i]! <= 1)) return { preprocessing: saved };
  return { preprocessing: { ...saved, scale: 1 }, scalingNote: `${name} holds numbers already in [0,1]: not divided by 255 again` };
}

const TABLE = /\.(csv|tsv|tab|txt|dat)(\.gz)?$/i;

/** A delimited text file as data: its columns encoded (a saved preprocessing's, or fitted here: target, task, numeric and categorical features). */
export function loadTable(path: string, opts: CliDataOptions): LoadedData {
  const table = readTableFile(path);
  if (opts.scale !== undefined)
    throw new UsageError(`${path}: --scale applies to arrays (NumPy, IDX); a table's numeric columns are standardised, its categories one-hot encoded`);
  const saved = opts.preprocessing;
  if (saved && saved.input !== 'table')
    throw new DataError(`${path}: the model was trained on arrays (NumPy or IDX files), not on a table; give --data PATH.npz or --input rows`);
  const p = saved ?? tableFitted(table, opts);
  return { data: encodeTable(table, p, { binaryAsOneColumn: oneOutput(opts.model) }), preprocessing: p };
}

/** A table's preprocessing fitted here; for a model reading token ids, numeric columns read as they are (mean 0, std 1). */
function tableFitted(table: ReturnType<typeof readTableFile>, opts: CliDataOptions): Extract<Preprocessing, { input: 'table' }> {
  const p = tablePreprocessing(table, { target: opts.target, task: opts.task, optionalTarget: opts.optionalTarget });
  return opts.ids ? { ...p, features: p.features.map((f): Feature => (f.type === 'numeric' ? { ...f, mean: 0, std: 1 } : f)) } : p;
}

/**
 * Every kind of --data value, in the order they are tried. A new kind (a `text:` prefix, a
 * named set) is one entry here.
 */
const SOURCES: readonly DataSource[] = [
  {
    form: builtInDataNames().join(', '),
    matches: (s) => builtInDataNames().includes(s),
    load: async (s, { seed }) => ({ data: builtInData(s, seed) }),
  },
  {
    form: 'fashion-mnist',
    matches: (s) => s === 'fashion-mnist',
    load: async (_, { dataDir, model, scale }) => {
      const { train, test } = readFashionMnist({ dataDir, scale });
      return { data: laidOut(train.data, model), test: laidOut(test.data, model), preprocessing: train.preprocessing };
    },
  },
  {
    form: "nbody (EGNN's charged particles: 3000/2000/2000 point clouds [5,11] → positions [5,3])",
    matches: (s) => s === 'nbody',
    load: async () => {
      const { train, valid, test } = nbodyData();
      return { data: train, validation: valid, test };
    },
  },
  { form: 'PATH.csv (also .tsv, .txt, .gz)', matches: (s) => TABLE.test(s), load: async (path, opts) => loadTable(path, opts) },
  {
    form: 'PATH.npz (arrays x and y)',
    matches: (s) => /\.npz$/i.test(s),
    load: async (path, opts) => {
      const arrays = readNpzFile(path);
      const get = (n: string): NdArray | undefined => arrays.get(n) ?? arrays.get(n.toUpperCase());
      const x = get('x');
      if (!x)
        throw new DataError(
          `${path}: no array named x (features); it holds ${[...arrays.keys()].join(', ') || 'nothing'}. Save with np.savez(path, x=features, y=targets)`,
        );
      return fromArrays(x, get('y'), path, opts);
    },
  },
  {
    form: 'PATH.npy (with --target Y.npy)',
    matches: (s) => /\.npy$/i.test(s),
    load: async (path, opts) => {
      if (opts.target !== undefined && !/\.npy$/i.test(opts.target))
        throw new DataError(`${path}: --target for a .npy file is the .npy file of targets, got '${opts.target}'`);
      return fromArrays(readNpyFile(path), opts.target !== undefined ? readNpyFile(opts.target) : undefined, path, opts);
    },
  },
  {
    form: 'idx:DIR (IDX image/label files)',
    matches: (s) => s.startsWith('idx:'),
    load: async (s, { model, preprocessing, scale }) => {
      const saved = preprocessing?.target?.task === 'classify' ? preprocessing.target.classes : undefined;
      const { train, test } = readIdxDirectory(s.slice(4), { classes: saved, scale });
      return { data: laidOut(train.data, model), ...(test ? { test: laidOut(test.data, model) } : {}), preprocessing: preprocessing ?? train.preprocessing };
    },
  },
];

/** Whether a --data value is arrays (NumPy, IDX, fashion-mnist): the data --scale applies to. */
export function isArrayData(spec: string): boolean {
  return /\.(npz|npy)$/i.test(spec) || spec.startsWith('idx:') || spec === 'fashion-mnist';
}

/** The kinds of --data value, for help texts: "xor, moons, …, fashion-mnist, PATH.csv, …". */
export function dataForms(): string {
  return SOURCES.map((s) => s.form).join('; ');
}

/** Loads a --data value: a built-in set, fashion-mnist, a CSV, NumPy or IDX file. */
export async function loadData(spec: string, opts: CliDataOptions): Promise<LoadedData> {
  const source = SOURCES.find((s) => s.matches(spec));
  if (!source) throw new UnknownNameError('data set', spec, [...builtInDataNames(), 'fashion-mnist', 'nbody', 'PATH.csv', 'PATH.npy', 'PATH.npz', 'idx:DIR']);
  return source.load(spec, opts);
}

/** The character-level data sets: `text:PATH` (any UTF-8 file) and `fortunes` (Debian's package). */
export const TEXT_DATA = ['text:PATH', 'fortunes'] as const;

export function isTextData(name: string): boolean {
  return name === 'fortunes' || name.startsWith('text:');
}

/** The raw text of a text data set (`dataDir` overrides where fortunes looks). */
function readTextData(name: string, dataDir?: string): string {
  if (name === 'fortunes') return readFortunes(dataDir);
  const path = name.slice('text:'.length);
  if (!path) throw new UsageError('--data text:PATH needs a path, e.g. --data text:book.txt');
  return readTextFile(path);
}

/** A text data set split 90/10 into training and validation characters, with the training part's vocabulary (or the one given). */
export function loadTextData(name: string, opts: { dataDir?: string; context: number; vocabulary?: readonly string[]; vocabularySize?: number }): TextCorpus {
  return textCorpus(name, readTextData(name, opts.dataDir), { minWindow: opts.context, vocabulary: opts.vocabulary, vocabularySize: opts.vocabularySize });
}

/**
 * The data as a command that splits and standardises for itself takes it (uncertainty,
 * sheaf, distill, k-means, topos info): arrays scaled (pixels to [0,1]), tables encoded
 * (categories one-hot); nothing standardised; the fixed test split as `test`.
 */
export function inputsOf(l: LoadedData): Dataset & { test?: Dataset } {
  const p = l.preprocessing;
  const ready = (d: Dataset): Dataset => {
    if (p?.input !== 'array') return d;
    const x = modelInputs({ ...p, standardize: false }, d.x);
    return { ...d, x, ...(d.y === d.x ? { y: x } : {}) };
  };
  return { ...ready(l.data), ...(l.test ? { test: ready(l.test) } : {}) };
}

/** The data flags of every command that takes --data (`help` names what the data is for). */
export function dataFlags(opts: { help?: string } = {}) {
  return {
    data: { type: 'string', help: `${opts.help ?? 'data set'}: ${dataForms()}` },
    target: { type: 'string', help: 'the target column of a table (default: the last), or the .npy file of targets' },
    task: {
      type: 'string',
      choices: ['classify', 'regress'],
      help: 'classification or regression (default: from the target: text or few integers are classes)',
    },
    'data-dir': { type: 'string', help: 'directory of IDX files for fashion-mnist (default /usr/share/datasets/fashion-mnist)' },
  } as const satisfies Flags;
}

/** --scale, for commands that fit a preprocessing on array data (train). */
export function scaleFlag() {
  return {
    scale: {
      type: 'string',
      choices: [...ARRAY_SCALES],
      help: "array data (NumPy, IDX): none (as stored), unit (pixels 0…255 to [0,1], as torchvision's ToTensor), standard (mean 0, std 1 per input); default unit for 8-bit arrays, standard otherwise, none for token ids",
    },
  } as const satisfies Flags;
}
