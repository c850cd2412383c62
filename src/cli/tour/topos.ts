import type { TourSection } from './section.js';

/** Placeholder until this perspective lands: the tour skips sections with no lines. */
export const section: TourSection = {
  id: 'topos',
  title: 'Topos I: subobject classifier, Heyting logic, sheaf gluing',
  run: async () => ({ lines: [], data: {} }),
};
