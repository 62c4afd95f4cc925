//! What the watcher asked a board taskview makes to show (docs/behaviour.md
//! §5): filters by agent, project, machine, person, state and text, read from
//! and written to the page's URL query, so a reload, a shared link and the
//! task page's `← Board` come back to the same place.

use super::column::StateColumn;
use crate::model::board::Task;
use crate::read::protocol::percent_encode;
use crate::read::route::percent_decode;

/// The filters of a board; `None` / empty: not filtered by it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BoardFilter {
    pub agent: Option<String>,
    pub project: Option<String>,
    pub machine: Option<String>,
    pub person: Option<String>,
    pub state: Option<StateColumn>,
    /// Words looked for in the title, agent, model, project, machine and person.
    pub text: String,
}

/// The URL query keys, in the order they are written.
const KEYS: [&str; 6] = ["agent", "project", "machine", "person", "state", "q"];

/// The last component of a folder path: `/home/a/parser-kit` → `parser-kit`.
pub fn project_name(path: &str) -> &str {
    path.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
}

/// A task's value for a filter key (`None`: it has none).
fn value_of<'a>(task: &'a Task, key: &str) -> Option<&'a str> {
    let facts = task.facts.as_ref();
    match key {
        "agent" => facts?.agent.as_deref(),
        "project" => facts?.project.as_deref().map(project_name),
        "machine" => task.machine.as_deref(),
        "person" => task.person.as_deref(),
        _ => None,
    }
}

impl BoardFilter {
    /// Reads a URL query (`?agent=Codex&state=working&q=lexer`, with or
    /// without its `?`); unknown keys and unreadable values are ignored.
    pub fn from_query(query: &str) -> BoardFilter {
        let mut filter = BoardFilter::default();
        for pair in query.trim_start_matches('?').split('&') {
            let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let Some(value) = percent_decode(&raw.replace('+', " ")) else {
                continue;
            };
            let value = value.trim().to_string();
            if value.is_empty() {
                continue;
            }
            match key {
                "agent" => filter.agent = Some(value),
                "project" => filter.project = Some(value),
                "machine" => filter.machine = Some(value),
                "person" => filter.person = Some(value),
                "state" => filter.state = StateColumn::from_slug(&value),
                "q" => filter.text = value,
                _ => {}
            }
        }
        filter
    }

    /// The URL query of these filters (`agent=Codex&q=lexer`, empty when
    /// none), in a fixed order, so one board state has one URL.
    pub fn to_query(&self) -> String {
        let values = [
            self.agent.as_deref(),
            self.project.as_deref(),
            self.machine.as_deref(),
            self.person.as_deref(),
            self.state.map(StateColumn::slug),
            Some(self.text.trim()).filter(|t| !t.is_empty()),
        ];
        KEYS.iter()
            .zip(values)
            .filter_map(|(key, value)| value.map(|v| format!("{key}={}", percent_encode(v))))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// No filter is set.
    pub fn is_empty(&self) -> bool {
        *self == BoardFilter::default()
    }

    /// Whether `task` passes every filter but the state's (the columns
    /// apply that one).
    pub fn admits(&self, task: &Task) -> bool {
        let fields = [
            ("agent", &self.agent),
            ("project", &self.project),
            ("machine", &self.machine),
            ("person", &self.person),
        ];
        let fields_match = fields.iter().all(|(key, wanted)| {
            wanted
                .as_deref()
                .is_none_or(|w| value_of(task, key).is_some_and(|v| v.eq_ignore_ascii_case(w)))
        });
        fields_match && self.text_matches(task)
    }

    /// Every word of the text is in one of the task's words (any case).
    fn text_matches(&self, task: &Task) -> bool {
        let words: Vec<String> = self
            .text
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() {
            return true;
        }
        let facts = task.facts.as_ref();
        let haystack = [
            Some(task.title.as_str()),
            facts.and_then(|f| f.agent.as_deref()),
            facts.and_then(|f| f.model.as_deref()),
            facts.and_then(|f| f.project.as_deref()),
            task.machine.as_deref(),
            task.person.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
        words.iter().all(|w| haystack.contains(w.as_str()))
    }
}

/// The values the filters can take on a board, each sorted: what its
/// tasks have.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FilterOptions {
    pub agents: Vec<String>,
    pub projects: Vec<String>,
    pub machines: Vec<String>,
    pub persons: Vec<String>,
}

/// A task's values of the agent, project, machine and person filters, in
/// [`FilterOptions`]' order.
pub fn filter_values(task: &Task) -> [Option<String>; 4] {
    ["agent", "project", "machine", "person"].map(|key| value_of(task, key).map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::card_facts::SessionFacts;

    fn task(title: &str, agent: &str, project: &str, machine: Option<&str>) -> Task {
        Task {
            title: title.into(),
            machine: machine.map(str::to_string),
            facts: Some(SessionFacts {
                agent: Some(agent.into()),
                project: Some(project.into()),
                model: Some("gpt-5-codex".into()),
                ..SessionFacts::default()
            }),
            ..Task::default()
        }
    }

    #[test]
    fn the_filters_go_to_the_url_and_come_back_the_same() {
        let filter = BoardFilter {
            agent: Some("Claude Code".into()),
            project: Some("parser-kit".into()),
            machine: None,
            person: Some("ada".into()),
            state: Some(StateColumn::NeedsYou),
            text: "lexer & co".into(),
        };
        let query = filter.to_query();
        assert_eq!(
            query,
            "agent=Claude%20Code&project=parser-kit&person=ada&state=needs-you&q=lexer%20%26%20co"
        );
        assert_eq!(BoardFilter::from_query(&format!("?{query}")), filter);
        assert_eq!(BoardFilter::default().to_query(), "");
        assert!(BoardFilter::from_query("?state=nonsense&x=1&q=").is_empty());
        assert_eq!(BoardFilter::from_query("q=two+words").text, "two words");
    }

    #[test]
    fn a_task_passes_when_every_filter_and_every_word_match() {
        let t = task(
            "Audit the lexer",
            "Codex",
            "/tmp/work/parser-kit",
            Some("m1"),
        );
        let by = |q: &str| BoardFilter::from_query(q).admits(&t);
        assert!(by(""));
        assert!(by("agent=codex&project=parser-kit&machine=m1"));
        assert!(!by("agent=Claude%20Code"));
        assert!(
            !by("person=ada"),
            "a task with no person fails a person filter"
        );
        assert!(by("q=LEXER%20gpt-5"), "title and model words, any case");
        assert!(!by("q=lexer%20billing"));
    }

    #[test]
    fn a_tasks_filter_values_are_its_agent_project_machine_and_person() {
        let t = task("b", "Claude Code", "/w/web/", Some("m2"));
        assert_eq!(
            filter_values(&t),
            [
                Some("Claude Code".into()),
                Some("web".into()),
                Some("m2".into()),
                None
            ]
        );
    }
}
