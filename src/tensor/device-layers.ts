/**
 * Which layers a device backend (Backend.device: webgpu) can run: those whose forward and
 * pullback touch tensor data only through Backend kernels and ctx.alloc — no loop over `.data`
 * on the host — so they compute wherever the backend's arrays are. Declared here, beside the
 * backends, by layer kind (as spec strings name them); a kind that is not listed computes on
 * host arrays, and DeviceTrainer refuses a model that has one, naming it (hostOnlyParts).
 * A new layer made of kernels only is added to KERNEL_LAYERS, after a test on the device
 * (test/tensor/webgpu-layers.full.test.ts).
 */

/** What the check reads of a morphism (every Para has these): its kind, spec arguments and factors. */
export interface LayerTree {
  readonly kind: string;
  readonly args: readonly (number | string)[];
  readonly children: readonly LayerTree[];
  toString(): string;
  /** A morphism that knows its own host-only parts says them (an operator graph names its operators without a kernel). */
  hostOnlyParts?(): string[];
}

/** The layers made of kernels only, by kind; a function decides by the layer's spec arguments. */
const KERNEL_LAYERS: ReadonlyMap<string, true | ((args: LayerTree['args']) => boolean)> = new Map<string, true | ((args: LayerTree['args']) => boolean)>([
  ...['id', 'copy', 'discard', 'add'].map((k) => [k, true] as const),
  ...['dense', 'conv1d', 'conv2d', 'maxpool2d', 'avgpool2d', 'flatten', 'embedding', 'layernorm', 'rmsnorm', 'softmax'].map((k) => [k, true] as const),
  // the elementwise maps (Backend.unary)
  ...['sigmoid', 'tanh', 'relu', 'gelu', 'softplus', 'exp', 'neg', 'square'].map((k) => [k, true] as const),
  // rope and none are kernels throughout; absolute and relative positions are added by host loops
  ['attention', (args) => args[2] === 'rope' || args[2] === 'none'],
]);

/** Composites whose own work is kernels (splitting, joining, adding): they run on a device when their factors do. */
const KERNEL_COMPOSITES: ReadonlySet<string> = new Set(['seq', 'par', 'residual', 'transformer']);

/** The kinds declared here: the layers made of kernels only and the composites whose own work is. */
export function deviceKinds(): string[] {
  return [...KERNEL_LAYERS.keys(), ...KERNEL_COMPOSITES];
}

/** The parts of f that compute on host arrays, by their spec strings; empty when all of f can run on a device. */
export function hostOnlyParts(f: LayerTree): string[] {
  if (typeof f.hostOnlyParts === 'function') return f.hostOnlyParts();
  if (KERNEL_COMPOSITES.has(f.kind)) return f.children.flatMap(hostOnlyParts);
  const rule = KERNEL_LAYERS.get(f.kind);
  return f.children.length === 0 && rule !== undefined && (rule === true || rule(f.args)) ? [] : [String(f)];
}
