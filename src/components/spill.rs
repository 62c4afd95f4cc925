//! The spill parts of a tool row (docs/behaviour.md §4), as core decides them: the
//! `spilled` chip (opening the stored text inline when the session holds it),
//! the back link on the row that holds a stored text, the `truncated` mark.

use crate::components::markdown::TextBlock;
use leptos::prelude::*;
use taskview_core::screen::view::spill::{
    SpillSourceView, SpillView, SPILL_NOT_HELD, SPILL_OUTPUT_LINK, SPILL_READ_BACK,
    SPILL_SOURCE_LEAD, TRUNCATED_LABEL, TRUNCATED_TITLE,
};

/// The `spilled` chip; it opens the stored text, with a link to the row it
/// came from, when the session holds it.
#[component]
pub fn SpillChip(spill: SpillView) -> impl IntoView {
    let SpillView { id, label, stored } = spill;
    let title = stored.is_none().then_some(SPILL_NOT_HELD);
    let held = stored.is_some();
    view! {
        <details class="spill" class:held=held data-testid="spill">
            <summary class="chip spill-chip" data-testid="spill-chip" data-spill-id=id title=title>
                {label}
            </summary>
            {stored.map(|stored| view! {
                <TextBlock text=stored.text testid="spill-stored" />
                <a class="spill-link" data-testid="spill-stored-link" href=format!("#{}", stored.anchor)>
                    {SPILL_READ_BACK}
                </a>
            })}
        </details>
    }
}

/// On a row holding a spill's stored text: which spill, and links back to the
/// outputs it replaced.
#[component]
pub fn SpillSource(source: SpillSourceView) -> impl IntoView {
    let data_id = source.id.clone();
    view! {
        <div class="spill spill-source" data-testid="spill-source" data-spill-id=data_id>
            <span class="muted">{SPILL_SOURCE_LEAD}</span><code>{source.id}</code>
            {source.placeholder_anchors.into_iter().map(|anchor| view! {
                " "<a class="spill-link" data-testid="spill-placeholder-link" href=format!("#{anchor}")>{SPILL_OUTPUT_LINK}</a>
            }).collect_view()}
        </div>
    }
}

/// The mark of a lossy cut.
#[component]
pub fn TruncatedMarker() -> impl IntoView {
    view! {
        <span class="chip truncated-marker" data-testid="truncated-marker"
            title=TRUNCATED_TITLE>{TRUNCATED_LABEL}</span>
    }
}
