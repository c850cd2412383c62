import { seq } from '../para/composite.js';
import { defined } from '../para/definition.js';
import type { Para } from '../para/para.js';
import { residual } from '../para/structure.js';
import type { Shape } from '../tensor/tensor.js';
import { gelu } from './activation.js';
import { attention } from './attention.js';
import type { Mask } from './attention.js';
import { positionText, parsePosition } from './attention-position.js';
import type { Position } from './attention-position.js';
import { requirePositive } from './conv2d.js';
import { dense } from './dense.js';
import { layernorm } from './layernorm.js';

/**
 * transformer(d,heads,ff,pos): the pre-norm block (Xiong et al. 2020; GPT-2's layout)
 *   residual(layernorm(d) >> attention(d,heads,pos)) >> residual(layernorm(d) >> dense(d,ff) >> gelu >> dense(ff,d))
 * on [T, d] per sample, causal. It prints as itself; its child is that expansion.
 */
export function transformer(d: number, heads: number, ff: number, pos: Position | string, mask: Mask = 'causal', dom?: Shape): Para {
  const where = `transformer(${d},${heads},${ff},${typeof pos === 'string' ? pos : positionText(pos)})`;
  requirePositive(where, 'feed-forward width ff', ff);
  const position = typeof pos === 'string' ? parsePosition(pos, where) : pos;
  const att = attention(d, heads, position, mask);
  let body = seq(residual(seq(layernorm(d), att)), residual(seq(layernorm(d), dense(d, ff), gelu(), dense(ff, d))));
  if (dom) body = body.at(dom);
  return defined('transformer', [d, heads, ff, positionText(position), ...(mask === 'causal' ? [] : ['none'])], body, (s) =>
    transformer(d, heads, ff, position, mask, s),
  );
}
