// The window geometry and the reference im2col/col2im live with the backends that run them
// (src/tensor/window.ts); they are part of the nn API too.
export { col2im, im2col, makeWindow } from '../tensor/window.js';
export type { Window } from '../tensor/window.js';
