import { section as attention } from './attention.js';
import { section as colimit } from './colimit.js';
import { section as ends } from './ends.js';
import { section as equivariant } from './equivariant.js';
import { section as markov } from './markov.js';
import { section as natural } from './natural.js';
import { section as para } from './para.js';
import type { TourSection } from './section.js';
import { section as toposNetwork } from './topos-network.js';
import { section as topos } from './topos.js';

/** The tour's sections, in the order of the seeds. */
export const sections: readonly TourSection[] = [para, markov, colimit, topos, natural, equivariant, attention, toposNetwork, ends];

/** A section's number in the tour (its place in `sections`, the same with --only) and its numbered title. */
export function numbered(section: TourSection): { n: number; title: string } {
  const n = sections.indexOf(section) + 1;
  return { n, title: `${n}. ${section.title}` };
}
