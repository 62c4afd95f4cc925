// The workflow action as a script for the CLIs' Workflow tools.

/**
 * A workflow script (the `agent()` / `parallel()` / `phase()` runtime that
 * Claude Code and qwen-code share) running the scenario agents of each phase
 * in parallel, phase after phase; `typeOf` maps a scenario type to the CLI's.
 */
export function workflowScript(action, scenario, typeOf) {
  const meta = { name: action.name, description: action.description, phases: action.phases.map((p) => ({ title: p.title })) };
  const lines = [`export const meta = ${JSON.stringify(meta, null, 2)}`, ''];
  const names = action.phases.map((p) => p.title.toLowerCase().replace(/[^a-z0-9]+/g, '_'));
  action.phases.forEach((phase, i) => {
    lines.push(`phase(${JSON.stringify(phase.title)})`, `const ${names[i]} = await parallel([`);
    for (const k of phase.keys) {
      const def = scenario.agents.get(k);
      const opts = { label: def.description, phase: phase.title, ...(def.type ? { agentType: typeOf(def.type) } : {}) };
      lines.push(`  () => agent(${JSON.stringify(def.prompt)}, ${JSON.stringify(opts)}),`);
    }
    lines.push('])', '');
  });
  lines.push(`return { ${names.join(', ')} }`);
  return lines.join('\n');
}
