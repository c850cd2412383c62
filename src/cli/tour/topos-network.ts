import type { TourSection } from './section.js';

/** Placeholder until this perspective lands: the tour skips sections with no lines. */
export const section: TourSection = {
  id: 'topos-network',
  title: 'Topos II: the topos and stacks of a network',
  run: async () => ({ lines: [], data: {} }),
};
