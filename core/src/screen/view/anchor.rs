//! Row anchors (docs/behaviour.md §4): the element id a message's row carries, and the
//! message a location hash names, for deep links.

/// The element id of a message's row (docs/behaviour.md §4 anchors): `msg-<id>`.
pub fn anchor_id(message_id: &str) -> String {
    format!("msg-{message_id}")
}

/// The message id named by a location hash (`#msg-<id>`), still URL-encoded.
pub fn anchor_target(hash: &str) -> Option<&str> {
    hash.strip_prefix("#msg-").filter(|id| !id.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_msg_dash_id_and_a_hash_names_its_target() {
        assert_eq!(anchor_id("m13"), "msg-m13");
        assert_eq!(anchor_target("#msg-m13"), Some("m13"));
        assert_eq!(anchor_target("#msg-"), None);
        assert_eq!(anchor_target("#other"), None);
    }
}
