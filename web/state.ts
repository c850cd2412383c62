/**
 * The playground's whole state, kept in the URL hash so that any setup is a link
 * (as in TensorFlow Playground). Pure functions: no DOM here.
 */
export interface PlaygroundState {
  data: string;
  model: string;
  lr: number;
  optimizer: string;
  batch: number;
  epochs: number;
  seed: number;
  /** Uncertainty shading: off, MC dropout, or a Bayesian network. */
  uncertainty: 'off' | 'mc-dropout' | 'bayes';
}

export const DATA_SETS = ['xor', 'moons', 'spirals', 'circles', 'blobs', 'iris'] as const;
export const OPTIMIZERS = ['sgd', 'momentum', 'nesterov', 'adam', 'adamw'] as const;
export const UNCERTAINTY = ['off', 'mc-dropout', 'bayes'] as const;

/** A model that suits each data set: inputs and outputs of the right size. */
export function defaultModel(data: string): string {
  switch (data) {
    case 'xor':
      return 'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1)';
    case 'spirals':
      return 'dense(2,16) >> tanh >> dense(16,16) >> tanh >> dense(16,1)';
    case 'blobs':
      return 'dense(2,8) >> tanh >> dense(8,3)';
    case 'iris':
      return 'dense(4,16) >> relu >> dense(16,3)';
    default:
      return 'dense(2,8) >> tanh >> dense(8,8) >> tanh >> dense(8,1)';
  }
}

export const DEFAULT_STATE: PlaygroundState = {
  data: 'moons',
  model: defaultModel('moons'),
  lr: 0.03,
  optimizer: 'adam',
  batch: 16,
  epochs: 300,
  seed: 0,
  uncertainty: 'off',
};

export function encodeState(s: PlaygroundState): string {
  const p = new URLSearchParams();
  p.set('data', s.data);
  p.set('model', s.model);
  p.set('lr', String(s.lr));
  p.set('optimizer', s.optimizer);
  p.set('batch', String(s.batch));
  p.set('epochs', String(s.epochs));
  p.set('seed', String(s.seed));
  p.set('uncertainty', s.uncertainty);
  return '#' + p.toString();
}

/**
 * Reads a state from a URL hash. Unknown or malformed entries fall back to the defaults,
 * and each fallback is reported in `notices` (shown to the user).
 */
export function decodeState(hash: string): { state: PlaygroundState; notices: string[] } {
  const notices: string[] = [];
  const state: PlaygroundState = { ...DEFAULT_STATE };
  const raw = hash.replace(/^#/, '');
  if (!raw) return { state, notices };
  let p: URLSearchParams;
  try {
    p = new URLSearchParams(raw);
  } catch {
    return { state, notices: ['the link could not be read; using the defaults'] };
  }
  const known = new Set(['data', 'model', 'lr', 'optimizer', 'batch', 'epochs', 'seed', 'uncertainty']);
  for (const k of p.keys()) if (!known.has(k)) notices.push(`unknown setting '${k}' in the link was ignored`);
  const choice = <T extends string>(key: keyof PlaygroundState, allowed: readonly T[]): void => {
    const v = p.get(key);
    if (v === null) return;
    if ((allowed as readonly string[]).includes(v)) (state as unknown as Record<string, unknown>)[key] = v;
    else notices.push(`'${v}' is not a valid ${key} (known: ${allowed.join(', ')}); using ${String(state[key])}`);
  };
  const num = (key: 'lr' | 'batch' | 'epochs' | 'seed', ok: (v: number) => boolean): void => {
    const v = p.get(key);
    if (v === null) return;
    const n = Number(v);
    if (v.trim() !== '' && Number.isFinite(n) && ok(n)) state[key] = n;
    else notices.push(`'${v}' is not a valid ${key}; using ${state[key]}`);
  };
  choice('data', DATA_SETS);
  if (p.get('data') !== null && p.get('model') === null) state.model = defaultModel(state.data);
  const model = p.get('model');
  if (model !== null) {
    if (model.trim() && model.length < 2000) state.model = model;
    else notices.push('the model in the link was empty or too long; using the default');
  }
  num('lr', (v) => v > 0 && v < 100);
  choice('optimizer', OPTIMIZERS);
  num('batch', (v) => Number.isInteger(v) && v >= 1 && v <= 100000);
  num('epochs', (v) => Number.isInteger(v) && v >= 1 && v <= 100000);
  num('seed', (v) => Number.isInteger(v) && v >= 0);
  choice('uncertainty', UNCERTAINTY);
  return { state, notices };
}
