import { joinRows } from '../../para/composite.js';
import { makeCtx } from '../../para/para.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { NetworkGraph } from './graph.js';
import { ToposError } from '../../category/errors.js';

/** The input of vertex v: the activities of the vertices it reads, concatenated per sample (in `graph.inputs[v]` order). */
export function vertexInput(graph: NetworkGraph, v: number, value: (u: number) => Tensor): Tensor {
  const ins = graph.inputs[v]!.map(value);
  if (ins.length === 1) return ins[0]!;
  const B = ins[0]!.batch;
  // flattened per sample and as float64, so joinRows gives [B, Σ widths] in float64
  const flat = ins.map((t) => (t.dtype === 'float64' ? t : t.to('float64')).reshape([B, t.size / B]));
  return joinRows(flat, B, makeCtx());
}

/** The parameter tensors of vertex v within the model's θ (as float64). */
export function vertexTheta(graph: NetworkGraph, theta: readonly Tensor[], v: number): Tensor[] {
  const op = graph.ops![v]!;
  return theta.slice(graph.paramOffsets![v], graph.paramOffsets![v]! + op.params.length).map((t) => t.to('float64'));
}

/** Throws unless the graph was built from a model that can be run vertex by vertex. */
export function checkRunnable(graph: NetworkGraph, what: string): void {
  if (!graph.ops || !graph.paramOffsets) throw new ToposError(`${what} needs a graph built from a model (networkGraphOfModel)`);
  if (graph.unsupported) throw new ToposError(`${what}: cannot run the graph vertex by vertex: ${graph.unsupported}`);
}

/** The activity of every vertex of a model's graph on the batch x (float64), in vertex order (vertex order is topological). */
export function vertexActivities(graph: NetworkGraph, theta: readonly Tensor[], x: Tensor): Tensor[] {
  checkRunnable(graph, 'vertexActivities');
  const acts: Tensor[] = [x.to('float64')];
  for (let v = 1; v < graph.vertices.length; v++)
    acts.push(
      graph.ops![v]!.run(
        vertexTheta(graph, theta, v),
        vertexInput(graph, v, (u) => acts[u]!),
      ),
    );
  return acts;
}
