import type { TourSection } from './section.js';

/** Placeholder until this perspective lands: the tour skips sections with no lines. */
export const section: TourSection = {
  id: 'colimit',
  title: 'Colimits and invariance',
  run: async () => ({ lines: [], data: {} }),
};
