// Background results as Claude Code and qwen-code both deliver them: a
// `<task-notification>` naming the task in `<task-id>…</task-id>`, in a user
// (or system) message of the parent's conversation.

/** Has a `<task-notification>` for task `id` reached this conversation? */
export function notified(messages, id) {
  const tag = `<task-id>${id}</task-id>`;
  return messages.some((m) => m.role !== 'assistant' && m.parts.some((p) => (p.type === 'text' || p.type === 'result') && p.text.includes(tag)));
}

/**
 * A launch settles when its result arrived (a foreground launch) or, when the
 * result says the task went to the background (`background`), once its
 * notification has arrived, or `otherwise(messages, id)` says it is done.
 */
export const settledBy =
  (background, otherwise = () => false) =>
  ({ launch, agentId, messages }) =>
    !background.test(launch) || (agentId !== null && (notified(messages, agentId) || otherwise(messages, agentId)));
