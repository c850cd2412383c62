import { describe, expect, it } from 'vitest';
import { xor } from '../../../src/data/generated.js';
import { RangeArgError, ShapeError } from '../../../src/errors.js';
import { mse } from '../../../src/nn/loss.js';
import { parseSpec } from '../../../src/catalogue/index.js';
import { Tensor } from '../../../src/tensor/tensor.js';
import { train } from '../../../src/train/train.js';
import {
  asciiSubobject,
  characteristicMorphism,
  characteristicOf,
  decisionBoundary,
  marchingSquares,
  sampleGrid,
  subobject,
} from '../../../src/topos/index.js';
import type { SampledGrid } from '../../../src/topos/index.js';

const square = { x0: -1, x1: 1, y0: -1, y1: 1 };

describe('marching squares', () => {
  it('a circle is one closed polyline on the circle', () => {
    const b = decisionBoundary(
      characteristicOf((x, y) => Math.min(1, x * x + y * y)),
      square,
      { resolution: 41, level: 0.25 },
    );
    expect(b.polylines.length).toBe(1);
    const p = b.polylines[0]!;
    expect(p[0]).toEqual(p[p.length - 1]); // closed
    expect(p.length).toBeGreaterThan(40);
    for (const [x, y] of p) expect(Math.abs(Math.hypot(x, y) - 0.5)).toBeLessThan(0.01);
  });

  it('a linear function gives one straight open polyline from border to border, exact', () => {
    const b = decisionBoundary(
      characteristicOf((x, y) => (x + 2 * y + 3) / 6),
      square,
      { resolution: 9 },
    );
    expect(b.polylines.length).toBe(1);
    const p = b.polylines[0]!;
    expect(p[0]).not.toEqual(p[p.length - 1]);
    for (const [x, y] of p) expect(x + 2 * y).toBeCloseTo(0, 5); // (x + 2y + 3)/6 = 0.5
    const onBorder = ([x, y]: [number, number]): boolean => Math.abs(Math.abs(x) - 1) < 1e-9 || Math.abs(Math.abs(y) - 1) < 1e-9;
    expect(onBorder(p[0]!) && onBorder(p[p.length - 1]!)).toBe(true);
  });

  it('a saddle cell is split according to its mean value', () => {
    const grid = (centreHigh: boolean): SampledGrid => ({
      x0: 0,
      x1: 1,
      y0: 0,
      y1: 1,
      nx: 2,
      ny: 2,
      values: Float64Array.from(centreHigh ? [1, 0, 0, 1.2] : [0.6, 0, 0, 0.6]),
    });
    // corners 00 and 11 above 0.5; two segments either way, cutting off different corners
    const high = marchingSquares(grid(true), 0.5),
      low = marchingSquares(grid(false), 0.5);
    expect(high.length).toBe(2);
    expect(low.length).toBe(2);
    const cutsCorner = (lines: [number, number][][], cx: number, cy: number): boolean =>
      lines.some((l) => l.every(([x, y]) => Math.hypot(x - cx, y - cy) <= 0.5 + 1e-9));
    expect(cutsCorner(high, 1, 0) && cutsCorner(high, 0, 1)).toBe(true); // low corners isolated
    expect(cutsCorner(low, 0, 0) && cutsCorner(low, 1, 1)).toBe(true); // high corners isolated
    expect(cutsCorner(high, 0, 0)).toBe(false);
  });

  it('no crossing, no polyline; non-finite values are rejected', () => {
    expect(marchingSquares({ x0: 0, x1: 1, y0: 0, y1: 1, nx: 2, ny: 2, values: Float64Array.from([0.1, 0.2, 0.3, 0.4]) }, 0.5)).toEqual([]);
    expect(() => marchingSquares({ x0: 0, x1: 1, y0: 0, y1: 1, nx: 2, ny: 2, values: Float64Array.from([0.1, Number.NaN, 0.3, 0.4]) }, 0.5)).toThrow(
      /not finite/,
    );
    expect(() =>
      sampleGrid(
        characteristicOf(() => 0),
        square,
        1,
      ),
    ).toThrow(RangeArgError);
    expect(() =>
      decisionBoundary(
        characteristicOf(() => 0),
        square,
        { level: 1 },
      ),
    ).toThrow(RangeArgError);
  });
});

describe('subobject classifier on the trained XOR network (seed 000)', () => {
  const spec = 'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid';
  const r = train(parseSpec(spec), xor(), { loss: mse, epochs: 6000, lr: 0.5, batch: 1, seed: 0 });
  const chi = characteristicMorphism(r.model, r.theta);

  it('χ⁻¹[0.5, 1] is the XOR-true inputs (0,1) and (1,0)', () => {
    const S = subobject(chi, xor().x, 0.5);
    expect(S.members).toEqual([1, 2]);
    expect(Array.from(S.mask)).toEqual([0, 1, 1, 0]);
    expect(subobject(chi, xor().x, 1).members).toEqual([]); // χ⁻¹(⊤) in the strict sense: a sigmoid never reaches 1
    expect(() => subobject(chi, xor().x, 1.5)).toThrow(RangeArgError);
  });

  it('the decision boundary χ⁻¹(0.5) separates the XOR inputs and lies where χ = 0.5', () => {
    const b = decisionBoundary(chi, { x0: -0.25, x1: 1.25, y0: -0.25, y1: 1.25 }, { resolution: 61 });
    expect(b.polylines.length).toBe(2);
    const pts = b.polylines.flat();
    const truth = chi(Tensor.of(pts.flat(), [pts.length, 2]));
    for (const v of truth) expect(Math.abs(v - 0.5)).toBeLessThan(0.05);
    const pic = asciiSubobject(sampleGrid(chi, { x0: 0, x1: 1, y0: 0, y1: 1 }, 3, 3));
    expect(pic.map((row) => row.length)).toEqual([3, 3, 3]);
    expect(pic[0]![0]).toBe('#'); // (0,1) in S
    expect(pic[2]![0]).toBe('.'); // (0,0) not in S
    expect(pic[2]![2]).toBe('#'); // (1,0) in S
    expect(pic[0]![2]).toBe('.'); // (1,1) not in S
  });

  it('only a map into [0,1] with one value per input is a characteristic morphism', () => {
    const logits = parseSpec('dense(2,1)');
    const theta = [Tensor.of([10, 10], [1, 2]), Tensor.of([0], [1])];
    expect(() => characteristicMorphism(logits, theta)(xor().x)).toThrow(/outside Ω = \[0, 1\]/);
    const two = parseSpec('dense(2,2) >> sigmoid');
    expect(() => characteristicMorphism(two, two.init(0))(xor().x)).toThrow(ShapeError);
  });
});
