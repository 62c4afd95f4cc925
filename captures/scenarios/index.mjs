// Every scenario, in the order `make captures` runs them.
import parallelWave from './parallel-wave.mjs';
import foreground from './foreground.mjs';
import nested from './nested.mjs';
import failures from './failures.mjs';
import stopped from './stopped.mjs';
import longSession from './long-session.mjs';
import slowWave from './slow-wave.mjs';
import fork from './fork.mjs';
import sendMessage from './send-message.mjs';
import workflow from './workflow.mjs';
import backgroundShell from './background-shell.mjs';
import reports from './reports.mjs';
import deepWave from './deep-wave.mjs';
import apiErrors from './api-errors.mjs';
import interrupted from './interrupted.mjs';
import resumed from './resumed.mjs';
import continued from './continued.mjs';
import wideFanOut from './wide-fan-out.mjs';
import sessionFork from './session-fork.mjs';
import hooks from './hooks.mjs';
import mcp from './mcp.mjs';
import customAgents from './custom-agents.mjs';
import worktree from './worktree.mjs';
import interruptedForeground from './interrupted-foreground.mjs';

export const SCENARIOS = [parallelWave, foreground, nested, failures, stopped, longSession, slowWave, fork, sendMessage, workflow, backgroundShell, reports, deepWave, apiErrors, interrupted, resumed, continued, wideFanOut, sessionFork, hooks, mcp, customAgents, worktree, interruptedForeground];

/** The scenario named `name`, or an error that lists the names. */
export function scenarioNamed(name) {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`no scenario "${name}"; there are: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return found;
}
