//! `/task/:task_id` and `/embed/task/:task_id`.

use crate::components::shell::EmptyState;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

/// The live transcript of a task's primary session.
#[component]
pub fn TaskPage() -> impl IntoView {
    let params = use_params_map();
    let task_id = move || params.read().get("task_id").unwrap_or_default();
    view! {
        <EmptyState title=format!("Task {}", task_id()) detail="No transcript loaded yet." />
    }
}
