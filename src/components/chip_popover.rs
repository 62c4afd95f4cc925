//! The board drill-down (docs/behaviour.md §8): what opens when a task's subagent chip
//! is activated. It lists core's `DrillDownView`, each running subagent a
//! link to its card; Escape or the close button closes it. Props-only.

use leptos::html::Div;
use leptos::prelude::*;
use taskview_core::screen::view::drilldown::{DrillDownItem, DrillDownView};

/// The popover of one task's chip.
#[component]
pub fn ChipPopover(
    /// The element id, for the chip's `aria-controls`.
    #[prop(into)]
    id: String,
    /// The task's running subagents; `None` while they load.
    #[prop(into)]
    drill: Signal<Option<DrillDownView>>,
    /// A subagent's link from its card anchor (`msg-<id>`).
    href: Callback<String, String>,
    /// The popover asked to close (Escape, the close button).
    on_close: Callback<()>,
) -> impl IntoView {
    let root = NodeRef::<Div>::new();
    // Focus moves in when it opens, so the keyboard can go on from there.
    Effect::new(move |_| {
        if let Some(el) = root.get() {
            let _ = el.focus();
        }
    });
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.prevent_default();
            ev.stop_propagation();
            on_close.run(());
        }
    };
    let heading = move || {
        drill.with(|d| {
            d.as_ref()
                .map_or_else(|| "Running subagents".to_string(), |d| d.heading.clone())
        })
    };
    let ids = move || {
        drill.with(|d| {
            d.iter()
                .flat_map(|d| d.items.iter().map(|i| i.id.clone()))
                .collect::<Vec<_>>()
        })
    };
    let note = move || {
        drill.with(|d| match d {
            None => Some("Loading…".to_string()),
            Some(d) => d.empty_text.clone(),
        })
    };
    view! {
        <div class="chip-popover" id=id node_ref=root role="dialog" tabindex="-1"
            aria-labelledby="chip-popover-heading" data-testid="board-chip-popover" on:keydown=on_keydown>
            <div class="popover-head">
                <h3 id="chip-popover-heading" class="popover-title">{heading}</h3>
                <button class="popover-close" aria-label="Close" on:click=move |_| on_close.run(())>"×"</button>
            </div>
            {move || drill.with(|d| d.as_ref().and_then(|d| d.scale_start.clone())).map(|start| view! {
                <div class="elapsed-scale muted" aria-hidden="true"><span>{start}</span><span>"now"</span></div>
            })}
            <ul class="popover-list">
                <For each=ids key=|id| id.clone() let:id>
                    {
                        let item = Signal::derive(move || {
                            drill.with(|d| {
                                d.as_ref()
                                    .and_then(|d| d.items.iter().find(|i| i.id == id).cloned())
                                    .unwrap_or_default()
                            })
                        });
                        view! { <PopoverItem href item /> }
                    }
                </For>
            </ul>
            {move || note().map(|text| view! { <p class="muted popover-note" role="status">{text}</p> })}
        </div>
    }
}

/// One running subagent, linking to its card. The link element stays while
/// its content changes (elapsed time, `now:` line), so focus on it is kept.
#[component]
fn PopoverItem(item: Signal<DrillDownItem>, href: Callback<String, String>) -> impl IntoView {
    let content = move || {
        let i = item.get();
        view! {
            // Spaces between the parts (flex layout ignores them) keep the
            // words apart in the text, so the link's name holds it (WCAG 2.5.3).
            <span class="popover-line">
                <span class="type-chip">{i.type_label}</span>" "
                {i.description.map(|d| view! { <span class="description" title=i.description_title>{d}</span>" " })}
                {i.lifecycle.map(|mark| view! {
                    <span class=format!("lifecycle {}", mark.state) data-testid="subagent-status"
                        title=mark.title>{mark.text}</span>" "
                })}
                {i.elapsed.map(|e| view! { <span class="elapsed muted" data-testid="popover-elapsed">{e}</span> })}
            </span>" "
            {i.now_text.map(|t| view! { <span class="now-text" data-testid="popover-now">{t}</span> })}
            {i.bar.map(|bar| view! {
                <span class="elapsed-track" aria-hidden="true">
                    <span class="elapsed-bar" data-testid="popover-elapsed-bar" style:left=bar.left style:width=bar.width></span>
                </span>
            })}
        }
    };
    view! {
        <li class="popover-item" data-testid="popover-item" data-id=move || item.with(|i| i.id.clone())>
            <a class="popover-link" href=move || item.with(|i| href.run(i.anchor.clone()))
                aria-label=move || item.with(|i| i.label.clone())>
                {content}
            </a>
        </li>
    }
}
