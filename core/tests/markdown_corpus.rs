//! The safe markdown renderer (docs/behaviour.md §6) over the script-injection corpus
//! shared with the browser test (`e2e/fixtures/xss-vectors.json`): whatever a
//! vector is, the output holds only the tags and attributes markdown itself
//! produces, no event-handler attribute, and no `href`/`src` whose scheme is
//! other than `http`, `https` or `mailto` (relative URLs allowed).

use serde_json::Value;
use taskview_core::screen::markdown::{render, Breaks};

/// `(name, text)` of every vector in the corpus.
fn vectors() -> Vec<(String, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../e2e/fixtures/xss-vectors.json"
    );
    let text = std::fs::read_to_string(path).expect("the corpus file");
    let doc: Value = serde_json::from_str(&text).expect("the corpus is JSON");
    doc["vectors"]
        .as_array()
        .expect("a vectors array")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().expect("a name").to_string(),
                v["text"].as_str().expect("a text").to_string(),
            )
        })
        .collect()
}

/// One tag of the output: its name and attributes (values entity-decoded).
#[derive(Debug)]
struct Tag {
    name: String,
    attributes: Vec<(String, String)>,
}

/// Reads every tag of `html`, failing on anything that is not a plain
/// `<name attr="value">` / `</name>` / `<name />` tag: markdown output escapes
/// every `<` of the source, so any other `<` would be raw markup.
fn tags(html: &str) -> Result<Vec<Tag>, String> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        rest = rest.strip_prefix('/').unwrap_or(rest);
        let name_len = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .ok_or("unterminated tag")?;
        if name_len == 0 {
            return Err(format!("a '<' that opens no tag: {:?}", head(rest)));
        }
        let name = rest[..name_len].to_string();
        rest = &rest[name_len..];
        let mut attributes = Vec::new();
        loop {
            rest = rest.trim_start_matches(' ');
            if let Some(after) = rest.strip_prefix("/>").or_else(|| rest.strip_prefix('>')) {
                rest = after;
                break;
            }
            let attr_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("a malformed attribute in <{name}>: {:?}", head(rest)))?;
            let attr = rest[..attr_len].to_string();
            rest = rest[attr_len..]
                .strip_prefix("=\"")
                .ok_or_else(|| format!("attribute {attr} of <{name}> is not quoted"))?;
            let end = rest.find('"').ok_or("an unterminated attribute value")?;
            attributes.push((attr, decode_entities(&rest[..end])));
            rest = &rest[end + 1..];
        }
        found.push(Tag { name, attributes });
    }
    Ok(found)
}

fn head(s: &str) -> &str {
    let end = s.char_indices().nth(40).map_or(s.len(), |(i, _)| i);
    &s[..end]
}

/// Decodes the character references an attribute value can hold, as a
/// browser does before using it.
fn decode_entities(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest.find(';') else { break };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "quot" => Some('"'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The scheme of a URL the way a browser's URL parser finds it (leading and
/// trailing controls and spaces stripped, tabs and newlines removed), or
/// `None` for a relative URL.
fn scheme(url: &str) -> Option<String> {
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let colon = cleaned.find(':')?;
    let candidate = &cleaned[..colon];
    let mut chars = candidate.chars();
    let is_scheme = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    is_scheme.then(|| candidate.to_ascii_lowercase())
}

/// Why `tag` is not something safe markdown output may hold, if it is not.
fn unsafe_part(tag: &Tag) -> Option<String> {
    const PLAIN: [&str; 20] = [
        "p",
        "br",
        "hr",
        "em",
        "strong",
        "del",
        "pre",
        "blockquote",
        "ul",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "thead",
        "tbody",
        "tr",
    ];
    let allowed: &[&str] = match tag.name.as_str() {
        name if PLAIN.contains(&name) => &[],
        "a" => &["href", "title", "rel", "target"],
        "img" => &["src", "alt", "title"],
        "input" => &["type", "disabled", "checked"],
        "code" => &["class"],
        "ol" => &["start"],
        "th" | "td" => &["style"],
        other => return Some(format!("a <{other}> element")),
    };
    for (attr, value) in &tag.attributes {
        if attr.to_ascii_lowercase().starts_with("on") {
            return Some(format!("an event handler {attr}"));
        }
        if !allowed.contains(&attr.as_str()) {
            return Some(format!("attribute {attr} on <{}>", tag.name));
        }
        let bad = match attr.as_str() {
            "href" | "src" => scheme(value)
                .filter(|s| !["http", "https", "mailto"].contains(&s.as_str()))
                .map(|s| format!("a {s}: URL in {attr}={value:?}")),
            "type" => (value != "checkbox").then(|| format!("input type {value:?}")),
            "class" => (!value.starts_with("language-")).then(|| format!("class {value:?}")),
            "style" => (![
                "text-align: left",
                "text-align: center",
                "text-align: right",
            ]
            .contains(&value.as_str()))
            .then(|| format!("style {value:?}")),
            _ => None,
        };
        if bad.is_some() {
            return bad;
        }
    }
    None
}

/// Every problem with the rendering of `text` in both break modes.
fn problems(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for breaks in [Breaks::Hard, Breaks::Soft] {
        let html = render(text, breaks);
        match tags(&html) {
            Ok(tags) => found.extend(tags.iter().filter_map(unsafe_part)),
            Err(e) => found.push(e),
        }
        if found.is_empty() {
            continue;
        }
        found.push(format!("output ({breaks:?}): {html}"));
        break;
    }
    found
}

#[test]
fn the_corpus_has_at_least_fifty_vectors() {
    assert!(vectors().len() >= 50, "{}", vectors().len());
}

#[test]
fn no_vector_renders_markup_handlers_or_unsafe_urls() {
    let failures: Vec<String> = vectors()
        .iter()
        .filter_map(|(name, text)| {
            let p = problems(text);
            (!p.is_empty()).then(|| format!("{name}: {}", p.join("; ")))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn all_vectors_in_one_document_render_safely() {
    // Reference definitions of one vector can meet the links of another.
    let all: Vec<String> = vectors().into_iter().map(|(_, text)| text).collect();
    for joiner in ["\n\n", "\n", " "] {
        let p = problems(&all.join(joiner));
        assert!(p.is_empty(), "joined with {joiner:?}: {}", p.join("; "));
    }
}

#[test]
fn the_checker_itself_rejects_what_it_must() {
    // The scanner and rules above would catch unsafe output if it appeared.
    let bad = [
        r#"<p onclick="x">"#,
        r#"<a href="javascript:alert(1)">"#,
        r#"<a href="&#106;avascript:alert(1)">"#,
        r#"<a href=" java&#x09;script:x">"#,
        r#"<img src="data:image/svg+xml,x" />"#,
        "<script>",
        "<iframe>",
        "a <b",
        r#"<a href=x>"#,
        r#"<code class="x" >"#,
    ];
    for html in bad {
        let rejected = match tags(html) {
            Ok(tags) => tags.iter().any(|t| unsafe_part(t).is_some()),
            Err(_) => true,
        };
        assert!(rejected, "{html}");
    }
    let good = r#"<p><a href="https://e.com/?a=1&amp;b=2" rel="noopener noreferrer" target="_blank">x</a> <a href="docs/x.md">y</a> <img src="p.png" alt="z" /><br /><code class="language-rust">c</code></p>"#;
    let tags = tags(good).unwrap();
    assert!(tags.iter().all(|t| unsafe_part(t).is_none()), "{tags:?}");
}
