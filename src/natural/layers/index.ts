import { defineLayer } from '../../para/spec.js';
import { adapter } from './adapter.js';

defineLayer({ name: 'adapter', args: ['int', 'int'], doc: 'adapter(p,q): linear map h ↦ h·Wᵀ without bias, the component of a natural transformation between feature spaces', make: (p, q) => adapter(p as number, q as number) });
