// Every CLI the harness drives, in the order `make captures` runs them.
import { cli as claudeCode } from './claude-code.mjs';

export const CLIS = [claudeCode];

/** The CLI named `name`, or an error that lists the names. */
export function cliNamed(name) {
  const found = CLIS.find((c) => c.name === name);
  if (!found) throw new Error(`no CLI "${name}"; there are: ${CLIS.map((c) => c.name).join(', ')}`);
  return found;
}
