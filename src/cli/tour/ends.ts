import type { TourSection } from './section.js';

/** Placeholder until this perspective lands: the tour skips sections with no lines. */
export const section: TourSection = {
  id: 'ends',
  title: 'Ends and coends',
  run: async () => ({ lines: [], data: {} }),
};
