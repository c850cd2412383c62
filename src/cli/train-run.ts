import { parseSpec } from '../catalogue/index.js';
import type { Task } from '../data/task.js';
import { checkWritableSync } from '../io/node-fs.js';
import { loadModel } from '../io/node.js';
import { sizeOf } from '../tensor/tensor.js';
import { backend } from '../tensor/registry.js';
import type { RunSettings, TrainingRun } from '../train/run.js';
import { rowsRun } from '../train/run-rows.js';
import { textRun } from '../train/run-text.js';
import { UsageError } from './args.js';
import type { ParsedFlags } from './args.js';
import { dataForms, isTextData, loadData, loadTextData, TEXT_DATA } from './data.js';

/**
 * The run `paralens train` asks for, opened on its data: a text data set (text:PATH,
 * fortunes) is a run on windows of characters (train/run-text.ts), any other --data a run
 * on rows (train/run-rows.ts). What the flags cannot mean is refused here, before any data
 * is read.
 */
export async function openRun(flags: ParsedFlags, settings: RunSettings): Promise<TrainingRun> {
  if (!flags.model && !flags.init) throw new UsageError('train: --model SPEC is required (or --init FILE), e.g. --model "dense(2,4) >> sigmoid >> dense(4,1)"');
  if (flags.init && flags.resume) throw new UsageError('train: --init and --resume both set the starting weights; give one');
  if (!flags.data) throw new UsageError(`train: --data NAME is required (${dataForms()}; ${TEXT_DATA.join('; ')})`);
  if (backend().device && (flags.checkpoint || flags.resume))
    throw new UsageError(
      `train: --checkpoint and --resume need host parameters every epoch; --backend ${backend().name} keeps them on the device (use --backend wasm)`,
    );
  const data = flags.data as string;
  return isTextData(data) ? openTextRun(data, flags, settings) : openRowsRun(data, flags, settings);
}

function openTextRun(data: string, flags: ParsedFlags, settings: RunSettings): TrainingRun {
  for (const f of ['init', 'target', 'task', 'val-fraction']) {
    if (flags[f] !== undefined)
      throw new UsageError(`train: --${f} does not apply to text data (its split is fixed: the first 90 % of the characters train, the last 10 % validate)`);
  }
  if (flags.loss !== undefined && flags.loss !== 'token-cross-entropy')
    throw new UsageError(`train: text data trains with the token-cross-entropy loss, not ${String(flags.loss)}`);
  const corpus = loadTextData(data, { dataDir: flags['data-dir'] as string | undefined, context: flags.context as number });
  return textRun(flags.model as string, corpus, settings);
}

async function openRowsRun(data: string, flags: ParsedFlags, settings: RunSettings): Promise<TrainingRun> {
  const init = flags.init ? await loadModel(flags.init as string) : undefined;
  const model = init ? init.model : parseSpec(flags.model as string);
  if (init && flags.model && String(parseSpec(flags.model as string)) !== String(parseSpec(String(init.model)))) {
    throw new UsageError(`train: --model ${flags.model} is not the model of --init ${flags.init} (${init.model}); drop --model or give that spec`);
  }
  // room for θ and the header, before any data is read or any epoch run
  if (flags.save)
    checkWritableSync(flags.save as string, { force: Boolean(flags.force), bytes: 4 * model.params.reduce((n, p) => n + sizeOf(p.shape), 0) + 65536 });
  const loaded = await loadData(data, {
    seed: settings.seed,
    dataDir: flags['data-dir'] as string | undefined,
    model,
    target: flags.target as string | undefined,
    task: flags.task as Task | undefined,
  });
  if (loaded.data.y === loaded.data.x)
    throw new UsageError(`train: ${loaded.data.name} has no target to learn; give --target Y.npy, or an .npz with arrays x and y`);
  return rowsRun(model, loaded, settings, { theta: init?.theta, init: flags.init as string | undefined, dataDir: flags['data-dir'] as string | undefined });
}
