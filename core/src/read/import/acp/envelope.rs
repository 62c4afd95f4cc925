//! The Claude ACP adapter's snapshot files wrap each frame as
//! `{kind, method, payload}` (protocol v2: `kind` is `request`, `response` or
//! `notification`) or `{kind, payload}` (v1: `sessionUpdate`,
//! `requestPermission`, `promptResponse`); docs/formats.md §7 ACP 5.

use serde_json::Value;

/// The kinds an envelope can have.
const KINDS: [&str; 6] = [
    "request",
    "response",
    "notification",
    "sessionUpdate",
    "requestPermission",
    "promptResponse",
];

/// One wrapped frame.
pub(super) struct Envelope<'a> {
    pub kind: &'a str,
    /// The JSON-RPC method; empty in v1 envelopes.
    pub method: &'a str,
    pub payload: &'a Value,
}

impl<'a> Envelope<'a> {
    /// The envelope of a line, or `None` when the line is not one.
    pub(super) fn read(v: &'a Value) -> Option<Envelope<'a>> {
        let kind = v.get("kind")?.as_str().filter(|k| KINDS.contains(k))?;
        let payload = v.get("payload").filter(|p| p.is_object())?;
        let method = match v.get("method") {
            None => "",
            Some(m) => m.as_str()?,
        };
        if v.get("jsonrpc").is_some() {
            return None;
        }
        Some(Envelope {
            kind,
            method,
            payload,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_envelope_versions_are_read_and_nothing_else_is() {
        let v2 = json!({"kind": "notification", "method": "session/update", "payload": {"sessionId": "s"}});
        let e = Envelope::read(&v2).unwrap();
        assert_eq!((e.kind, e.method), ("notification", "session/update"));
        let v1 = json!({"kind": "sessionUpdate", "payload": {"sessionId": "s"}});
        assert_eq!(Envelope::read(&v1).unwrap().method, "");
        for not in [
            json!({"kind": "read", "payload": {}}),
            json!({"kind": "request", "payload": "x"}),
            json!({"kind": "request", "method": 3, "payload": {}}),
            json!({"jsonrpc": "2.0", "kind": "request", "payload": {}}),
            json!({"type": "user", "message": {}}),
        ] {
            assert!(Envelope::read(&not).is_none(), "{not}");
        }
    }
}
