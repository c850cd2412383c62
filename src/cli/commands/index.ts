import type { Command } from '../command.js';
import { command as coend } from './coend.js';
import { command as deepsets } from './deepsets.js';
import { command as derive } from './derive.js';
import { command as distill } from './distill.js';
import { command as draw } from './draw.js';
import { command as end } from './end.js';
import { command as equivariant } from './equivariant.js';
import { command as evalCmd } from './eval.js';
import { command as exportCmd } from './export.js';
import { command as generate } from './generate.js';
import { command as importCmd } from './import.js';
import { command as kmeans } from './kmeans.js';
import { command as logic } from './logic.js';
import { command as predict } from './predict.js';
import { command as sheaf } from './sheaf.js';
import { command as topos } from './topos.js';
import { command as tour } from './tour.js';
import { command as trees } from './trees.js';
import { command as train } from './train.js';
import { command as uncertainty } from './uncertainty.js';

/** Every subcommand of `paralens`, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  tour,
  train,
  predict,
  evalCmd,
  generate,
  exportCmd,
  importCmd,
  draw,
  uncertainty,
  kmeans,
  deepsets,
  trees,
  sheaf,
  logic,
  distill,
  derive,
  equivariant,
  end,
  coend,
  topos,
];
