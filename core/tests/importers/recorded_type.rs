//! What the CLI recorded wins (docs/behaviour.md §1): qwen-code 0.24.4 runs
//! an Agent call without `subagent_type` as `general-purpose` and its
//! sidecar says so; the card shows that type, not `fork`.

use crate::common::*;
use taskview_core::read::import::import_any_with_files;
use taskview_testkit::captures::capture;

#[test]
fn a_qwen_code_launch_without_a_type_shows_the_type_its_sidecar_recorded() {
    let c = capture("qwen-code-0.24.4/foreground");
    // The same launch as qwen-code records it when the model names no type.
    let untyped = c
        .session
        .replace(r#","subagent_type":"general-purpose""#, "");
    assert_ne!(
        untyped, c.session,
        "the capture launches general-purpose agents"
    );
    let events = import_any_with_files(&untyped, &c.file_refs())
        .unwrap()
        .events;
    let msgs = messages(&events);
    let laid = LaidOut::new(events);
    let described = |d: &str| {
        cards(&msgs)
            .into_iter()
            .find(|m| m.metadata.subagent.as_ref().unwrap().description == d)
            .unwrap()
            .id
            .clone()
    };
    for description in ["Write a failing test", "Check the README example"] {
        let card = laid.card(&described(description));
        assert_eq!(card.type_label, "general-purpose", "{description}");
        assert!(!payload(&msgs, &described(description)).is_fork);
    }
}
