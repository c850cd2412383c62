/** The package version, written into model files. Keep in step with package.json. */
export const VERSION = '0.1.0';
