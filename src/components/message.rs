//! Plain transcript rows (docs/behaviour.md §4), one per `MessageView` variant.

use crate::components::markdown::{Markdown, TextBlock};
use crate::components::spill::{SpillChip, SpillSource, TruncatedMarker};
use leptos::prelude::*;
use taskview_core::model::status::RunState;
use taskview_core::screen::view::message::{
    author_label, exit_code_failed, output_label, MessageView, TodoItem, ToolHead,
};
use taskview_core::screen::view::row::{MessageRowView, UnreadableRowView};

/// One message as a full row: anchor id, test id and its kind's renderer.
#[component]
pub fn MessageRow(
    /// The row as core lays it out.
    row: MessageRowView,
) -> impl IntoView {
    let MessageRowView {
        anchor,
        type_name,
        view,
        highlighted,
        spill,
        spill_source,
        truncated,
    } = row;
    view! {
        <div
            class=format!("row row-{type_name}")
            class:search-hit=highlighted
            id=anchor
            data-testid=format!("message-{type_name}")
            data-search-hit=highlighted.then_some("true")
        >
            <MessageBody view_model=view />
            {truncated.then(|| view! { <TruncatedMarker /> })}
            {spill.map(|spill| view! { <SpillChip spill /> })}
            {spill_source.map(|source| view! { <SpillSource source /> })}
        </div>
    }
}

/// The body of a row, by kind.
#[component]
pub fn MessageBody(view_model: MessageView) -> impl IntoView {
    match view_model {
        MessageView::Text { author, markdown } => view! {
            <div class=format!("bubble bubble-{}", author.as_str())>
                <div class="bubble-author">{author_label(author)}</div>
                <Markdown text=markdown />
            </div>
        }
        .into_any(),
        MessageView::Thinking { text, collapsed } => {
            view! { <Thinking text collapsed /> }.into_any()
        }
        MessageView::Read {
            tool,
            path,
            range,
            output,
        } => view! {
            <ToolCard tool kind="read">
                <div class="tool-line"><code class="path">{path}</code>
                    {range.map(|r| view! { <span class="muted">" · "{r}</span> })}
                </div>
                {output.map(|o| view! { <Output text=o /> })}
            </ToolCard>
        }
        .into_any(),
        MessageView::Edit { tool, path, diff } => view! {
            <ToolCard tool kind="edit">
                <div class="tool-line"><code class="path">{path}</code></div>
                {diff.map(|d| view! { <TextBlock text=d class="diff" /> })}
            </ToolCard>
        }
        .into_any(),
        MessageView::Execute {
            tool,
            command,
            exit_code,
            output,
        } => view! {
            <ToolCard tool kind="execute">
                <div class="tool-line"><code class="command">"$ "{command}</code>
                    {exit_code.map(|c| view! {
                        <span class="exit-code" class:nonzero=exit_code_failed(c)>"exit "{c}</span>
                    })}
                </div>
                {output.map(|o| view! { <Output text=o /> })}
            </ToolCard>
        }
        .into_any(),
        MessageView::Search { tool, query, hits } => view! {
            <ToolCard tool kind="search">
                <div class="tool-line"><code>{query}</code>
                    {hits.map(|h| view! { <span class="muted">" · "{h}</span> })}
                </div>
            </ToolCard>
        }
        .into_any(),
        MessageView::Tool { tool, output } => view! {
            <ToolCard tool kind="generic">{output.map(|o| view! { <Output text=o /> })}</ToolCard>
        }
        .into_any(),
        MessageView::Todo { items } => view! { <TodoList items /> }.into_any(),
        MessageView::Request {
            kind,
            question,
            state,
            options,
        } => view! {
            <div class="request">
                <div class="request-head"><strong>{kind.label()}</strong>
                    <span class="badge">{state}</span></div>
                <Markdown text=question />
                {(!options.is_empty()).then(|| view! {
                    <ul class="request-options">
                        {options.into_iter().map(|o| view! { <li>{o}</li> }).collect_view()}
                    </ul>
                })}
            </div>
        }
        .into_any(),
        MessageView::Status { text, is_error } => view! {
            <div class="status-line" class:error=is_error role=is_error.then_some("alert")>
                {is_error.then_some("Error: ")}{text}
            </div>
        }
        .into_any(),
        MessageView::SessionEvent {
            event,
            text,
            detail,
        } => view! { <SessionEventLine event text detail /> }.into_any(),
        MessageView::Unknown { type_name, text } => view! {
            <div class="unknown-row">
                <span class="badge">{type_name}</span>
                <TextBlock text />
            </div>
        }
        .into_any(),
    }
}

/// A quiet session event row (docs/behaviour.md §4), its detail (markdown, through
/// the safe renderer) behind a disclosure when it has one.
#[component]
fn SessionEventLine(event: String, text: String, detail: Option<String>) -> impl IntoView {
    match detail {
        Some(detail) => view! {
            <details class="status-line session-event" data-event=event>
                <summary>{text}</summary>
                <Markdown text=detail />
            </details>
        }
        .into_any(),
        None => view! {
            <div class="status-line session-event" data-event=event>{text}</div>
        }
        .into_any(),
    }
}

/// A tool call: a head line with title and state, then its details.
#[component]
fn ToolCard(tool: ToolHead, kind: &'static str, children: Children) -> impl IntoView {
    let icon = if tool.interrupted {
        view! { <span class="icon icon-interrupted" aria-hidden="true">"–"</span> }.into_any()
    } else {
        view! { <RunStateIcon state=tool.state /> }.into_any()
    };
    view! {
        <div class=format!("tool tool-{kind}") data-state=tool.state_name()>
            <div class="tool-head">
                {icon}
                <span class="tool-title">{tool.title.clone()}</span>
                <span class="tool-state">{tool.state_text()}</span>
            </div>
            {children()}
        </div>
    }
}

/// A state icon with a text alternative: spinner while running.
#[component]
pub fn RunStateIcon(state: RunState) -> impl IntoView {
    match state {
        RunState::Running => {
            view! { <span class="spinner" role="status" aria-label="Running"></span> }.into_any()
        }
        RunState::Complete => {
            view! { <span class="icon icon-ok" aria-hidden="true">"✓"</span> }.into_any()
        }
        RunState::Failed => {
            view! { <span class="icon icon-failed" aria-hidden="true">"✕"</span> }.into_any()
        }
        RunState::Cancelled => {
            view! { <span class="icon icon-cancelled" aria-hidden="true">"–"</span> }.into_any()
        }
        RunState::Settled => view! { <span class="icon" aria-hidden="true">"•"</span> }.into_any(),
    }
}

/// Tool output, closed by default.
#[component]
fn Output(text: String) -> impl IntoView {
    view! {
        <details class="tool-output">
            <summary>{output_label(&text)}</summary>
            <TextBlock text />
        </details>
    }
}

/// Thinking: inline when short, a disclosure when long; nothing when empty.
#[component]
fn Thinking(text: String, collapsed: bool) -> impl IntoView {
    if text.trim().is_empty() {
        return ().into_any();
    }
    if collapsed {
        view! {
            <details class="thinking">
                <summary>"Thinking"</summary>
                <Markdown text />
            </details>
        }
        .into_any()
    } else {
        view! { <div class="thinking thinking-inline"><span class="muted">"Thinking · "</span>{text}</div> }
            .into_any()
    }
}

/// A checklist.
#[component]
fn TodoList(items: Vec<TodoItem>) -> impl IntoView {
    view! {
        <ul class="todo-list" aria-label="Todo list">
            {items.into_iter().map(|item| view! {
                <li class:done=item.done>
                    <span aria-hidden="true">{if item.done { "☑ " } else { "☐ " }}</span>
                    <span class="visually-hidden">{if item.done { "done: " } else { "open: " }}</span>
                    {item.text}
                </li>
            }).collect_view()}
        </ul>
    }
}

/// A message that could not be read: the reason and the raw text, kept in place.
#[component]
pub fn UnreadableRow(
    /// The row as core lays it out.
    row: UnreadableRowView,
) -> impl IntoView {
    view! {
        <div class="row unreadable" id=row.anchor data-testid="unreadable-message" role="note">
            <div class="unreadable-head"><strong>"Unreadable message"</strong>" — "{row.error}</div>
            <TextBlock text=row.raw />
        </div>
    }
}
