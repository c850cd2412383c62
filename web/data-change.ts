import { plan, uncertaintySpec } from './model.js';
import { defaultModel } from './state.js';
import type { PlaygroundState } from './state.js';

/**
 * The model after the data set changes from `before.data` to `after.data`. A model the page
 * chose (the old data set's default, or the net for the uncertainty shading) becomes the new
 * data set's; a model the user typed is kept when it still fits the new data, and replaced by
 * the default — with the reason — when it does not. `note` says which happened.
 */
export function modelAfterDataChange(before: PlaygroundState, after: PlaygroundState): { model: string; note: string } {
  const typed = before.model;
  const fresh = after.uncertainty === 'off' ? defaultModel(after.data) : uncertaintySpec(after.uncertainty, after.data, after.seed);
  const chosen = before.uncertainty === 'off' ? defaultModel(before.data) : uncertaintySpec(before.uncertainty, before.data, before.seed);
  if (typed.trim() === chosen) return { model: fresh, note: `the default model for ${after.data}` };
  const fits = plan({ ...after, model: typed });
  if (!('error' in fits)) return { model: typed, note: `kept your model: it fits ${after.data}` };
  return { model: fresh, note: `your model does not fit ${after.data} (${fits.error}); replaced by the default for ${after.data}` };
}
