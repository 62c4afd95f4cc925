//! Merging message events into a stored message (docs/behaviour.md §1.1).
//!
//! Every field is a last-writer-wins register stamped with the `updated_at` of
//! the event that wrote it: a field is written when the event is not older than
//! the field's stamp. So an event older than the stored message changes nothing
//! it defines, an update for a message still unknown creates it and a late
//! `added` only fills what later updates did not define, and the result does not
//! depend on the order the events arrived in (given distinct `updated_at`s).
//! `metadata` is one register (replaced whole), except for the subagent payload,
//! whose fields are merged one by one and never blanked by an empty value.

use crate::model::message::{is_launch_placeholder, Message, MessagePatch, SubagentTask};

/// The stamps of one message's fields (`None` = never stamped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clocks {
    fields: [Option<i128>; 9],
    payload: [Option<i128>; 11],
}

/// One register: writes `value` when `stamp` is not older than `clock`.
/// An event without a stamp always writes. Returns whether the value changed.
fn write<T: PartialEq>(
    dst: &mut T,
    clock: &mut Option<i128>,
    value: T,
    stamp: Option<i128>,
) -> bool {
    let newer = match (stamp, *clock) {
        (Some(s), Some(c)) => s >= c,
        _ => true,
    };
    if !newer {
        return false;
    }
    if stamp.is_some() {
        *clock = stamp;
    }
    if *dst == value {
        return false;
    }
    *dst = value;
    true
}

/// Merges `patch` (stamped `stamp`) into `msg`. `full` means the event defines
/// every field (an `added` message), so its absent `turn_id` is a value too.
/// Returns whether anything visible changed.
pub fn merge(
    msg: &mut Message,
    clocks: &mut Clocks,
    patch: MessagePatch,
    full: bool,
    stamp: Option<i128>,
) -> bool {
    let c = &mut clocks.fields;
    let mut changed = false;
    if let Some(v) = patch.session_id {
        changed |= write(&mut msg.session_id, &mut c[0], v, stamp);
    }
    if let Some(v) = patch.task_id {
        changed |= write(&mut msg.task_id, &mut c[1], v, stamp);
    }
    if full || patch.turn_id.is_some() {
        let turn = patch.turn_id.filter(|t| !t.is_empty());
        changed |= write(&mut msg.turn_id, &mut c[2], turn, stamp);
    }
    if let Some(v) = patch.author {
        changed |= write(&mut msg.author, &mut c[3], v, stamp);
    }
    if let Some(v) = patch.kind {
        changed |= write(&mut msg.kind, &mut c[4], v, stamp);
    }
    if let Some(v) = patch.content {
        changed |= write(&mut msg.content, &mut c[5], v, stamp);
    }
    if let Some(v) = patch.created_at {
        changed |= write(&mut msg.created_at, &mut c[7], v, stamp);
    }
    if let Some(v) = patch.updated_at {
        changed |= write(&mut msg.updated_at, &mut c[8], v, stamp);
    }
    if full || patch.metadata.is_some() {
        let mut incoming = patch.metadata.unwrap_or_default();
        let payload = incoming.subagent.take();
        let mut current = std::mem::take(&mut msg.metadata);
        let merged_payload = current.subagent.take();
        changed |= write(&mut current, &mut c[6], incoming, stamp);
        current.subagent = merged_payload;
        if let Some(frame) = payload {
            let sa = current.subagent.get_or_insert_with(SubagentTask::default);
            changed |= merge_payload(sa, &mut clocks.payload, frame, stamp);
        }
        msg.metadata = current;
    }
    changed
}

/// Merges one subagent frame field by field, never blanking (docs/behaviour.md §1.1):
/// empty strings, zero durations and zero token counts are not values.
/// `tool_use_count` is set whenever reported, `0` included.
fn merge_payload(
    sa: &mut SubagentTask,
    clocks: &mut [Option<i128>; 11],
    frame: SubagentTask,
    stamp: Option<i128>,
) -> bool {
    let mut changed = false;
    let strings = [
        (&mut sa.subagent_type, frame.subagent_type),
        (&mut sa.description, frame.description),
        (&mut sa.prompt, frame.prompt),
        (&mut sa.status, frame.status),
        (&mut sa.agent_id, frame.agent_id),
        (&mut sa.model, frame.model),
        (&mut sa.child_session_id, frame.child_session_id),
        (&mut sa.result_text, frame.result_text),
    ];
    for (i, (dst, value)) in strings.into_iter().enumerate() {
        // A launch placeholder never replaces an answer (a fork's late
        // `Fork started…` frame); the final answer replaces a placeholder.
        let placeholder_over_answer = i == 7
            && is_launch_placeholder(&value)
            && !dst.is_empty()
            && !is_launch_placeholder(dst);
        if !value.is_empty() && !placeholder_over_answer {
            changed |= write(dst, &mut clocks[i], value, stamp);
        }
    }
    if let Some(d) = frame.duration_ms.filter(|d| *d > 0) {
        changed |= write(&mut sa.duration_ms, &mut clocks[8], Some(d), stamp);
    }
    if let Some(t) = frame.total_tokens.filter(|t| *t > 0) {
        changed |= write(&mut sa.total_tokens, &mut clocks[9], Some(t), stamp);
    }
    if frame.tool_use_count.is_some() {
        changed |= write(
            &mut sa.tool_use_count,
            &mut clocks[10],
            frame.tool_use_count,
            stamp,
        );
    }
    changed |= (frame.is_async && !sa.is_async) || (frame.is_fork && !sa.is_fork);
    sa.is_async |= frame.is_async;
    sa.is_fork |= frame.is_fork;
    // Telemetry's figures come whole from one reading of its records: the
    // latest reported replaces the earlier, and none keeps them.
    if frame.telemetry.is_some() && frame.telemetry != sa.telemetry {
        sa.telemetry = frame.telemetry;
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn patch(v: serde_json::Value) -> MessagePatch {
        MessagePatch::from_value(&v).unwrap()
    }

    fn apply(events: &[(bool, serde_json::Value)]) -> Message {
        let mut msg = Message::default();
        let mut clocks = Clocks::default();
        for (full, v) in events {
            let p = patch(v.clone());
            let stamp = p
                .updated_at
                .as_deref()
                .and_then(crate::model::time::parse_rfc3339);
            let p = if *full {
                MessagePatch::from(p.into_message())
            } else {
                p
            };
            merge(&mut msg, &mut clocks, p, *full, stamp);
        }
        msg
    }

    const T1: &str = "2026-08-03T10:00:01Z";
    const T2: &str = "2026-08-03T10:00:02Z";

    #[test]
    fn update_older_than_stored_is_ignored() {
        let m = apply(&[
            (true, json!({"id": "m", "content": "new", "updated_at": T2})),
            (
                false,
                json!({"id": "m", "content": "old", "updated_at": T1}),
            ),
        ]);
        assert_eq!(m.content, "new");
        assert_eq!(m.updated_at, T2);
    }

    #[test]
    fn update_merges_only_defined_fields_with_metadata_replaced_whole() {
        let m = apply(&[
            (
                true,
                json!({"id": "m", "content": "c", "type": "tool_call", "turn_id": "t",
                "metadata": {"title": "a", "status": "pending"}, "updated_at": T1}),
            ),
            (
                false,
                json!({"id": "m", "metadata": {"status": "complete"}, "updated_at": T2}),
            ),
        ]);
        assert_eq!(m.content, "c");
        assert_eq!(m.turn_id.as_deref(), Some("t"));
        assert_eq!(m.metadata.status.as_deref(), Some("complete"));
        assert_eq!(m.metadata.title, None);
    }

    #[test]
    fn late_added_fills_only_fields_a_newer_update_did_not_define() {
        let m = apply(&[
            (
                false,
                json!({"id": "m", "content": "final", "updated_at": T2}),
            ),
            (
                true,
                json!({"id": "m", "content": "draft", "type": "tool_read",
                "metadata": {"title": "Read"}, "updated_at": T1}),
            ),
        ]);
        assert_eq!(m.content, "final");
        assert_eq!(m.metadata.title.as_deref(), Some("Read"));
        assert_eq!(m.kind.as_str(), "tool_read");
    }

    #[test]
    fn subagent_payload_is_never_blanked_by_a_later_empty_frame() {
        let sa = |v: serde_json::Value| json!({"normalized": {"kind": "subagent_task", "subagent_task": v}});
        let m = apply(&[
            (
                true,
                json!({"id": "m", "updated_at": T1, "metadata": sa(json!({
                "result_text": "APPROVE", "duration_ms": 900, "total_tokens": 12, "tool_use_count": 3}))}),
            ),
            (
                false,
                json!({"id": "m", "updated_at": T2, "metadata": sa(json!({
                "result_text": "", "duration_ms": 0, "total_tokens": 0, "tool_use_count": 0,
                "status": "completed"}))}),
            ),
        ]);
        let sa = m.metadata.subagent.unwrap();
        assert_eq!(sa.result_text, "APPROVE");
        assert_eq!(sa.duration_ms, Some(900));
        assert_eq!(sa.total_tokens, Some(12));
        assert_eq!(sa.tool_use_count, Some(0));
        assert_eq!(sa.status, "completed");
    }

    #[test]
    fn telemetry_figures_are_replaced_by_later_ones_and_never_blanked() {
        let sa = |v: serde_json::Value| json!({"normalized": {"kind": "subagent_task", "subagent_task": v}});
        let frame = |at: &str, v: serde_json::Value| {
            (
                false,
                json!({"id": "m", "updated_at": at, "metadata": sa(v)}),
            )
        };
        let m = apply(&[
            frame(
                T1,
                json!({"status": "running", "telemetry": {"ttft_ms": 400, "cost_usd": 0.01}}),
            ),
            frame(T2, json!({"status": "completed"})),
        ]);
        let facts = m.metadata.subagent.unwrap().telemetry.expect("kept");
        assert_eq!(
            (facts.ttft_ms, facts.cost_micro_usd),
            (Some(400), Some(10_000))
        );
        let m = apply(&[
            frame(T1, json!({"telemetry": {"ttft_ms": 400}})),
            frame(T2, json!({"telemetry": {"ttft_ms": 500, "retries": 1}})),
        ]);
        let facts = m.metadata.subagent.unwrap().telemetry.unwrap();
        assert_eq!((facts.ttft_ms, facts.retries), (Some(500), 1));
    }

    #[test]
    fn subagent_payload_survives_metadata_replaced_without_one() {
        let m = apply(&[
            (
                true,
                json!({"id": "m", "updated_at": T1, "metadata": {"normalized":
                {"kind": "subagent_task", "subagent_task": {"model": "opus"}}}}),
            ),
            (
                false,
                json!({"id": "m", "updated_at": T2, "metadata": {"status": "complete"}}),
            ),
        ]);
        assert_eq!(m.metadata.subagent.unwrap().model, "opus");
        assert_eq!(m.metadata.status.as_deref(), Some("complete"));
    }
}
