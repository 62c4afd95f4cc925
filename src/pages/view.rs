//! `/view?src=<url>` and `/embed/view?src=<url>`: a transcript from a file, by
//! URL, file picker or drag and drop. The dialect is detected from content.

use crate::components::shell::EmptyState;
use crate::live::transcript::LiveTranscript;
use crate::live::Live;
use crate::sources::file::read_file;
use crate::sources::http::get_text;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use taskview_core::event::Event;
use taskview_core::import::import_any;

/// Where the loaded transcript came from, and how it went.
#[derive(Clone, Debug, PartialEq)]
enum LoadState {
    Empty,
    Loading(String),
    Loaded { source: String, dialect: String },
    Failed { source: String, reason: String },
}

/// What the page's main area shows.
#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Empty,
    Failed { source: String, reason: String },
    Transcript,
}

/// Imports `text` into the store, replacing what was shown.
fn load_text(live: &Live, source: String, text: &str) -> LoadState {
    match import_any(text) {
        Ok(import) => {
            let opened = Event::TranscriptOpened { session_id: None };
            live.apply(std::iter::once(opened).chain(import.events));
            LoadState::Loaded {
                source,
                dialect: import.dialect.name().to_string(),
            }
        }
        Err(e) => LoadState::Failed {
            source,
            reason: e.to_string(),
        },
    }
}

/// The file view: a source bar (picker, drop zone, status) above the transcript.
#[component]
pub fn FileViewPage() -> impl IntoView {
    let live = expect_context::<Live>();
    let query = use_query_map();
    let state = RwSignal::new(LoadState::Empty);
    crate::sources::post_message::listen(live.clone(), move || {
        if state.get_untracked() == LoadState::Empty {
            state.set(LoadState::Loaded {
                source: "pushed by the host page".into(),
                dialect: "kandev message list".into(),
            });
        }
    });

    {
        let live = live.clone();
        Effect::new(move |_| {
            let Some(src) = query.read().get("src").filter(|s| !s.trim().is_empty()) else {
                return;
            };
            state.set(LoadState::Loading(src.clone()));
            let live = live.clone();
            leptos::task::spawn_local(async move {
                let next = match get_text(&src).await {
                    Ok(text) => load_text(&live, src, &text),
                    Err(e) => LoadState::Failed {
                        source: src,
                        reason: e.to_string(),
                    },
                };
                state.set(next);
            });
        });
    }

    let open_file = {
        let live = live.clone();
        move |file: web_sys::File| {
            let live = live.clone();
            let name = file.name();
            state.set(LoadState::Loading(name.clone()));
            leptos::task::spawn_local(async move {
                let next = match read_file(&file).await {
                    Ok(text) => load_text(&live, name, &text),
                    Err(reason) => LoadState::Failed {
                        source: name,
                        reason,
                    },
                };
                state.set(next);
            });
        }
    };
    let on_pick = {
        let open_file = open_file.clone();
        move |ev: leptos::ev::Event| {
            let input: web_sys::HtmlInputElement = event_target(&ev);
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                open_file(file);
            }
        }
    };
    // What the main area shows; the transcript stays mounted from loading to loaded.
    let phase = Memo::new(move |_| match state.get() {
        LoadState::Empty => Phase::Empty,
        LoadState::Failed { source, reason } => Phase::Failed { source, reason },
        LoadState::Loading(_) | LoadState::Loaded { .. } => Phase::Transcript,
    });
    let dragging = RwSignal::new(false);
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        if let Some(file) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0))
        {
            open_file(file);
        }
    };

    view! {
        <div
            class="file-view"
            class:dragging=dragging
            on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop
            data-testid="file-view"
        >
            <div class="source-bar">
                <label class="file-pick">
                    "Open a file"
                    <input type="file" accept=".json,.jsonl,.txt,application/json" on:change=on_pick data-testid="file-input" />
                </label>
                <span class="muted drop-hint">"or drop one here"</span>
                <LoadStatus state />
            </div>
            {move || match phase.get() {
                Phase::Empty => view! {
                    <EmptyState
                        title="Open a transcript"
                        detail="Give a file with ?src=<url>, pick one, or drop it here: kandev message lists, ACP frames, Claude Code sessions and gadget turns are recognised."
                    />
                }.into_any(),
                Phase::Failed { source, reason } => view! {
                    <section class="load-error" role="alert" data-testid="load-error">
                        <h2>"Could not open this transcript"</h2>
                        <p><code>{source}</code></p>
                        <p>{reason}</p>
                    </section>
                }.into_any(),
                Phase::Transcript => view! { <LiveTranscript /> }.into_any(),
            }}
        </div>
    }
}

/// The one-line status of the source bar.
#[component]
fn LoadStatus(state: RwSignal<LoadState>) -> impl IntoView {
    move || {
        match state.get() {
        LoadState::Loading(source) => view! {
            <span class="load-status" role="status"><span class="spinner" aria-hidden="true"></span>" Loading "{source}"…"</span>
        }
        .into_any(),
        LoadState::Loaded { source, dialect } => view! {
            <span class="load-status" data-testid="load-status">
                <span class="badge" data-testid="dialect">{dialect}</span>" "<span class="source-name">{source}</span>
            </span>
        }
        .into_any(),
        LoadState::Empty | LoadState::Failed { .. } => ().into_any(),
    }
    }
}
