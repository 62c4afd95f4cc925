// Folders handed to the file view the way a user drops them: the files of a
// folder read from disk, and a drop of them as one folder.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from '@playwright/test';

/** Every file under `dir`, as `[relative path, text]`. */
export function filesUnder(dir, prefix = '') {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(full).isDirectory() ? filesUnder(full, rel) : [[rel, readFileSync(full, 'utf8')]];
  });
}

/**
 * Drops `files` ([relative path, text]) on the file view as one folder named
 * `folder`, the way Chromium hands over a dropped folder: a DataTransfer item
 * whose `webkitGetAsEntry()` is a directory entry (a test cannot drop a real
 * folder, so the entries are built in the page from the files' texts), once
 * the file view is there to take them.
 */
export async function dropFolder(view, folder, files) {
  await expect(view.fileView).toBeVisible();
  await view.page.evaluate(([folder, files]) => {
    const fileEntry = (name, fullPath, text) => ({
      isFile: true, isDirectory: false, name, fullPath, file: (ok) => ok(new File([text], name)),
    });
    const dirEntry = (name, fullPath, children) => ({
      isFile: false, isDirectory: true, name, fullPath,
      createReader: () => {
        let done = false;
        return { readEntries: (ok) => { ok(done ? [] : children); done = true; } };
      },
    });
    const tree = (prefix, list) => {
      const here = new Map();
      for (const [rel, text] of list) {
        const [head, ...rest] = rel.split('/');
        if (!rest.length) here.set(head, fileEntry(head, `${prefix}/${head}`, text));
        else here.set(head, [...(here.get(head) ?? []), [rest.join('/'), text]]);
      }
      return [...here].map(([name, v]) => (Array.isArray(v)
        ? dirEntry(name, `${prefix}/${name}`, tree(`${prefix}/${name}`, v)) : v));
    };
    const root = dirEntry(folder, `/${folder}`, tree(`/${folder}`, files));
    const data = new DataTransfer();
    data.items.add(new File(['folder'], folder));
    Object.defineProperty(Object.getPrototypeOf(data.items[0]), 'webkitGetAsEntry',
      { configurable: true, value: () => root });
    document.querySelector('[data-testid="file-view"]')
      .dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, [folder, files]);
}

