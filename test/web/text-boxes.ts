import type { Page } from 'playwright-core';

/**
 * What makes the text of a picture unreadable, measured in the browser from the rendered
 * boxes (getBoundingClientRect, so transforms and scaling count): two text boxes of one
 * picture that overlap, a text under a filled rectangle drawn after it, a text cut off by its
 * picture's edge, a text whose font is under `least` px on screen. One line per problem, naming the picture
 * (its `figure` id, or its index) and the texts.
 */
export function textProblems(page: Page, pictures: string, least = 8): Promise<string[]> {
  return page.$$eval(
    pictures,
    (els, least) => {
      const out: string[] = [];
      const meet = (a: DOMRect, b: DOMRect, by: number): boolean =>
        Math.min(a.right, b.right) - Math.max(a.left, b.left) > by && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > by;
      els.forEach((el, k) => {
        const name = el.closest('figure')?.id || `picture ${k + 1}`;
        const svg = el.tagName.toLowerCase() === 'svg' ? el : el.querySelector('svg');
        if (!svg) return;
        const all = [...svg.querySelectorAll('*')];
        const frame = svg.getBoundingClientRect();
        // how much the picture is scaled on screen: its drawn width over its own (viewBox) width
        const own = (svg as SVGSVGElement).viewBox?.baseVal?.width || frame.width;
        const scale = frame.width / own;
        const texts = [...svg.querySelectorAll('text')]
          .map((t) => ({ t, box: t.getBoundingClientRect(), s: (t.textContent ?? '').trim() }))
          .filter((x) => x.s && x.box.width > 0);
        texts.forEach((a, i) => {
          // the font's size on screen (a box's height would be a rotated label's width)
          const px = parseFloat(getComputedStyle(a.t).fontSize) * scale;
          if (px < least - 0.05) out.push(`${name}: '${a.s}' is ${px.toFixed(1)} px tall`);
          if (
            !meet(a.box, frame, -1) ||
            a.box.left < frame.left - 1 ||
            a.box.right > frame.right + 1 ||
            a.box.top < frame.top - 1 ||
            a.box.bottom > frame.bottom + 1
          )
            out.push(`${name}: '${a.s}' is cut off by the picture's edge`);
          for (const b of texts.slice(i + 1)) if (meet(a.box, b.box, 1)) out.push(`${name}: '${a.s}' overlaps '${b.s}'`);
          const cover = all.slice(all.indexOf(a.t) + 1).find((e) => {
            if (e.tagName.toLowerCase() !== 'rect') return false;
            const fill = e.getAttribute('fill');
            return Boolean(fill) && fill !== 'none' && meet(a.box, e.getBoundingClientRect(), 2);
          });
          if (cover) out.push(`${name}: '${a.s}' is hidden under a box drawn after it`);
        });
      });
      return out;
    },
    least,
  );
}
