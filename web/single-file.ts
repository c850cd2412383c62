import type { Plugin } from 'vite';

/**
 * The built playground as one self-contained page: the entry script and the style sheet are
 * written into index.html, and the training worker is already inside the script (main.ts
 * imports it with `?worker&inline`, which Vite turns into a Blob URL). A browser loads a page
 * from file:// with an opaque origin and refuses every script, style sheet and worker fetched
 * from a file beside it (module scripts and workers need CORS, which file:// has not); inline
 * ones need no fetch. With nothing fetched by path, the page also works under any sub-path.
 */
export function singleFile(): Plugin {
  return {
    name: 'paralens:single-file',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const pages = Object.values(bundle).filter((f) => f.type === 'asset' && f.fileName.endsWith('.html'));
      for (const page of pages) {
        if (page.type !== 'asset') continue;
        let html = String(page.source);
        for (const [name, file] of Object.entries(bundle)) {
          if (file === page) continue;
          const path = escapeRegExp(file.fileName);
          if (file.type === 'chunk') {
            const tag = new RegExp(`<script type="module"[^>]*\\ssrc="[^"]*${path}"[^>]*></script>`);
            // `</script` inside the code would end the element early: `<\/script` means the same in JS
            const code = file.code.replace(/<\/script/gi, '<\\/script');
            html = replaceOnce(html, tag, () => `<script type="module">${code}</script>`, file.fileName);
          } else if (file.fileName.endsWith('.css')) {
            const tag = new RegExp(`<link rel="stylesheet"[^>]*\\shref="[^"]*${path}"[^>]*>`);
            html = replaceOnce(html, tag, () => `<style>${String(file.source)}</style>`, file.fileName);
          } else throw new Error(`single-file build: ${file.fileName} would be a file beside the page; inline it or drop it`);
          delete bundle[name];
        }
        page.source = html;
      }
    },
  };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `html` with the one match of `tag` replaced; a file the page does not reference is an error, not a silent drop. */
function replaceOnce(html: string, tag: RegExp, by: () => string, file: string): string {
  if (!tag.test(html)) throw new Error(`single-file build: index.html does not reference ${file}`);
  return html.replace(tag, by);
}
