/**
 * `paralens/equivariant` — ends over symmetry groups: groups and representations, the end
 * solver Hom_G(ρ_in, ρ_out), irreducibles, the layers whose kernels it derives, and the
 * EMLP and N-body experiments (docs/equivariant.md).
 */
export * from '../symmetry/index.js';
export * from '../nn/equivariant/index.js';
export * from '../experiments/equivariant/index.js';
