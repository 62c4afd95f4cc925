//! Reading ACP values: content blocks, tool content, diffs, raw outputs and
//! the Claude adapter's `_meta.claudeCode`.

use super::super::subagent_fold::join_text_blocks;
use super::super::tool::FileDiff;
use crate::model::message::str_at;
use serde_json::Value;

/// A `_meta.claudeCode.<key>` string, when non-empty.
pub(super) fn claude_meta(u: &Value, key: &str) -> Option<String> {
    u.get("_meta")?
        .get("claudeCode")?
        .get(key)?
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A JSON-RPC id (or tool-call id) as a string: strings and numbers.
pub(super) fn rpc_id(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub(super) fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// The readable text of one ACP `ContentBlock`.
pub(super) fn content_block_text(block: &Value) -> String {
    match block.get("type").and_then(Value::as_str).unwrap_or("") {
        "text" => str_at(block, "text"),
        "image" => "[image]".into(),
        "audio" => "[audio]".into(),
        "resource_link" => {
            let name = str_at(block, "name");
            if name.is_empty() {
                str_at(block, "uri")
            } else {
                name
            }
        }
        "resource" => block
            .get("resource")
            .map(|r| {
                let text = str_at(r, "text");
                if text.is_empty() {
                    str_at(r, "uri")
                } else {
                    text
                }
            })
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The text of a list of content blocks (a prompt, a v2 `user_message`),
/// one line per block with text; a single block is read too.
pub(super) fn blocks_text(content: &Value) -> String {
    match content {
        Value::Array(blocks) => blocks
            .iter()
            .map(content_block_text)
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        block => content_block_text(block),
    }
}

/// Text the adapter wrapped in one code fence (a failed subagent's displayed
/// content, docs/formats.md §7 ACP 3) without the fence; other text unchanged.
pub(super) fn unfenced(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(body) = trimmed
        .strip_prefix("```")
        .and_then(|t| t.strip_suffix("```"))
    else {
        return text;
    };
    match body.split_once('\n') {
        // The opening line may name a language; the body keeps its lines.
        Some((_, inner)) if !inner.contains("```") => inner.trim_end_matches(['\n', '\r']),
        _ => text,
    }
}

/// Standard base64 (terminal output of protocol v2); `None` when `text` is
/// not base64. Padding is optional, whitespace is skipped.
pub(super) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The text of a tool call's `content` entries of type `content`.
pub(super) fn tool_content_text(content: &[Value]) -> String {
    content
        .iter()
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("content"))
        .filter_map(|c| c.get("content"))
        .map(content_block_text)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `{type:"diff", path, oldText?, newText}` content entry.
pub(super) fn diff_of(c: &Value) -> Option<FileDiff> {
    if c.get("type").and_then(Value::as_str) != Some("diff") {
        return None;
    }
    Some(FileDiff {
        path: str_at(c, "path"),
        old_text: c.get("oldText").and_then(Value::as_str).map(str::to_string),
        new_text: c.get("newText")?.as_str()?.to_string(),
    })
}

/// `rawOutput` as text: a string as is, an array of text blocks joined, any
/// other value as compact JSON.
pub(super) fn output_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(_) => join_text_blocks(v),
        other => other.to_string(),
    }
}

/// The output text inside a Claude `toolResponse` of an ordinary tool.
pub(super) fn response_output(r: &Value) -> Option<String> {
    match r {
        Value::String(s) => Some(s.clone()),
        _ => ["content", "stdout", "output"]
            .iter()
            .find_map(|k| r.get(*k).and_then(Value::as_str))
            .map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resource_links_and_media_have_readable_text() {
        assert_eq!(
            content_block_text(&json!({"type": "resource_link", "uri": "file:///a", "name": "a"})),
            "a"
        );
        assert_eq!(
            content_block_text(&json!({"type": "image", "data": ""})),
            "[image]"
        );
        assert_eq!(
            content_block_text(&json!({"type": "resource", "resource": {"uri": "u", "text": "t"}})),
            "t"
        );
        assert_eq!(content_block_text(&json!({"type": "mystery"})), "");
    }

    #[test]
    fn raw_output_may_be_a_string_an_array_or_an_object() {
        assert_eq!(output_text(&json!("x")), "x");
        assert_eq!(
            output_text(&json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])),
            "a\nb"
        );
        assert_eq!(output_text(&json!({"exit": 0})), r#"{"exit":0}"#);
    }

    #[test]
    fn terminal_output_is_decoded_from_base64() {
        assert_eq!(decode_base64("eC50cw==").unwrap(), b"x.ts");
        assert_eq!(
            decode_base64("bWFrZTogKioqIEVycm9yIDI=").unwrap(),
            b"make: *** Error 2"
        );
        assert_eq!(decode_base64("aGk").unwrap(), b"hi");
        assert_eq!(decode_base64("not base64!"), None);
    }

    #[test]
    fn a_fenced_failure_text_is_unwrapped_and_other_text_kept() {
        assert_eq!(
            unfenced("```\nThe build still fails.\n```"),
            "The build still fails."
        );
        assert_eq!(unfenced("```console\nx\ny\n```\n"), "x\ny");
        assert_eq!(unfenced("plain"), "plain");
        assert_eq!(unfenced("```a```"), "```a```");
        assert_eq!(
            unfenced("```\na\n```\nmid\n```\nb\n```"),
            "```\na\n```\nmid\n```\nb\n```"
        );
    }
}
