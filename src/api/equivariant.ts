/**
 * `paralens/equivariant` — ends over symmetry groups: groups and representations, the end
 * solver Hom_G(ρ_in, ρ_out), irreducibles, the layers whose kernels it derives, and the
 * EMLP and N-body experiments (docs/equivariant.md).
 */
export * from '../symmetry/index.js';
export * from '../nn/equivariant/index.js';
export * from '../experiments/equivariant/index.js';
// types the exported names use (so the API reference documents them)
export type { OutputTerm, Path, Scratch, TpSaved } from '../nn/equivariant/tp-kernel.js';
export type { SignedPermutation } from '../symmetry/irreps/index-symmetry.js';
export type { RopeLayout } from '../symmetry/group/rotary.js';
export type { Facelet } from '../symmetry/group/rubik.js';
export type { SphereQuadrature } from '../symmetry/irreps/quadrature.js';
export type { E3Element, NBodyFormat, NBodyModelOptions } from '../experiments/equivariant/nbody.js';
export type { ReparamTask } from '../experiments/equivariant/fibration.js';
export type { PathKernels } from '../nn/equivariant/tp-codegen.js';
