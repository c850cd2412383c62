import type { Command } from '../command.js';
import { UsageError } from '../args.js';

/** Placeholder: this command is not built yet. */
export const command: Command = {
  name: 'coend',
  summary: '(not yet available)',
  usage: 'paralens coend',
  description: 'Not yet available in this version.',
  flags: {},
  run: async () => {
    throw new UsageError('paralens coend is not available in this version');
  },
};
