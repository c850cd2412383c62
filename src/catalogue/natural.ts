import type { LayerDef } from './grammar.js';
import { adapter } from '../nn/natural/adapter.js';

const defs: LayerDef[] = [];

defs.push({
  name: 'adapter',
  args: ['int', 'int'],
  doc: 'adapter(p,q): linear map h ↦ h·Wᵀ without bias, the component of a natural transformation between feature spaces',
  make: (p, q) => adapter(p as number, q as number),
});

/** The layers of this module that spec strings can name (listed in src/catalogue/catalogue.ts). */
export const naturalLayers: readonly LayerDef[] = defs;
