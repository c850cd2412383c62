import type { TourSection } from './section.js';

/** Placeholder until this perspective lands: the tour skips sections with no lines. */
export const section: TourSection = {
  id: 'markov',
  title: 'Markov categories: stochastic morphisms',
  run: async () => ({ lines: [], data: {} }),
};
