//! Which page an app URL shows (docs/behaviour.md §7 "Routes"), decided once: the
//! app's router renders it and the server announces a task page's first
//! reads from it (`client::preload`).
//!
//! | path | page |
//! |---|---|
//! | `/`, `/board/:workflow_id` | [`Page::Board`] |
//! | `/task/:task_id` | [`Page::Task`] |
//! | `/view` | [`Page::View`] |
//!
//! Each also under `/embed` (`/embed` alone is the first board), without
//! the app's chrome. Ids are one percent-encoded path segment; a trailing
//! slash is allowed.

/// A page of the app.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Page {
    /// A board: the named workflow's, else the first one.
    Board(Option<String>),
    /// A task's live transcript.
    Task(String),
    /// A transcript file (`?src=`, a picked or dropped file).
    View,
    /// No page: the app shows "not found" (or an exported page's file view).
    Unknown,
}

/// A URL path as the app reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub page: Page,
    /// Under `/embed`: no app chrome (docs/behaviour.md §9).
    pub embed: bool,
}

impl Route {
    /// The route of `path` (the URL's path, still percent-encoded).
    pub fn of(path: &str) -> Route {
        let (embed, rest) = match path.strip_prefix("/embed") {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => (true, rest),
            _ => (false, path),
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let segments: Vec<&str> = rest.split('/').skip(1).collect();
        let id = |segment: &str| percent_decode(segment).filter(|id| !id.is_empty());
        let page = match segments.as_slice() {
            [] => Page::Board(None),
            ["board", workflow] => id(workflow).map_or(Page::Unknown, |w| Page::Board(Some(w))),
            ["task", task] => id(task).map_or(Page::Unknown, Page::Task),
            ["view"] => Page::View,
            _ => Page::Unknown,
        };
        Route { page, embed }
    }
}

/// `%XX` sequences decoded; `None` when they do not make UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|b| char::from(*b).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(path: &str) -> (Page, bool) {
        let route = Route::of(path);
        (route.page, route.embed)
    }

    #[test]
    fn every_route_of_spec_section_7_and_its_embed_form() {
        let board = |w: &str| Page::Board(Some(w.to_string()));
        for (path, expected) in [
            ("/", (Page::Board(None), false)),
            ("/board/wf-1", (board("wf-1"), false)),
            ("/task/t-1", (Page::Task("t-1".into()), false)),
            ("/view", (Page::View, false)),
            ("/embed", (Page::Board(None), true)),
            ("/embed/", (Page::Board(None), true)),
            ("/embed/board/wf-1", (board("wf-1"), true)),
            ("/embed/task/t-1", (Page::Task("t-1".into()), true)),
            ("/embed/view", (Page::View, true)),
        ] {
            assert_eq!(page(path), expected, "{path}");
        }
    }

    #[test]
    fn ids_are_one_decoded_segment_and_a_trailing_slash_is_allowed() {
        assert_eq!(page("/task/a%20b%2Fc").0, Page::Task("a b/c".into()));
        assert_eq!(page("/task/t-1/").0, Page::Task("t-1".into()));
        assert_eq!(page("/task/%E2%9C%93").0, Page::Task("✓".into()));
        assert_eq!(page("/task/100%").0, Page::Task("100%".into()), "a lone %");
    }

    #[test]
    fn anything_else_is_no_page() {
        for path in [
            "/task",
            "/task/",
            "/task/a/b",
            "/board",
            "/tasks/x",
            "/view/x",
            "/embedded",
            "/embed/x",
            "/e2e/notes.json",
            "/task/%ff",
        ] {
            assert_eq!(page(path).0, Page::Unknown, "{path}");
        }
        assert!(!Route::of("/embedded").embed);
    }
}
