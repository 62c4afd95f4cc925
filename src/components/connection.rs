//! The connection indicator: `connected`, `reconnecting in N s` or
//! `offline`, small and polite (a `role="status"` region), with a retry
//! button while the socket is down.

use leptos::prelude::*;
use taskview_core::read::client::backoff::ConnectionStatus;

/// Shows `status`; `on_retry` is called by the "Retry now" button.
#[component]
pub fn ConnectionIndicator(
    #[prop(into)] status: Signal<ConnectionStatus>,
    on_retry: Callback<()>,
) -> impl IntoView {
    let down = move || {
        matches!(
            status.get(),
            ConnectionStatus::Reconnecting { .. } | ConnectionStatus::Offline
        )
    };
    view! {
        <span class=move || format!("connection {}", status.get().class())>
            <span class="connection-dot" aria-hidden="true"></span>
            <span role="status" data-testid="connection-status">{move || status.get().label()}</span>
            <Show when=down>
                <button class="connection-retry" data-testid="connection-retry" on:click=move |_| on_retry.run(())>
                    "Retry now"
                </button>
            </Show>
        </span>
    }
}

/// The indicator for the page's connection (from context).
#[component]
pub fn LiveConnectionIndicator() -> impl IntoView {
    let connection = expect_context::<crate::sources::ws::Connection>();
    let status = connection.status();
    let on_retry = Callback::new(move |()| connection.retry_now());
    view! { <ConnectionIndicator status=Signal::from(status) on_retry /> }
}
