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
