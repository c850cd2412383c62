/** The equivariant experiments: EMLP's benchmarks, the N-body task, the reparametrisation demo, attention's positions. */
export { benchmarkExperiment, modelEquivarianceError } from './benchmark.js';
export type { BenchmarkTask, BenchmarkRow, BenchmarkOptions } from './benchmark.js';
export { inertiaData, inertiaEMLP, inertiaMLP, inertiaTask, inertiaExperiment, INERTIA } from './inertia.js';
export { o5Data, o5EMLP, o5MLP, o5Task } from './o5-invariant.js';
export { reparameterisationDemo } from './fibration.js';
export type { ReparamDemo } from './fibration.js';
export { simulateCharged } from '../../data/nbody-sim.js';
export type { NBodyTrajectory, NBodyOptions } from '../../data/nbody-sim.js';
export { NBODY, NBODY_PUBLISHED, nbodySamples, nbodyDataset, nbodySpec, nbodyRun, nbodyEquivarianceDefect, transformSamples, randomE3 } from './nbody.js';
export type { NBodyModel, NBodyResult, NBodyRunOptions, NBodySamples } from './nbody.js';
