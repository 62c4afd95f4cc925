// Files a test opens through `/view?src=`: written into the served folder
// (`dist/e2e/<folder>/`), so `taskview serve` hands them out like any file.
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** One folder of served files; `remove()` deletes it. */
export class ServedFolder {
  constructor(name) {
    this.name = name;
    this.dir = path.join(ROOT, 'dist', 'e2e', name);
  }

  /**
   * Serves `source` (a repo-relative path, or `{name, text}`) and returns its
   * URL path, for `/view?src=`.
   */
  add(source) {
    mkdirSync(this.dir, { recursive: true });
    const name = typeof source === 'string' ? path.basename(source) : source.name;
    if (typeof source === 'string') copyFileSync(path.join(ROOT, source), path.join(this.dir, name));
    else writeFileSync(path.join(this.dir, name), source.text);
    return `/e2e/${this.name}/${name}`;
  }

  remove() { rmSync(this.dir, { recursive: true, force: true }); }
}

/**
 * Writes `messages` as recording `name` (a kandev list) in the folder `dir`
 * for `taskview serve --recordings`, whole at once: written beside the
 * folder, then renamed into it, so a server tailing it never reads half.
 * Write it again with more messages to make it grow.
 */
export function writeRecording(dir, name, messages) {
  mkdirSync(dir, { recursive: true });
  const draft = `${dir}.${name}.draft`;
  writeFileSync(draft, JSON.stringify({ messages }));
  renameSync(draft, path.join(dir, name));
}
