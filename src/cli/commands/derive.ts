import type { Command } from '../command.js';
import { UsageError } from '../args.js';

/** Placeholder: this command is not built yet. */
export const command: Command = {
  name: 'derive',
  summary: '(not yet available)',
  usage: 'paralens derive',
  description: 'Not yet available in this version.',
  flags: {},
  run: async () => {
    throw new UsageError('paralens derive is not available in this version');
  },
};
