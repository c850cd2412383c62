import type { TourSection } from './section.js';

/** Placeholder until this perspective lands: the tour skips sections with no lines. */
export const section: TourSection = {
  id: 'equivariant',
  title: 'Ends over symmetry groups: derived equivariant kernels',
  run: async () => ({ lines: [], data: {} }),
};
