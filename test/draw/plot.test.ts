import { inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearTicks, logTicks, tickLabels } from '../../src/draw/ticks.js';
import { encodePng, base64 } from '../../src/draw/png.js';
import { heatMap, linePlot, matrixGallery, matrixPlot, scatterPlot } from '../../src/draw/plot.js';
import { frame } from '../../src/draw/frame.js';

const labelled = (ts: { label: string }[]) => ts.filter((t) => t.label);
const nums = (svg: string, re: RegExp): number[] => [...svg.matchAll(re)].map((m) => Number(m[1]));

describe('axis ticks in any range', () => {
  it('linear: at least three labelled ticks inside [lo, hi], evenly spaced, labels distinct and exact', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.double({ min: 1e-9, max: 1e9, noNaN: true }), (lo, span) => {
        const hi = lo + span;
        fc.pre(hi > lo && (hi - lo) / Math.max(Math.abs(lo), Math.abs(hi)) > 1e-9);
        const ts = linearTicks(lo, hi);
        expect(ts.length).toBeGreaterThanOrEqual(3);
        expect(ts.length).toBeLessThanOrEqual(12);
        for (const t of ts) {
          expect(t.value).toBeGreaterThanOrEqual(lo - span * 1e-6);
          expect(t.value).toBeLessThanOrEqual(hi + span * 1e-6);
        }
        const steps = ts.slice(1).map((t, i) => t.value - ts[i]!.value);
        for (const s of steps) expect(Math.abs(s - steps[0]!)).toBeLessThan(Math.abs(steps[0]!) * 1e-6);
        expect(new Set(ts.map((t) => t.label)).size).toBe(ts.length);
        for (const t of ts) expect(Math.abs(Number(t.label) - t.value)).toBeLessThanOrEqual(Math.abs(steps[0]!) * 1e-3);
      }),
    );
  });

  it('log: at least two labelled ticks inside any range, within one decade too (the loss that stays between 0.31 and 0.35)', () => {
    fc.assert(
      fc.property(fc.double({ min: -12, max: 12, noNaN: true }), fc.double({ min: 1e-4, max: 14, noNaN: true }), (e, span) => {
        const lo = Math.pow(10, e),
          hi = Math.pow(10, e + span);
        const ts = labelled(logTicks(lo, hi));
        expect(ts.length).toBeGreaterThanOrEqual(2);
        for (const t of ts) {
          expect(t.value).toBeGreaterThanOrEqual(lo * (1 - 1e-6));
          expect(t.value).toBeLessThanOrEqual(hi * (1 + 1e-6));
        }
        expect(new Set(ts.map((t) => t.label)).size).toBe(ts.length);
      }),
    );
    expect(labelled(logTicks(0.31, 0.35)).map((t) => t.label)).toEqual(['0.31', '0.32', '0.33', '0.34', '0.35']);
    expect(labelled(logTicks(0.2, 0.9)).map((t) => t.label)).toEqual(['0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9']);
    expect(labelled(logTicks(1e-4, 1)).map((t) => t.label)).toEqual(['1e-4', '0.001', '0.01', '0.1', '1']);
  });

  it('labels write values exactly with as few digits as that takes (0.25 is not 0.3); negative control: a naive one-digit label is not exact', () => {
    expect(tickLabels([0, 0.25, 0.5, 0.75, 1])).toEqual(['0', '0.25', '0.5', '0.75', '1']);
    expect(tickLabels([1e-7, 2e-7, 3e-7])).toEqual(['1e-7', '2e-7', '3e-7']);
    expect(tickLabels([100000, 200000])).toEqual(['1e5', '2e5']);
    expect(Number((0.25).toPrecision(1))).not.toBe(0.25);
  });
});

describe('plots', () => {
  it('the loss axis of a log plot has labelled ticks when the loss stays within one decade', () => {
    const svg = linePlot([{ name: 'loss', values: Array.from({ length: 100 }, (_, i) => 0.33 + 0.01 * Math.sin(i)) }], { log: true });
    const yLabels = [...svg.matchAll(/text-anchor="end" font-size="13">([^<]+)</g)].map((m) => m[1]);
    expect(yLabels.length).toBeGreaterThanOrEqual(2);
  });

  it('legends and colour bars sit outside the plot area', () => {
    const f = frame({
      x: { lo: 0, hi: 1, label: 'x' },
      y: { lo: 0, hi: 1, label: 'y' },
      legend: [{ name: 'a long series name', colour: '#000', kind: 'line' }],
    });
    const svg = linePlot(Array.from({ length: 7 }, (_, k) => ({ name: `series ${k}`, values: [1, 2, 3].map((v) => v * k + 1) })));
    const legendX = nums(svg, /<g class="legend-entry"><line x1="([\d.]+)"/g);
    const plotRight = Math.max(
      ...nums(svg, /<rect x="([\d.]+)" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="none" stroke="#444"/g).map(
        (x, i) => x + nums(svg, /<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="[\d.]+" fill="none" stroke="#444"/g)[i]!,
      ),
    );
    expect(legendX.length).toBe(7);
    for (const x of legendX) expect(x).toBeGreaterThan(plotRight);
    expect(f.area.x + f.area.w).toBeLessThan(560 - 100);
  });

  it('heat maps are one image with a colour bar; matrices are framed with a colour bar; scatter axes carry the names given', () => {
    const grid = { values: Float32Array.from({ length: 64 }, (_, i) => i / 63), nx: 8, ny: 8, x0: 0, x1: 1, y0: 0, y1: 1 };
    const h = heatMap(grid, { label: 'χ(x)' });
    expect((h.match(/<image /g) ?? []).length).toBe(2); // the map and its colour bar
    expect(h).toContain('class="colour-bar"');
    expect(h).not.toMatch(/<rect [^>]*fill="rgb/); // no cell rectangles: no seams
    const m = matrixPlot(
      [
        [0, 1],
        [1, 0],
      ],
      { label: 'value' },
    );
    expect(m).toContain('class="colour-bar"');
    expect(m).toMatch(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="none" stroke="#444"\/>/);
    const g = matrixGallery([
      [
        [0, 1],
        [1, 0],
      ],
      [
        [1, 0],
        [0, 1],
      ],
    ]);
    expect((g.match(/fill="none" stroke="#444"/g) ?? []).length).toBeGreaterThanOrEqual(3); // two frames and the bar's
    const s = scatterPlot(
      [
        [1, 2],
        [3, 4],
      ],
      [0, 1],
      { xlabel: 'petal length (cm)', ylabel: 'petal width (cm)' },
    );
    expect(s).toContain('petal length (cm)');
    expect(s).not.toContain('x₁');
  });
});

describe('the PNG encoder', () => {
  it('writes a valid zlib stream of the filtered rows (inflate gives them back) and standard base64', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }), fc.integer(), (w, h, seed) => {
        const rgb = Uint8Array.from({ length: w * h * 3 }, (_, i) => (i * 31 + seed) & 0xff);
        const png = encodePng(w, h, rgb);
        expect(Array.from(png.subarray(0, 8))).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
        const idatLen = new DataView(png.buffer).getUint32(33);
        const raw = inflateSync(png.subarray(41, 41 + idatLen));
        expect(raw.length).toBe(h * (1 + 3 * w));
        for (let y = 0; y < h; y++)
          expect(Array.from(raw.subarray(y * (1 + 3 * w) + 1, (y + 1) * (1 + 3 * w)))).toEqual(Array.from(rgb.subarray(y * 3 * w, (y + 1) * 3 * w)));
        expect(base64(png)).toBe(Buffer.from(png).toString('base64'));
      }),
      { numRuns: 30 },
    );
    // more than one stored block (65535 bytes each)
    const big = encodePng(200, 200, new Uint8Array(200 * 200 * 3).fill(7));
    expect(inflateSync(big.subarray(41, 41 + new DataView(big.buffer).getUint32(33))).length).toBe(200 * 601);
  });
});
