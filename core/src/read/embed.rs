//! The embed contract (docs/behaviour.md §9, docs/embedding.md): what a host page may
//! ask of an `/embed/...` page, what the page tells its host, and whether a
//! message is obeyed. Pure functions; the DOM glue is the app's `embed` module.
//!
//! Every message is an object `{taskview: 1, type: …}`. To the host: `ready`,
//! `resize {height}`, `navigate {id, kind, link}`. From the host: `append
//! {messages}`, `theme {theme: light | dark | auto}`, `reveal {id}`. The
//! unversioned `{taskview: "append", messages}` of the first contract is
//! still read as `append`.

use serde_json::{json, Value};

/// The contract's version, the value of the `taskview` field.
pub const VERSION: u64 = 1;

/// The `<meta name>` whose `content` lists the origins an embed obeys
/// (space separated), written into the page by `taskview serve --embed-origin`.
pub const ORIGINS_META: &str = "taskview-embed-origins";

/// The page's colour scheme as a host sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
    /// The reader's system preference (`prefers-color-scheme`).
    Auto,
}

impl Theme {
    /// The `data-theme` value on `<html>`; `None` for `auto`.
    pub fn attribute(self) -> Option<&'static str> {
        match self {
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
            Theme::Auto => None,
        }
    }
}

/// A message from the host, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Inbound {
    /// Messages to append: the whole request, a kandev message list.
    Append(Value),
    Theme(Theme),
    /// Open whatever contains message `id` and scroll to it.
    Reveal(String),
    /// A versioned message of a type this page does not know, or a known
    /// type with fields of the wrong shape: ignored and counted.
    Unknown,
    /// Not a taskview message at all (other scripts' traffic): ignored.
    Foreign,
}

/// Reads a message's data.
pub fn parse(data: &Value) -> Inbound {
    match data.get("taskview") {
        Some(Value::String(legacy)) if legacy == "append" => Inbound::Append(data.clone()),
        Some(version) if version.as_u64() == Some(VERSION) => parse_v1(data),
        Some(_) => Inbound::Unknown,
        None => Inbound::Foreign,
    }
}

fn parse_v1(data: &Value) -> Inbound {
    let text = |field: &str| data.get(field).and_then(Value::as_str);
    match text("type") {
        Some("append") if data.get("messages").is_some_and(Value::is_array) => {
            Inbound::Append(data.clone())
        }
        Some("theme") => match text("theme") {
            Some("light") => Inbound::Theme(Theme::Light),
            Some("dark") => Inbound::Theme(Theme::Dark),
            Some("auto") => Inbound::Theme(Theme::Auto),
            _ => Inbound::Unknown,
        },
        Some("reveal") => match text("id") {
            Some(id) if !id.is_empty() => Inbound::Reveal(id.to_string()),
            _ => Inbound::Unknown,
        },
        _ => Inbound::Unknown,
    }
}

/// Where a message came from, as the page sees its `source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sender {
    /// The page's own window.
    Itself,
    /// The window that frames the page.
    Parent,
    /// Any other window (a child frame, an opener, a popup).
    Other,
}

/// Why a message was not obeyed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ignored {
    /// Sent by a window that is neither the page nor its parent.
    NotParent,
    /// Sent from an origin outside the allow-list.
    Origin,
    /// A versioned message this page does not understand.
    Unknown,
}

/// The origins an embed obeys and posts to: its own, plus the operator's
/// (`--embed-origin`). An entry may have a `*.` host prefix and a `*` port,
/// as in CSP `frame-ancestors`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList {
    own: String,
    extra: Vec<String>,
}

impl AllowList {
    /// The page's own origin plus the space-separated `listed` origins.
    pub fn new(own: &str, listed: &str) -> AllowList {
        AllowList {
            own: own.to_ascii_lowercase(),
            extra: listed
                .split_ascii_whitespace()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                .collect(),
        }
    }

    /// Whether `origin` (a serialized origin such as `https://a.example:8443`)
    /// is the page's own or matches a listed one.
    pub fn allows(&self, origin: &str) -> bool {
        let origin = origin.to_ascii_lowercase();
        origin != "null" && (origin == self.own || self.extra.iter().any(|p| matches(p, &origin)))
    }
}

/// `scheme://host[:port]` split into its parts; the port is `None` when absent.
fn split(origin: &str) -> Option<(&str, &str, Option<&str>)> {
    let (scheme, rest) = origin.split_once("://")?;
    match rest.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && !host.is_empty() => {
            Some((scheme, host, Some(port)))
        }
        _ => Some((scheme, rest, None)),
    }
}

/// Whether `origin` matches the allow-list entry `pattern`.
fn matches(pattern: &str, origin: &str) -> bool {
    let (Some((ps, ph, pp)), Some((s, h, p))) = (split(pattern), split(origin)) else {
        return false;
    };
    let host_ok = match ph.strip_prefix("*.") {
        Some(suffix) => h.len() > suffix.len() + 1 && h.ends_with(&format!(".{suffix}")),
        None => ph == h,
    };
    let port_ok = pp == Some("*") || pp == p;
    ps == s && host_ok && port_ok
}

/// Whether a message from `origin`, sent by `sender`, is obeyed; a message
/// that is not a taskview one never reaches here (see [`parse`]).
pub fn decide(
    inbound: &Inbound,
    sender: Sender,
    origin: &str,
    allow: &AllowList,
) -> Result<(), Ignored> {
    if sender == Sender::Other {
        return Err(Ignored::NotParent);
    }
    if !allow.allows(origin) {
        return Err(Ignored::Origin);
    }
    if *inbound == Inbound::Unknown {
        return Err(Ignored::Unknown);
    }
    Ok(())
}

/// The exact origin to post to the host with: the framing page's origin
/// (`location.ancestorOrigins[0]`, else the referrer's), when the allow-list
/// has it. `None` (post nothing) otherwise: never `*`.
pub fn host_target(parent_origin: Option<&str>, allow: &AllowList) -> Option<String> {
    let origin = parent_origin?.trim_end_matches('/').to_ascii_lowercase();
    allow.allows(&origin).then_some(origin)
}

/// The origin (`scheme://host[:port]`) of an absolute URL such as a referrer.
pub fn origin_of(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (!scheme.is_empty() && end > 0).then(|| &url[..scheme.len() + 3 + end])
}

/// `ready`: the page is listening.
pub fn ready() -> Value {
    json!({"taskview": VERSION, "type": "ready"})
}

/// `resize`: the page's content height in CSS pixels, rounded up.
pub fn resize(height: f64) -> Value {
    json!({"taskview": VERSION, "type": "resize", "height": height.max(0.0).ceil()})
}

/// Whether a measured content height is worth a `resize` (it changed by a
/// pixel or more since the last one sent).
pub fn resize_due(last_sent: Option<f64>, height: f64) -> bool {
    height.is_finite() && last_sent.is_none_or(|last| (last - height.ceil()).abs() >= 1.0)
}

/// `navigate`: the reader opened row `id` (`kind`: `card` or `group`);
/// `link` is its deep link.
pub fn navigate(id: &str, kind: &str, link: &str) -> Value {
    json!({"taskview": VERSION, "type": "navigate", "id": id, "kind": kind, "link": link})
}

/// The deep link to message `id` from the embed page at `href`: the same page
/// without `/embed` (the full app), with `#msg-<id>`.
pub fn deep_link(href: &str, id: &str) -> String {
    let base = href.split('#').next().unwrap_or(href);
    let full = match origin_of(base) {
        Some(origin) => {
            let path = &base[origin.len()..];
            let path = match path.strip_prefix("/embed") {
                Some(rest) if rest.is_empty() || rest.starts_with(['/', '?']) => {
                    if rest.is_empty() || rest.starts_with('?') {
                        format!("/{rest}")
                    } else {
                        rest.to_string()
                    }
                }
                _ => path.to_string(),
            };
            format!("{origin}{path}")
        }
        None => base.to_string(),
    };
    let encoded: String = id
        .chars()
        .map(|c| match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '-' | '_' | '.' | '~' => c.to_string(),
            c => c.to_string().bytes().map(|b| format!("%{b:02X}")).collect(),
        })
        .collect();
    format!("{full}#msg-{encoded}")
}

#[cfg(test)]
mod tests;
