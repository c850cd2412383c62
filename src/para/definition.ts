import { Morphism } from './composite.js';
import { ShapeError } from '../errors.js';
import { checkDom, describeShape, perPosition } from './para.js';
import type { Ctx, Lens, Para, ParamSpec } from './para.js';
import type { Shape, Tensor } from '../tensor/tensor.js';

/**
 * A morphism defined as an abbreviation of a composite: it IS `body` (same parameters, in
 * the same order, same lens), but prints as `kind(args)` — e.g. `transformer(64,4,256,rope)`
 * for the pre-norm block it stands for — and may give its parameters names of its own
 * (`names`, in the body's order; default the body's). Its one child is the expansion, so
 * pictures and sites can open it up; when every factor of the expansion has a spec name,
 * `String(f.children[0])` parses back to the same function of the same parameters.
 */
export class Defined extends Morphism {
  override readonly children: readonly Para[];
  override readonly params: readonly ParamSpec[];
  constructor(
    readonly kind: string,
    override readonly args: readonly (number | string)[],
    readonly body: Para,
    private readonly rebuild?: (dom: Shape) => Para,
    private readonly names?: readonly string[],
  ) {
    super();
    this.children = [body];
    if (names && names.length !== body.params.length) {
      throw new ShapeError(`${kind}: ${names.length} parameter names for the ${body.params.length} parameters of its expansion`);
    }
    this.params = names ? body.params.map((p, i) => ({ ...p, name: names[i]! })) : body.params;
  }
  get dom(): Shape | undefined {
    return this.body.dom;
  }
  get cod(): Shape | undefined {
    return this.body.cod;
  }
  at(dom: Shape): Para {
    if (this.dom && !(this.rebuild && perPosition(this.dom, dom))) return checkDom(this, dom);
    if (!this.rebuild) throw new ShapeError(`${this} cannot be fixed to domain ${describeShape(dom)}`);
    return this.rebuild(dom);
  }
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    return (this.dom ? this.body : this.body.at(x.shape.slice(1))).forward(theta, x, ctx);
  }
  /** The same definition over another expansion equal to this one's (a rewrite of it, e.g. nn/fuse.ts). */
  over(body: Para): Defined {
    return new Defined(this.kind, this.args, body, this.rebuild, this.names);
  }
}

/**
 * `body` under the name kind(args); `rebuild(dom)` is the same definition fixed to a domain
 * (omitted for a definition on a fixed domain); `names` its own names for the body's parameters.
 */
export function defined(kind: string, args: readonly (number | string)[], body: Para, rebuild?: (dom: Shape) => Para, names?: readonly string[]): Para {
  return new Defined(kind, args, body, rebuild, names);
}
