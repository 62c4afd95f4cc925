//! Subagents' `.meta.json` sidecars (Claude Code, qwen-code): what each says
//! about its agent, read before the transcripts (which call each agent's
//! records belong to: `toolUseId`, so nested agents stored flat find their
//! card) and applied to the cards as they are built, after every record
//! read so far (a nested agent's launch call is in its parent's
//! transcript; a follower's later records come before it too).

use super::super::companions::{companion, Companion};
use super::Fold;
use crate::model::str_at;
use serde_json::Value;
use std::collections::BTreeMap;

/// The sidecars found beside a session, by agent id.
#[derive(Default)]
pub(crate) struct Metas(BTreeMap<String, Value>);

impl Metas {
    /// Reads `text` when `path` names a sidecar (`agent-<id>.meta.json`).
    pub(crate) fn read(&mut self, path: &str, text: &str) {
        if let Companion::Meta { agent } = companion(path) {
            if let Ok(meta @ Value::Object(_)) = serde_json::from_str(text) {
                self.0.insert(agent.to_string(), meta);
            }
        }
    }

    /// The sidecar of agent `agent`.
    pub(crate) fn get(&self, agent: &str) -> Option<&Value> {
        self.0.get(agent)
    }
}

impl Fold {
    /// Links each agent to the call that launched it, before the
    /// transcripts are read, and keeps each sidecar for its card.
    pub(crate) fn link_sidecars(&mut self, metas: &Metas) {
        for (agent, meta) in &metas.0 {
            self.add_sidecar(agent, meta);
        }
    }

    /// Links agent `agent` to the call its sidecar `meta` names, and keeps
    /// the sidecar to fill that call's card (`SubagentFold::apply_sidecar`,
    /// in agent order) whenever it is built.
    pub(crate) fn add_sidecar(&mut self, agent: &str, meta: &Value) {
        let task = str_at(meta, "toolUseId");
        if task.is_empty() {
            return;
        }
        if !self.task_of_agent.contains_key(agent) {
            self.link_agent(agent, &task);
        }
        self.items.touch(&task);
        let kept = self.sidecars.entry(task).or_default();
        match kept.binary_search_by(|(a, _)| a.as_str().cmp(agent)) {
            Ok(at) => kept[at].1 = meta.clone(),
            Err(at) => kept.insert(at, (agent.to_string(), meta.clone())),
        }
    }
}
