import { scenario } from '../lib/dsl.mjs';
import { firstRun, resumeAndContinue, reviewers } from './resumed.mjs';

/** `resumed` without its compaction, for the CLIs that cannot compact headless. */
export default scenario({
  name: 'continued',
  title: 'One session over three runs: a wave, a resumed wave, a continuation',
  story: `The same session runs three times. Run 1 (a new session, with a chosen id where the CLI takes
one): the main agent launches a reviewer and sums up its report. Run 2 resumes the session by id with
a new prompt: a second reviewer, then a summary. Run 3 continues the latest session with a last
question, answered without tools.`,
  ...firstRun,
  then: resumeAndContinue,
  agents: reviewers,
});
