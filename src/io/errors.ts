import { ParalensError } from '../errors.js';

/**
 * A model file that is not what it claims to be: truncated, a header that is not JSON,
 * offsets out of order or overlapping, a dtype or shape that disagrees with the spec.
 * Bad input, so the CLI exits with 2.
 */
export class FileFormatError extends ParalensError {
  constructor(message: string) {
    super('E_FORMAT', message);
    this.name = 'FileFormatError';
  }
}

/** A morphism the ONNX exporter cannot express (the message names the layer). CLI exit 2. */
export class ExportError extends ParalensError {
  constructor(message: string) {
    super('E_EXPORT', message);
    this.name = 'ExportError';
  }
}

/** An ONNX graph import cannot turn into a Para composite: operators it has no rule for (each named with its node), or a supported operator in a form paralens lacks. CLI exit 2. */
export class ImportError extends ParalensError {
  constructor(message: string) {
    super('E_IMPORT', message);
    this.name = 'ImportError';
  }
}
