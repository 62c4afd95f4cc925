//! `/`, `/board/:workflow_id` and their embed forms.

use crate::api::{get_json, ApiBase};
use crate::components::shell::EmptyState;
use leptos::prelude::*;

/// The board page. Until a backend answers, it explains what it is waiting for.
#[component]
pub fn BoardPage() -> impl IntoView {
    let api = expect_context::<ApiBase>();
    let workflows_url = api.url("/api/v1/workflows");
    let workflows = LocalResource::new(move || {
        let url = workflows_url.clone();
        async move { get_json(&url).await }
    });
    view! {
        <Suspense fallback=|| view! { <p class="loading" role="status">"Loading board…"</p> }>
            {move || {
                workflows.get().map(|result| match result {
                    Ok(_) => view! { <EmptyState title="Board" detail="Connected." /> }.into_any(),
                    Err(reason) => view! {
                        <EmptyState
                            title="No board data reachable yet"
                            detail=format!("{reason}. Start `taskview serve` or open with ?api=<kandev base URL>.")
                        />
                    }.into_any(),
                })
            }}
        </Suspense>
    }
}
