/** Escapes text for SVG/HTML. */
export const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Rounds coordinates so that SVG output is short and stable (golden files). */
export const r = (x: number): string => String(Math.round(x * 10) / 10);

/** Approximate width of a label in the 12px sans-serif font used in diagrams. */
export const textWidth = (s: string, px = 12): number => s.length * px * 0.6;

/** An SVG document with a white background and the house font. */
export function svgDoc(width: number, height: number, body: string, title = ''): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${r(width)}" height="${r(height)}" viewBox="0 0 ${r(width)} ${r(height)}" font-family="sans-serif" font-size="12">${
    title ? `<title>${esc(title)}</title>` : ''
  }<rect width="100%" height="100%" fill="white"/>${body}</svg>`;
}
