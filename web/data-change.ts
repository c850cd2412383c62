import { modelForData, plan, uncertaintySpec } from './model.js';
import type { Given } from './model.js';
import { defaultModel } from './state.js';
import type { PlaygroundState } from './state.js';

/**
 * The model after the data set changes from `before.data` to `after.data`. A model the page
 * chose (the old data set's default, or the net for the uncertainty shading) becomes the new
 * data set's; a model the user typed is kept when it still fits the new data, and replaced by
 * the default — with the reason — when it does not. `note` says which happened.
 */
export function modelAfterDataChange(before: PlaygroundState, after: PlaygroundState, given: Given = {}): { model: string; note: string } {
  const typed = before.model;
  // an uploaded CSV has no default of its own: a small net of its width
  const byName = (s: PlaygroundState): string =>
    s.data === 'uploaded'
      ? given.data
        ? modelForData(given.data)
        : typed
      : s.uncertainty === 'off'
        ? defaultModel(s.data)
        : uncertaintySpec(s.uncertainty, s.data, s.seed);
  const fresh = byName(after);
  const chosen = byName(before);
  if (typed.trim() === chosen) return { model: fresh, note: `the default model for ${after.data}` };
  const fits = plan({ ...after, model: typed }, given);
  if (!('error' in fits)) return { model: typed, note: `kept your model: it fits ${after.data}` };
  return { model: fresh, note: `your model does not fit ${after.data} (${fits.error}); replaced by the default for ${after.data}` };
}
