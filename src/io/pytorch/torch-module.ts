import type { Para } from '../../para/para.js';
import type { Tensor } from '../../tensor/tensor.js';
import { ExportError } from '../errors.js';

/**
 * A morphism as PyTorch source: a Python expression that builds a `torch.nn.Module`, the
 * `state_dict` name (relative to that module) of each of the morphism's parameters in the
 * order of `Para.params`, the fixed tensors it registers as buffers (equivariant bases), and
 * the helper classes from the generated file's prelude that the expression uses.
 */
export interface TorchModule {
  readonly code: string;
  readonly params: readonly string[];
  readonly buffers: readonly TorchBuffer[];
  readonly helpers: readonly string[];
  /** Further state_dict names of a parameter listed in `params` (a tied weight appears under both of its modules' names). */
  readonly aliases?: readonly TorchAlias[];
}

/** The state_dict name `name` holds the same Parameter as `of`. */
export interface TorchAlias {
  readonly name: string;
  readonly of: string;
}

/** A fixed tensor of the module (not trained): its state_dict name and value. */
export interface TorchBuffer {
  readonly name: string;
  readonly tensor: Tensor;
}

/** What a rule gets: the morphism (domain fixed) and `emit`, which translates a sub-morphism. */
export interface TorchRuleInput {
  readonly m: Para;
  emit(child: Para): TorchModule;
}
export type TorchRule = (a: TorchRuleInput) => TorchModule;

/**
 * The rules of one family of layers: kind → rule. Each family's file exports one and
 * src/io/pytorch/rules.ts lists them in TORCH_RULES, as src/catalogue/catalogue.ts lists the
 * layers. The Python classes the built-in rules' expressions name are in python/layers.py; a
 * family defined outside paralens gives its classes' sources (name → source) as `helpers`.
 */
export interface TorchRuleSet {
  readonly rules: Readonly<Record<string, TorchRule>>;
  readonly helpers?: Readonly<Record<string, string>>;
}

/** A module without parameters or buffers. */
export function plain(code: string, helpers: readonly string[] = []): TorchModule {
  return { code, params: [], buffers: [], helpers };
}

/** A module whose parameters keep the morphism's own names (nn.Linear's weight and bias, …). */
export function named(m: Para, code: string, helpers: readonly string[] = [], buffers: readonly TorchBuffer[] = []): TorchModule {
  return { code, params: m.params.map((p) => p.name), buffers, helpers };
}

/** `child` as a submodule registered under `prefix` (its names prefixed with `prefix.`). */
export function under(prefix: string, child: TorchModule): { params: string[]; buffers: TorchBuffer[]; aliases: TorchAlias[] } {
  return {
    params: child.params.map((n) => `${prefix}.${n}`),
    buffers: child.buffers.map((b) => ({ name: `${prefix}.${b.name}`, tensor: b.tensor })),
    aliases: (child.aliases ?? []).map((a) => ({ name: `${prefix}.${a.name}`, of: `${prefix}.${a.of}` })),
  };
}

/** Python source of a list of modules as constructor arguments, one per line. */
export function argLines(children: readonly TorchModule[]): string {
  return children.map((c) => `    ${c.code.split('\n').join('\n    ')},`).join('\n');
}

/** The refusal of a morphism no rule covers (the CLI exits 2 with it). */
export function notExportable(parts: readonly string[], known: readonly string[]): ExportError {
  return new ExportError(`cannot export to PyTorch: no PyTorch rule for ${parts.map((p) => `'${p}'`).join(', ')}; exportable kinds: ${known.join(', ')}`);
}

/** Float literal for Python source (integers keep a decimal point only where Python needs a float). */
export function pyNumber(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}
