//! scratch probe (not committed)
#[path = "common/mod.rs"]
mod common;
use common::*;
use taskview_core::read::import::import_any_with_files;
use taskview_testkit::captures::capture;

fn show(name: &str) {
    let c = capture(name);
    let events = import_any_with_files(&c.session, &c.file_refs())
        .unwrap()
        .events;
    let msgs = messages(&events);
    let laid = LaidOut::new(events.clone());
    println!("=== {name} files={}", c.files.len());
    for m in cards(&msgs) {
        let f = laid.card(&m.id);
        let p = m.metadata.subagent.as_ref().unwrap();
        println!("{} [{}] {:?} st={:?} count={:?} tools={:?} chips={:?} started={:?} q={} notloaded={:?}", m.id, p.subagent_type, p.description, f.status, f.child_count_label, p.tool_use_count, laid.chips(&m.id), p.started_at, p.is_queued, m.metadata.raw.get("transcript_not_loaded"));
    }
    println!("not shown: {:?}", not_shown(&events));
    println!("unreadable: {:?}", unreadable(&events));
}

#[test]
fn probe() {
    for n in std::env::var("PROBE").unwrap().split(',') {
        show(n);
    }
}

#[test]
fn probe_rows() {
    let c = capture(&std::env::var("PROBE").unwrap());
    let events = import_any_with_files(&c.session, &c.file_refs())
        .unwrap()
        .events;
    for m in messages(&events) {
        println!(
            "{:?} {:?} status={:?} title={:?} parent={:?} res={:?}",
            m.kind,
            m.id,
            m.metadata.status,
            m.title(),
            m.metadata.parent_tool_call_id,
            m.metadata
                .raw_str("result")
                .map(|r| r.chars().take(80).collect::<String>())
        );
    }
}

#[test]
fn probe_cut() {
    let name = std::env::var("PROBE").unwrap();
    let origin = taskview_testkit::fixtures::fixtures_under(&format!("captures/{name}/"))
        .filter(|(p, _)| p.ends_with(".jsonl") && !p.contains("/subagents/"))
        .map(|(p, t)| (p, t))
        .collect::<Vec<_>>();
    for (p, t) in origin {
        let cut: String = t
            .lines()
            .take_while(|l| !l.contains("<task-id>"))
            .collect::<Vec<_>>()
            .join("\n");
        let events = import_any_with_files(&cut, &[]).unwrap().events;
        for m in messages(&events).iter().filter(|m| m.is_subagent_payload()) {
            println!(
                "{p} {} {:?} {:?}",
                m.id,
                m.metadata.status,
                m.metadata.subagent.as_ref().map(|s| (
                    s.status.clone(),
                    s.is_async,
                    s.is_queued,
                    s.result_text.chars().take(40).collect::<String>()
                ))
            );
        }
    }
}
