//! A telemetry file of several sessions (a Collector's file exporter writes
//! every session it hears of into one) opened in the file view: the session
//! chooser lists its sessions, and the one picked opens alone, never all
//! merged into one transcript. A file of one session opens at once.

use super::format::{age, count_label};
use super::sessions::{chooser_title, SessionChoice};
use crate::read::import::folder::SessionFiles;
use crate::read::import::otlp::{self, TelemetrySession};

/// The chooser's list for the file `text`, newest first, when it is
/// telemetry of more than one session; `None`: it opens as it is. `now_ms`
/// dates the ages.
pub fn file_choices(text: &str, now_ms: f64) -> Option<Vec<SessionChoice>> {
    if !otlp::is_telemetry(text) {
        return None;
    }
    let found = otlp::sessions(text);
    (found.len() > 1).then(|| found.iter().map(|s| choice(s, now_ms)).collect())
}

/// A session of the file as the chooser shows it: its title (first
/// prompt), its agent, its id, and its counts and age.
fn choice(session: &TelemetrySession, now_ms: f64) -> SessionChoice {
    let mut detail = Vec::with_capacity(3);
    detail.push(count_label(session.spans, "span", "spans"));
    detail.push(count_label(session.logs, "log record", "log records"));
    if session.newest_ms > 0 {
        detail.push(age(now_ms - session.newest_ms as f64));
    }
    let file_detail = detail.join(" · ");
    SessionChoice {
        // The file itself: the one file there is.
        files: SessionFiles {
            session: 0,
            companions: Vec::new(),
        },
        name: session.id.clone(),
        title: session.title.clone(),
        folder: session.agent.clone().unwrap_or_default(),
        subagents: session.subagents,
        file_detail,
        lineage: None,
        spawned: false,
        part: Some(session.id.clone()),
    }
}

/// What opening `choice` of the file `name` (whose text is `text`) reads:
/// the name the source bar shows and that session's telemetry alone;
/// `None` for a choice that is no session of a file.
pub fn open_part(name: &str, text: &str, choice: &SessionChoice) -> Option<(String, String)> {
    let id = choice.part.as_deref()?;
    Some((format!("{name} · {id}"), otlp::session_text(text, id)))
}

/// The chooser's heading: what holds the sessions, and how many.
pub fn chooser_heading(choices: &[SessionChoice]) -> String {
    match choices.first().is_some_and(|c| c.part.is_some()) {
        true => format!("This file holds {} sessions", choices.len()),
        false => chooser_title(choices.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use taskview_testkit::captures::otlp_posts;
    use taskview_testkit::fixture;

    const NOW: f64 = 1_900_000_000_000.0;

    #[test]
    fn a_collector_file_lists_its_sessions_and_opens_one_alone() {
        let text = fixture("captures-otlp/collector-file.jsonl");
        let choices = file_choices(&text, NOW).expect("three sessions to choose from");
        assert_eq!(chooser_heading(&choices), "This file holds 3 sessions");
        let claude = choices.iter().find(|c| c.folder == "Claude Code").unwrap();
        assert_eq!(claude.heading(), "2a407dcc-3325-4e19-a288-c62ab8fd64de");
        assert!(
            claude.detail().starts_with("4 subagents · "),
            "{}",
            claude.detail()
        );
        assert!(claude.detail().contains(" spans · ") && claude.detail().contains(" log records"));
        let qwen = choices.iter().find(|c| c.folder == "qwen-code").unwrap();
        assert!(qwen.heading().starts_with("Audit parser-kit for panics"));
        assert!(qwen
            .subheading()
            .starts_with(&format!("{} · 4 subagents", qwen.name)));
        let (name, alone) = open_part("otel.jsonl", &text, qwen).unwrap();
        assert_eq!(name, format!("otel.jsonl · {}", qwen.name));
        assert_eq!(otlp::sessions(&alone).len(), 1);
        assert_eq!(otlp::sessions(&alone)[0].id, qwen.name);
    }

    #[test]
    fn a_file_of_one_session_or_no_telemetry_opens_as_it_is() {
        let one = otlp_posts("claude-code-2.1.332/nested").join("\n");
        assert_eq!(file_choices(&one, NOW), None);
        let transcript = fixture("dialects/claude-code-session.jsonl");
        assert_eq!(file_choices(&transcript, NOW), None);
        assert_eq!(file_choices("", NOW), None);
    }

    #[test]
    fn a_folders_choices_keep_their_heading() {
        let one = SessionChoice {
            files: SessionFiles {
                session: 0,
                companions: Vec::new(),
            },
            name: "s".into(),
            title: None,
            folder: String::new(),
            subagents: 0,
            file_detail: String::new(),
            lineage: None,
            spawned: false,
            part: None,
        };
        let folder = [one.clone(), one.clone()];
        assert_eq!(chooser_heading(&folder), "This folder holds 2 sessions");
        assert_eq!(open_part("f", "", &one), None, "a folder's session file");
        let part = SessionChoice {
            part: Some("s".into()),
            ..one
        };
        assert_eq!(
            open_part("f", "", &part),
            Some(("f · s".into(), String::new()))
        );
    }
}
