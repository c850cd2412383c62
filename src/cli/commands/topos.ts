import type { Command } from '../command.js';
import { UsageError } from '../args.js';

/** Placeholder: this command is not built yet. */
export const command: Command = {
  name: 'topos',
  summary: '(not yet available)',
  usage: 'paralens topos',
  description: 'Not yet available in this version.',
  flags: {},
  run: async () => {
    throw new UsageError('paralens topos is not available in this version');
  },
};
