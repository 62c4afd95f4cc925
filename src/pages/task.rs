//! `/task/:task_id` and `/embed/task/:task_id`: the live transcript of a
//! task's primary session (docs/behaviour.md §7). The task is looked up (and kept
//! current) for its title and primary session; the session is then followed
//! and the transcript renders whatever the store holds: live, unless the
//! server says nobody writes the session any more (docs/behaviour.md §8).

use crate::components::board::SubagentCountChip;
use crate::components::connection::LiveConnectionIndicator;
use crate::components::shell::EmptyState;
use crate::first_screen;
use crate::live::board::{use_task, use_task_notice};
use crate::live::fanout::FanOutFrame;
use crate::router::Location;
use crate::sources::sync::{follow_session, follow_task, keep_while_mounted, LoadState, Sources};
use leptos::prelude::*;
use taskview_core::screen::view::board::subagent_chip;
use taskview_core::screen::view::first_screen::task_page_title;

/// The routed task's header and its session's transcript, kept live while
/// mounted.
#[component]
pub fn TaskPage(task_id: String) -> impl IntoView {
    let sources = Sources::from_context();
    let state = ArcRwSignal::new(LoadState::Loading);
    keep_while_mounted(follow_task(&sources, &task_id, state.clone()));
    let task = use_task(task_id.clone());
    // What the task's board says above its columns (a team board: `store unreachable`).
    let notice = use_task_notice(task_id.clone());
    let session = Memo::new(move |_| {
        task.with(|t| t.as_ref().and_then(|t| t.primary_session_id.clone()))
            .filter(|s| !s.is_empty())
    });
    let still =
        Memo::new(move |_| task.with(|t| t.as_ref().is_some_and(|t| t.primary_session_still)));
    let embed = Location::get().is_embed();
    let title = {
        let task_id = task_id.clone();
        move || task.with(|t| task_page_title(&task_id, t.as_ref().map(|t| t.title.as_str())))
    };
    let back = {
        let api = sources.api.clone();
        move || {
            let workflow = task
                .with(|t| t.as_ref().map(|t| t.workflow_id.clone()))
                .filter(|w| !w.is_empty());
            let route = workflow.map_or_else(|| "/".to_string(), |w| format!("/board/{w}"));
            api.link(&remembered_board(route))
        }
    };
    let waiting = {
        let state = state.clone();
        Memo::new(move |_| session.with(Option::is_none).then(|| state.get()))
    };
    // Anything but the transcript (or its loading) ends the server's first screen.
    Effect::new(move |_| {
        if waiting.with(|w| w.as_ref().is_some_and(|s| *s != LoadState::Loading)) {
            first_screen::take_over();
        }
    });
    view! {
        <div class="task-page">
            <div class="page-bar">
                {(!embed).then(|| view! { <a class="back-link" href=back data-testid="back-to-board">"← Board"</a> })}
                <h1 class="page-title" data-testid="task-title">{title}</h1>
                {move || view! { <SubagentCountChip chip=subagent_chip(task.with(|t| t.as_ref().and_then(|t| t.active_subagent_count))) /> }}
                <LiveConnectionIndicator />
            </div>
            {move || notice.get().map(|text| view! {
                <p class="board-notice" role="status" data-testid="task-notice">{text}</p>
            })}
            {move || match waiting.get() {
                None => session.get().map(|session_id| view! { <LiveSession session_id still /> }.into_any()),
                Some(LoadState::Loading) => Some(view! {
                    <p class="loading" role="status">"Loading task…"</p>
                }.into_any()),
                Some(LoadState::Ready) => Some(view! {
                    <EmptyState title="No transcript yet" detail="This task has no session yet; it appears here when one starts." />
                }.into_any()),
                Some(LoadState::NotFound) => Some(view! {
                    <EmptyState title=format!("Task {task_id} not found") detail="The backend has no task with this id." />
                }.into_any()),
                Some(LoadState::Failed(reason)) => Some(view! {
                    <EmptyState title="Could not load the task" detail=reason />
                }.into_any()),
            }}
        </div>
    }
}

/// One session's transcript, followed while mounted; `still` while the
/// server says nobody writes it any more.
#[component]
fn LiveSession(session_id: String, still: Memo<bool>) -> impl IntoView {
    let sources = Sources::from_context();
    let state = ArcRwSignal::new(LoadState::Loading);
    keep_while_mounted(follow_session(&sources, &session_id, state.clone()));
    let live = sources.live.clone();
    Effect::new(move |_| live.set_still(still.get()));
    let problem = Memo::new(move |_| match state.get() {
        LoadState::Failed(reason) => Some(reason),
        LoadState::NotFound => Some("the backend has no such session".into()),
        LoadState::Loading | LoadState::Ready => None,
    });
    Effect::new(move |_| {
        if problem.with(Option::is_some) {
            first_screen::take_over();
        }
    });
    view! {
        {move || problem.get().map(|reason| view! {
            <p class="load-problem" role="status" data-testid="load-problem">"Could not load the transcript: "{reason}</p>
        })}
        <FanOutFrame start_at_end=true />
    }
}

/// The board's URL as the board page left it (its filters), when it is the
/// one `route` names; else `route` (docs/behaviour.md §5: `← Board` returns
/// to the same place).
fn remembered_board(route: String) -> String {
    let stored = window().session_storage().ok().flatten().and_then(|s| {
        s.get_item(crate::pages::board::BOARD_URL_KEY)
            .ok()
            .flatten()
    });
    match stored {
        Some(url) if url.split('?').next() == Some(route.as_str()) => url,
        _ => route,
    }
}
