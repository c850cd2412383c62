import { gaussianNoise, identity, permuteFeatures, representationFunctor, scale } from '../../natural/functor.js';
import type { InputMorphism } from '../../natural/functor.js';
import type { DistillModels } from './distill.js';
import { naturalityDefect } from '../../natural/naturality.js';
import type { NaturalityReport } from '../../natural/naturality.js';

/** Standard arrows of the input category for d features: identity, noise, a 10 % scaling, reversed features. */
export function standardArrows(d: number, seed = 0): InputMorphism[] {
  return [identity, gaussianNoise(0.1, seed), scale(1.1), permuteFeatures(Array.from({ length: d }, (_, i) => d - 1 - i))];
}

/**
 * The naturality defect of the learned hint η: F ⇒ G from the student's hidden
 * representation F to the teacher's G (distill (c)), along the given arrows, on all rows.
 */
export function hintNaturality(m: DistillModels, arrows?: InputMorphism[]): NaturalityReport[] {
  const F = representationFunctor('student hidden', m.studentBody, m.studentTheta);
  const G = representationFunctor('teacher hidden', m.teacherBody, m.teacherTheta);
  const x = m.x.to('float64');
  return naturalityDefect(m.eta, m.etaTheta, F, G, arrows ?? standardArrows(x.size / x.batch), x);
}
