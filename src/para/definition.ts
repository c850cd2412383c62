import { Morphism } from './composite.js';
import { checkDom, perPosition } from './para.js';
import type { Ctx, Lens, Para, ParamSpec } from './para.js';
import type { Shape, Tensor } from '../tensor/tensor.js';

/**
 * A morphism defined as an abbreviation of a composite: it IS `body` (same parameters, in
 * the same order and with the same names, same lens), but prints as `kind(args)` — e.g.
 * `transformer(64,4,256,rope)` for the pre-norm block it stands for. Its one child is the
 * expansion, so pictures and sites can open it up; `String(f.children[0])` prints the
 * expansion, which parses back to the same function of the same parameters.
 */
export class Defined extends Morphism {
  override readonly children: readonly Para[];
  override readonly params: readonly ParamSpec[];
  constructor(
    readonly kind: string,
    override readonly args: readonly (number | string)[],
    readonly body: Para,
    private readonly rebuild: (dom: Shape) => Para,
  ) {
    super();
    this.children = [body];
    this.params = body.params;
  }
  get dom(): Shape | undefined {
    return this.body.dom;
  }
  get cod(): Shape | undefined {
    return this.body.cod;
  }
  at(dom: Shape): Para {
    return this.dom && !perPosition(this.dom, dom) ? checkDom(this, dom) : this.rebuild(dom);
  }
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    return (this.dom ? this.body : this.body.at(x.shape.slice(1))).forward(theta, x, ctx);
  }
}

/** `body` under the name kind(args); `rebuild(dom)` is the same definition fixed to a domain. */
export function defined(kind: string, args: readonly (number | string)[], body: Para, rebuild: (dom: Shape) => Para): Para {
  return new Defined(kind, args, body, rebuild);
}
