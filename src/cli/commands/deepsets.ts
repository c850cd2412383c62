import type { Command } from '../command.js';
import { UsageError } from '../args.js';

/** Placeholder: this command is not built yet. */
export const command: Command = {
  name: 'deepsets',
  summary: '(not yet available)',
  usage: 'paralens deepsets',
  description: 'Not yet available in this version.',
  flags: {},
  run: async () => {
    throw new UsageError('paralens deepsets is not available in this version');
  },
};
