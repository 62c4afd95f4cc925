//! The API paths the client reads (docs/protocol.md §5.1), spelled once: the
//! app fetches them and the server announces some of them with a page
//! (`Link: rel=preload`, [`crate::read::client::preload`]). A preloaded answer is
//! only used by a fetch of the very same URL, so both sides build it here.

use super::request::percent_encode;
use super::MessagesQuery;

/// `GET /api/v1/workflows`.
pub const WORKFLOWS_PATH: &str = "/api/v1/workflows";

/// `GET /api/v1/workflows/{id}/snapshot`.
pub fn snapshot_path(workflow_id: &str) -> String {
    format!("/api/v1/workflows/{}/snapshot", percent_encode(workflow_id))
}

/// `GET /api/v1/tasks/{id}`.
pub fn task_path(task_id: &str) -> String {
    format!("/api/v1/tasks/{}", percent_encode(task_id))
}

/// `GET /api/v1/task-sessions/{sid}/messages`, with the query when it has one.
pub fn messages_path(session_id: &str, query: &MessagesQuery) -> String {
    let path = format!(
        "/api/v1/task-sessions/{}/messages",
        percent_encode(session_id)
    );
    match query.to_query_string() {
        q if q.is_empty() => path,
        q => format!("{path}?{q}"),
    }
}

/// `GET /api/v1/task-sessions/{sid}/turns`.
pub fn turns_path(session_id: &str) -> String {
    format!("/api/v1/task-sessions/{}/turns", percent_encode(session_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::protocol::SortOrder;

    #[test]
    fn ids_are_one_percent_encoded_path_segment() {
        assert_eq!(task_path("task-1"), "/api/v1/tasks/task-1");
        assert_eq!(task_path("a/b c?"), "/api/v1/tasks/a%2Fb%20c%3F");
        assert_eq!(snapshot_path("wf 1"), "/api/v1/workflows/wf%201/snapshot");
        assert_eq!(turns_path("s#1"), "/api/v1/task-sessions/s%231/turns");
    }

    #[test]
    fn a_messages_path_carries_its_query_and_no_stray_separator() {
        let newest = MessagesQuery {
            limit: Some(30),
            sort: Some(SortOrder::Desc),
            ..MessagesQuery::default()
        };
        assert_eq!(
            messages_path("s-1", &newest),
            "/api/v1/task-sessions/s-1/messages?limit=30&sort=desc"
        );
        assert_eq!(
            messages_path("s-1", &MessagesQuery::default()),
            "/api/v1/task-sessions/s-1/messages"
        );
    }
}
