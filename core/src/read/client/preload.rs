//! The reads a task page makes first, known from its URL (docs/behaviour.md §10): the
//! server announces them with the page (`Link: <…>; rel=preload; as=fetch;
//! crossorigin`) so they travel with the app's files instead of after them,
//! and the app reads them at once as a preview, to show the task and one
//! screen of its newest messages before its socket subscribes.
//!
//! A preview is read before the subscription, so it may miss what happened
//! meanwhile: the subscribed read that follows is the one that misses
//! nothing. Two rules keep it so:
//! - a preview lands only until the follow's own read takes its first
//!   answer ([`Landing`]); after that, it may be older than what that read
//!   brings. One that lands after that read began starts the read over (no
//!   page was taken yet), so the read decides about the preview's messages
//!   too: newer copies win, and what the server no longer has is deleted;
//! - the preview's page is never a query of the subscribed read
//!   ([`preview_query`] is not [`SessionRefetch`]'s first page), so a
//!   preload made before the subscription can never answer that read (a
//!   browser hands a preloaded response to the first fetch of its URL).

#[cfg(doc)]
use super::refetch::SessionRefetch;
use crate::read::protocol::{messages_path, task_path, MessagesQuery, SortOrder};
use crate::read::route::{Page, Route};

/// The task a page shows when its first reads come from this origin:
/// `/task/:id` and `/embed/task/:id`, unless `?api=` points the app at
/// another backend (whose answers this server does not have). `path` is the
/// URL path with its percent-encoding, `query` the query string without `?`.
pub fn task_route(path: &str, query: &str) -> Option<String> {
    let reads_elsewhere = query
        .split('&')
        .any(|pair| pair.strip_prefix("api=").is_some_and(|v| !v.is_empty()));
    match Route::of(path).page {
        Page::Task(id) if !reads_elsewhere => Some(id),
        _ => None,
    }
}

/// Messages in a preview: one screen (20-30 rows at most, and messages
/// gather into groups and cards).
pub const PREVIEW_PAGE_SIZE: u32 = 30;

/// The preview's page: the newest [`PREVIEW_PAGE_SIZE`] messages.
pub fn preview_query() -> MessagesQuery {
    MessagesQuery {
        limit: Some(PREVIEW_PAGE_SIZE),
        sort: Some(SortOrder::Desc),
        ..MessagesQuery::default()
    }
}

/// The paths a task page previews, in order: the task, then the newest
/// messages of its primary session (when it has one).
pub fn task_page_reads(task_id: &str, primary_session: Option<&str>) -> Vec<String> {
    let mut reads = vec![task_path(task_id)];
    if let Some(session) = primary_session.filter(|s| !s.is_empty()) {
        reads.push(messages_path(session, &preview_query()));
    }
    reads
}

/// Which previews a page takes: the task its route names, once, then one
/// screen of that task's session, once. Later follows (another task, a
/// reconnect) read as usual; so does a page whose server announced nothing.
#[derive(Clone, Debug, Default)]
pub struct Previews {
    task: Option<String>,
    task_taken: bool,
    session_taken: bool,
}

impl Previews {
    /// The previews of the page at `path` and `query` ([`task_route`]).
    pub fn for_page(path: &str, query: &str) -> Previews {
        Previews {
            task: task_route(path, query),
            ..Previews::default()
        }
    }

    /// Whether a follow of `task_id` previews the task: the first one, of
    /// the route's task.
    pub fn take_task(&mut self, task_id: &str) -> bool {
        let take = !self.task_taken && self.task.as_deref() == Some(task_id);
        self.task_taken |= take;
        take
    }

    /// Whether a session follow previews its newest messages: the first one
    /// after the task was previewed (the page follows its primary session).
    pub fn take_session(&mut self) -> bool {
        let take = self.task_taken && !self.session_taken;
        self.session_taken |= take;
        take
    }
}

/// Where one follow's own read is, for its preview (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Landing {
    /// Not begun: a preview is shown.
    #[default]
    Waiting,
    /// Begun, no answer taken: a preview is shown and the read starts over.
    Begun,
    /// An answer taken, or the follow stopped: a preview is dropped.
    Answered,
}

/// What to do with a preview's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Land {
    Show,
    ShowAndRestart,
    Drop,
}

impl Landing {
    /// The follow's own read begins (a session read started).
    pub fn read_begins(&mut self) {
        if *self == Landing::Waiting {
            *self = Landing::Begun;
        }
    }

    /// The follow's own read took an answer, or the follow stopped.
    pub fn read_answers(&mut self) {
        *self = Landing::Answered;
    }

    /// What a preview's answer arriving now does.
    pub fn land(self) -> Land {
        match self {
            Landing::Waiting => Land::Show,
            Landing::Begun => Land::ShowAndRestart,
            Landing::Answered => Land::Drop,
        }
    }
}

/// The `Link` header value that announces `paths` as fetches the page makes
/// (same origin, default credentials: what a plain `fetch(path)` asks for).
pub fn link_header(paths: &[String]) -> String {
    paths
        .iter()
        .map(|path| format!("<{path}>; rel=preload; as=fetch; crossorigin"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::client::refetch::SessionRefetch;

    #[test]
    fn task_routes_name_their_task_unless_the_app_reads_another_backend() {
        assert_eq!(task_route("/task/t-1", ""), Some("t-1".into()));
        assert_eq!(task_route("/embed/task/t-1", "debug"), Some("t-1".into()));
        assert_eq!(task_route("/task/a%20b", ""), Some("a b".into()));
        assert_eq!(task_route("/task/t-1/", ""), Some("t-1".into()));
        assert_eq!(
            task_route("/task/t-1", "x=1&api=http%3A%2F%2Fh"),
            None,
            "?api= reads elsewhere"
        );
        assert_eq!(task_route("/task/t-1", "api="), Some("t-1".into()));
        for other in ["/", "/board/wf", "/view", "/task/", "/task/a/b", "/tasks/x"] {
            assert_eq!(task_route(other, ""), None, "{other}");
        }
        assert_eq!(task_route("/task/%ff", ""), None, "not UTF-8");
    }

    #[test]
    fn a_task_page_reads_its_task_then_the_newest_page_of_its_session() {
        assert_eq!(
            task_page_reads("t 1", Some("s-1")),
            vec![
                "/api/v1/tasks/t%201".to_string(),
                format!("/api/v1/task-sessions/s-1/messages?limit={PREVIEW_PAGE_SIZE}&sort=desc"),
            ]
        );
        assert_eq!(task_page_reads("t", None), vec!["/api/v1/tasks/t"]);
        assert_eq!(task_page_reads("t", Some("")), vec!["/api/v1/tasks/t"]);
    }

    #[test]
    fn the_link_header_announces_each_read_as_a_cors_fetch() {
        let reads = task_page_reads("t", Some("s"));
        assert_eq!(
            link_header(&reads),
            format!(
                "</api/v1/tasks/t>; rel=preload; as=fetch; crossorigin, \
                 </api/v1/task-sessions/s/messages?limit={PREVIEW_PAGE_SIZE}&sort=desc>; \
                 rel=preload; as=fetch; crossorigin"
            )
        );
    }

    #[test]
    fn a_preview_is_never_a_query_of_the_subscribed_read() {
        let read = SessionRefetch::new("s");
        let first = read.next_query().unwrap();
        assert_ne!(first, preview_query(), "the newest page");
        assert_ne!(
            messages_path("s", &first),
            messages_path("s", &preview_query())
        );
        // Every later page ends before a message: never the preview either.
        assert!(preview_query().before.is_none());
    }

    #[test]
    fn a_page_previews_its_routes_task_once_then_that_tasks_session_once() {
        let mut previews = Previews::for_page("/task/t-1", "debug");
        assert!(!previews.take_session(), "not before the task");
        assert!(!previews.take_task("t-2"), "another task");
        assert!(previews.take_task("t-1"));
        assert!(!previews.take_task("t-1"), "once");
        assert!(previews.take_session());
        assert!(!previews.take_session(), "once");
        let mut board = Previews::for_page("/board/wf", "");
        assert!(!board.take_task("t-1"));
        assert!(!board.take_session());
        let mut elsewhere = Previews::for_page("/task/t-1", "api=http%3A%2F%2Fh");
        assert!(!elsewhere.take_task("t-1"), "the server announced nothing");
    }

    #[test]
    fn a_preview_lands_until_the_follows_own_read_takes_an_answer() {
        let mut landing = Landing::default();
        assert_eq!(landing.land(), Land::Show);
        landing.read_begins();
        assert_eq!(landing.land(), Land::ShowAndRestart, "no page taken yet");
        landing.read_answers();
        assert_eq!(landing.land(), Land::Drop);
        landing.read_begins();
        assert_eq!(landing.land(), Land::Drop, "a later read changes nothing");
    }
}
