import { quote } from '../../errors.js';
import type { Para } from '../../para/para.js';
import { ExportError } from '../errors.js';
import type { NamedParam, OnnxGraph, Value } from './graph-proto.js';

/**
 * An ONNX export rule: it gets the morphism (domain fixed), its slice of θ, the input value and
 * the graph (at its opset), and returns the output value; `emit` exports a sub-morphism.
 */
export interface OnnxRuleInput {
  readonly m: Para;
  readonly theta: readonly NamedParam[];
  readonly x: Value;
  readonly g: OnnxGraph;
  emit(m: Para, theta: readonly NamedParam[], x: Value): Value;
}
export type OnnxRule = (a: OnnxRuleInput) => Value;

/** The value's name, refusing the empty value where a tensor is needed. */
export function need(v: Value, m: Para): string {
  if (v.name === null) throw new ExportError(`cannot export layer ${quote(m)} to ONNX: its input is empty (everything was discarded before it)`);
  return v.name;
}
