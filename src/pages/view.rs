//! `/view?src=<url>` and `/embed/view?src=<url>`: a transcript from a file, by
//! URL, file or folder picker, or drag and drop (a file or a folder). The
//! dialect is detected from content; a Claude Code session is read with its
//! subagent files (`sources::file`). A file opens progressively (docs/behaviour.md
//! §10): its first rows show while the rest is read in chunks
//! (`sources::progressive`), under a progress bar.

use crate::components::not_shown::RecordsNotShown;
use crate::components::progress::ProgressBar;
use crate::components::sessions::SessionChooser;
use crate::components::shell::EmptyState;
use crate::live::fanout::FanOutFrame;
use crate::live::Live;
use crate::sources::file::{self, Opened};
use crate::sources::progressive;
use leptos::prelude::*;
use taskview_core::read::import::folder::NO_TRANSCRIPT;
use taskview_core::read::import::progressive::Progressive;
use taskview_core::screen::export::{secrets_status, Secrets, Transcript};
use taskview_core::screen::view::file_sessions::{file_choices, open_part};
use taskview_core::screen::view::not_shown::NotShownView;
use taskview_core::screen::view::progress::{reading_progress, sessions_progress, ProgressView};
use taskview_core::screen::view::sessions::{
    back_to_chooser, chosen, folder_opening, source_parts, FolderOpening, SessionChoice,
    TITLE_HEAD_BYTES,
};
use web_sys::File;

/// Where the loaded transcript came from, and how it went.
#[derive(Clone, Debug, PartialEq)]
enum LoadState {
    Empty,
    Loading(String),
    /// Shown while the rest of the file is read.
    Reading {
        source: String,
        dialect: String,
        progress: ProgressView,
    },
    /// A folder's sessions are read for the chooser's titles.
    Listing {
        folder: String,
        progress: ProgressView,
    },
    Loaded {
        source: String,
        dialect: String,
        /// The records the importer skipped (docs/behaviour.md §1).
        not_shown: Option<NotShownView>,
    },
    Failed {
        source: String,
        reason: String,
    },
    /// A folder of several sessions, waiting for the reader to pick one.
    Choosing(String),
}

/// Reading what was picked: a file's text, or a folder's chosen session.
type Reading = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Opened, String>>>>;

/// What the page's main area shows.
#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Empty,
    Failed {
        source: String,
        reason: String,
    },
    /// A folder's sessions are read for the chooser: nothing shows yet.
    Listing,
    Choose,
    Transcript,
}

/// Opens a transcript and its files into the store progressively, replacing
/// what was shown, with the progress in `state`. Stops (`None`) when
/// `current` turns false (another file was opened).
async fn load(
    live: &Live,
    opened: Opened,
    state: RwSignal<LoadState>,
    shown: RwSignal<Option<Transcript>>,
    current: impl Fn() -> bool,
) -> Option<LoadState> {
    let Opened { name, text, files } = opened;
    // Kept for "Download HTML".
    shown.set(Some(Transcript {
        name: name.clone(),
        text: text.clone(),
        files: files.clone(),
    }));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let file = match Progressive::open_with_files(text, &refs) {
        Ok(file) => file,
        Err(e) => {
            return Some(LoadState::Failed {
                source: name,
                reason: e.to_string(),
            })
        }
    };
    drop(refs);
    drop(files);
    // Nobody writes a file opened here: its time is its own (docs/behaviour.md §8).
    live.set_still(true);
    let dialect = file.dialect().name().to_string();
    let finished = progressive::read_into(live, file, |progress| {
        let mine = current();
        if mine {
            state.set(LoadState::Reading {
                source: name.clone(),
                dialect: dialect.clone(),
                progress,
            });
        }
        mine
    })
    .await;
    (finished && current()).then(|| LoadState::Loaded {
        source: name,
        dialect,
        not_shown: live.not_shown(),
    })
}

/// The file view: a source bar (picker, drop zone, status) above the transcript.
#[component]
pub fn FileViewPage() -> impl IntoView {
    let live = expect_context::<Live>();
    let location = crate::router::Location::get();
    let state = RwSignal::new(LoadState::Empty);
    let shown = RwSignal::new(None::<Transcript>);
    let download_error = RwSignal::new(None::<String>);
    // "Download HTML" masks secrets unless the reader unticks it (docs/behaviour.md §9).
    let mask_secrets = RwSignal::new(true);
    let download_status = RwSignal::new(None::<String>);
    // Messages a host pushes are not part of the file "Download HTML" writes.
    let live_host = live.clone();
    crate::sources::post_message::listen(live.clone(), move || {
        if state.get_untracked() == LoadState::Empty {
            // A host may go on pushing: its messages are live.
            live_host.set_still(false);
            state.set(LoadState::Loaded {
                source: "pushed by the host page".into(),
                dialect: "kandev message list".into(),
                not_shown: None,
            });
        }
    });

    // Each open starts a generation; a load whose generation passed stops.
    let generation = StoredValue::new(0_u64);
    let start_load = move || {
        let mine = generation.get_value() + 1;
        generation.set_value(mine);
        move || generation.try_get_value() == Some(mine)
    };
    // Stops the running load, if any, without starting one.
    let stop_load = move || generation.update_value(|g| *g += 1);

    // An exported page (`taskview export`) opens the transcript it carries.
    if let Some(exported) = file::exported() {
        let (live, current) = (live.clone(), start_load());
        leptos::task::spawn_local(async move {
            let next = match exported {
                Ok(opened) => load(&live, opened, state, shown, current).await,
                Err(reason) => Some(LoadState::Failed {
                    source: "this page".into(),
                    reason,
                }),
            };
            if let Some(next) = next {
                state.set(next);
            }
        });
    }

    // A picked or dropped folder's files, or a telemetry file of several
    // sessions, and its sessions, newest first.
    let folder_files = StoredValue::new_local(Vec::<(String, File)>::new());
    let choices = RwSignal::new(Vec::<SessionChoice>::new());
    let chooser = Chooser {
        choices,
        file: StoredValue::new(None),
        listed_from: StoredValue::new(String::new()),
    };

    {
        let live = live.clone();
        Effect::new(move |_| {
            let Some(src) = location.query("src").filter(|s| !s.trim().is_empty()) else {
                return;
            };
            state.set(LoadState::Loading(src.clone()));
            choices.set(Vec::new());
            chooser.file.set_value(None);
            let (live, current) = (live.clone(), start_load());
            leptos::task::spawn_local(async move {
                let next = match file::fetch(&src).await {
                    Ok(opened) if current() => match choose_in(opened, chooser) {
                        Ok(choosing) => Some(choosing),
                        Err(opened) => load(&live, opened, state, shown, current).await,
                    },
                    Ok(_) => None,
                    Err(e) => Some(LoadState::Failed {
                        source: src,
                        reason: e.to_string(),
                    }),
                };
                if let Some(next) = next {
                    state.set(next);
                }
            });
        });
    }

    let read = {
        let live = live.clone();
        move |name: String, opened: Reading| {
            let (live, current) = (live.clone(), start_load());
            state.set(LoadState::Loading(name.clone()));
            leptos::task::spawn_local(async move {
                let next = match opened.await {
                    Ok(opened) if current() => match choose_in(opened, chooser) {
                        Ok(choosing) => Some(choosing),
                        Err(opened) => load(&live, opened, state, shown, current).await,
                    },
                    Ok(_) => None,
                    Err(reason) => Some(LoadState::Failed {
                        source: name,
                        reason,
                    }),
                };
                if let Some(next) = next {
                    state.set(next);
                }
            });
        }
    };
    let open_choice = {
        let read = read.clone();
        move |at: usize| {
            let Some(choice) = choices.with_untracked(|c| c.get(at).cloned()) else {
                return;
            };
            // A session of a telemetry file: its lines alone.
            let part = chooser.file.with_value(|file| {
                let (name, text) = file.as_ref()?;
                open_part(name, text, &choice)
            });
            if let Some((name, text)) = part {
                let opened = Opened {
                    name: name.clone(),
                    text,
                    files: Vec::new(),
                };
                return read(name, Box::pin(async move { Ok(opened) }));
            }
            let chosen = choice.files;
            let files = folder_files.get_value();
            let name = files[chosen.session].0.clone();
            read(
                name,
                Box::pin(async move { file::read_session(&files, &chosen).await }),
            );
        }
    };
    // Picked or dropped files: one file, or a folder's files with their paths.
    let open_files = {
        let open_choice = open_choice.clone();
        move |files: Vec<(String, File)>| {
            // What opens now is not one of the last folder's sessions.
            choices.set(Vec::new());
            chooser.file.set_value(None);
            if let [(_, one)] = files.as_slice() {
                let one = one.clone();
                let name = one.name();
                return read(
                    name.clone(),
                    Box::pin(async move {
                        let text = file::read_file(&one).await?;
                        Ok(Opened {
                            name,
                            text,
                            files: Vec::new(),
                        })
                    }),
                );
            }
            let folder = file::folder_name(&files);
            match folder_opening(&file::facts(&files), js_sys::Date::now()) {
                FolderOpening::Empty => {
                    stop_load();
                    state.set(LoadState::Failed {
                        source: folder,
                        reason: format!("the folder {NO_TRANSCRIPT}"),
                    });
                }
                FolderOpening::One(choice) => {
                    folder_files.set_value(files);
                    choices.set(vec![*choice]);
                    open_choice(0);
                }
                FolderOpening::Several(mut found) => {
                    let open_choice = open_choice.clone();
                    let total = found.len();
                    // Titled from each session's first bytes before the list shows.
                    let current = start_load();
                    let listing = move |folder: &String, read| {
                        state.set(LoadState::Listing {
                            folder: folder.clone(),
                            progress: sessions_progress(read, total),
                        })
                    };
                    listing(&folder, 0);
                    leptos::task::spawn_local(async move {
                        for (read, choice) in found.iter_mut().enumerate() {
                            let file = &files[choice.files.session].1;
                            if let Ok(head) = file::read_head(file, TITLE_HEAD_BYTES).await {
                                choice.titled(&head);
                            }
                            if !current() {
                                return;
                            }
                            listing(&folder, read + 1);
                        }
                        folder_files.set_value(files);
                        // A subagent's own session (a Codex thread) opens with its parent's.
                        match chosen(found) {
                            FolderOpening::One(choice) => {
                                choices.set(vec![*choice]);
                                open_choice(0);
                            }
                            FolderOpening::Several(found) => {
                                choices.set(found);
                                chooser.listed_from.set_value(folder.clone());
                                state.set(LoadState::Choosing(folder));
                            }
                            FolderOpening::Empty => {}
                        }
                    });
                }
            }
        }
    };
    // Back from an opened session to its folder's or file's other sessions.
    let back_to_folder = move |_| {
        stop_load();
        state.set(LoadState::Choosing(chooser.listed_from.get_value()));
    };
    let on_pick = {
        let open_files = open_files.clone();
        move |ev: leptos::ev::Event| {
            let input: web_sys::HtmlInputElement = event_target(&ev);
            let files = input.files().map(|f| file::picked(&f)).unwrap_or_default();
            if !files.is_empty() {
                open_files(files);
            }
        }
    };
    // What the main area shows; the transcript stays mounted from loading to loaded.
    let phase = Memo::new(move |_| match state.get() {
        LoadState::Empty => Phase::Empty,
        LoadState::Failed { source, reason } => Phase::Failed { source, reason },
        LoadState::Choosing(_) => Phase::Choose,
        LoadState::Listing { .. } => Phase::Listing,
        LoadState::Loading(_) | LoadState::Reading { .. } | LoadState::Loaded { .. } => {
            Phase::Transcript
        }
    });
    let dragging = RwSignal::new(false);
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let Some(data) = ev.data_transfer() else {
            return;
        };
        let open_files = open_files.clone();
        leptos::task::spawn_local(async move {
            let files = file::dropped(&data).await;
            if !files.is_empty() {
                open_files(files);
            }
        });
    };

    let on_download = move |_| {
        download_error.set(None);
        download_status.set(None);
        let secrets = if mask_secrets.get_untracked() {
            Secrets::Mask
        } else {
            Secrets::Keep
        };
        leptos::task::spawn_local(async move {
            let Some(transcript) = shown.get_untracked() else {
                return;
            };
            match crate::export::download(&transcript, secrets).await {
                Ok(masked) => download_status.set(Some(secrets_status(masked.as_ref()))),
                Err(e) => download_error.set(Some(format!("Could not make the HTML file: {e}"))),
            }
        });
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
            <h1 class="visually-hidden">"Transcript from a file"</h1>
            <div class="source-bar">
                <label class="file-pick">
                    "Open a file"
                    <input type="file" accept=".json,.jsonl,.txt,application/json" on:change=on_pick.clone() data-testid="file-input" />
                </label>
                <label class="file-pick">
                    "Open a folder"
                    <input type="file" prop:webkitdirectory=true on:change=on_pick data-testid="folder-input" />
                </label>
                <span class="muted drop-hint">"or drop one here"</span>
                <LoadStatus state />
                <Show when=move || choices.with(|c| c.len() > 1) && !matches!(state.get(), LoadState::Choosing(_))>
                    <button class="file-pick" data-testid="other-sessions" on:click=back_to_folder>
                        {move || back_to_chooser(choices.with(Vec::len))}
                    </button>
                </Show>
                <Show when=move || can_download(state, shown)>
                    <button class="file-pick" data-testid="download-html" on:click=on_download>
                        "Download HTML"
                    </button>
                    <label class="mask-choice">
                        <input
                            type="checkbox"
                            data-testid="mask-secrets"
                            prop:checked=mask_secrets
                            on:change=move |ev| mask_secrets.set(event_target_checked(&ev))
                        />
                        " Mask secrets"
                    </label>
                    <ExportNote note=download_status.into() testid="download-status" />
                </Show>
                <ExportNote note=Signal::derive(file::exported_masking) testid="secrets-masked" />
                {move || download_error.get().map(|e| view! {
                    <span class="download-error" role="alert" data-testid="download-error">{e}</span>
                })}
            </div>
            {move || match phase.get() {
                Phase::Empty => view! {
                    <EmptyState
                        title="Open a transcript"
                        detail="Give a file with ?src=<url>, pick a file or a folder, or drop one here: kandev message lists, ACP frames, Claude Code sessions and qwen-code chats (with their subagents/ folder), Gemini CLI chat logs, Codex rollouts (with the rollouts beside them) and gadget turns are recognised."
                    />
                }.into_any(),
                Phase::Failed { source, reason } => view! {
                    <section class="load-error" role="alert" data-testid="load-error">
                        <h2>"Could not open this transcript"</h2>
                        <p><code>{source}</code></p>
                        <p>{reason}</p>
                    </section>
                }.into_any(),
                Phase::Listing => ().into_any(),
                Phase::Choose => view! {
                    <SessionChooser choices=choices.get_untracked() on_choose=open_choice.clone() />
                }.into_any(),
                Phase::Transcript => view! { <FanOutFrame /> }.into_any(),
            }}
        </div>
    }
}

/// The session chooser's state: its choices, the telemetry file they are
/// sessions of (`(name, text)`; `None` for a folder's), and the name of
/// what they were listed from.
#[derive(Clone, Copy)]
struct Chooser {
    choices: RwSignal<Vec<SessionChoice>>,
    file: StoredValue<Option<(String, String)>>,
    listed_from: StoredValue<String>,
}

/// `opened` as read, or, when it is a telemetry file of several sessions
/// (`file_choices`), the chooser listing them.
fn choose_in(opened: Opened, chooser: Chooser) -> Result<LoadState, Opened> {
    let Some(found) = file_choices(&opened.text, js_sys::Date::now()) else {
        return Err(opened);
    };
    chooser.choices.set(found);
    chooser.listed_from.set_value(opened.name.clone());
    let name = opened.name.clone();
    chooser.file.set_value(Some((opened.name, opened.text)));
    Ok(LoadState::Choosing(name))
}

/// Whether the file view offers "Download HTML": a transcript from a file was
/// loaded, on a served page (an exported page has no app files to fetch).
fn can_download(state: RwSignal<LoadState>, shown: RwSignal<Option<Transcript>>) -> bool {
    matches!(state.get(), LoadState::Loaded { .. })
        && shown.with(Option::is_some)
        && !file::is_export()
}

/// The one-line status of the source bar.
#[component]
fn LoadStatus(state: RwSignal<LoadState>) -> impl IntoView {
    // Kept mounted while reading, so the bar updates in place.
    let reading = Memo::new(move |_| {
        matches!(
            state.get(),
            LoadState::Reading { .. } | LoadState::Listing { .. }
        )
    });
    let progress = Signal::derive(move || match state.get() {
        LoadState::Reading { progress, .. } | LoadState::Listing { progress, .. } => progress,
        _ => reading_progress(1.0),
    });
    move || {
        if reading.get() {
            // A folder's sessions have no dialect yet.
            let (source, dialect) = state.with_untracked(|s| match s {
                LoadState::Reading {
                    source, dialect, ..
                } => (source.clone(), Some(dialect.clone())),
                LoadState::Listing { folder, .. } => (folder.clone(), None),
                _ => Default::default(),
            });
            return view! {
                <span class="load-status" data-testid="load-status">
                    {dialect.map(|d| view! { <span class="badge" data-testid="dialect">{d}</span>" " })}<ProgressBar progress />
                    " "<SourceName name=source />
                </span>
            }
            .into_any();
        }
        match state.get() {
            LoadState::Loading(source) => view! {
                <span class="load-status" role="status"><span class="spinner" aria-hidden="true"></span>" Loading "{source}"…"</span>
            }
            .into_any(),
            LoadState::Loaded {
                source,
                dialect,
                not_shown,
            } => view! {
                <span class="load-status" data-testid="load-status">
                    <span class="badge" data-testid="dialect">{dialect}</span>" "<SourceName name=source />
                </span>
                {not_shown.map(|view| view! { <RecordsNotShown view /> })}
            }
            .into_any(),
            LoadState::Choosing(folder) => view! {
                <span class="load-status" data-testid="load-status"><SourceName name=folder /></span>
            }
            .into_any(),
            LoadState::Empty
            | LoadState::Reading { .. }
            | LoadState::Listing { .. }
            | LoadState::Failed { .. } => ().into_any(),
        }
    }
}

/// A short note about an export's secrets: what "Download HTML" masked, or
/// what an exported page's export masked (`export::secrets_status`,
/// `export::masked_note`).
#[component]
fn ExportNote(note: Signal<Option<String>>, testid: &'static str) -> impl IntoView {
    move || {
        note.get().map(|note| {
            view! { <span class="export-note muted" role="status" data-testid=testid>{note}</span> }
        })
    }
}

/// The name of what is open, whole in its tooltip and to a screen reader; on
/// a narrow screen its folder gives way before its file name (`source_parts`).
#[component]
fn SourceName(name: String) -> impl IntoView {
    let (folder, file) = source_parts(&name);
    let (folder, file) = (folder.to_string(), file.to_string());
    view! {
        <span class="source-name" title=name>
            <span class="source-folder">{folder}</span><span class="source-file">{file}</span>
        </span>
    }
}
