//! taskview app: Leptos components that render view-models from taskview-core.

use leptos::prelude::*;

/// The application root.
#[component]
pub fn App() -> impl IntoView {
    view! { <header class="app-header">"taskview"</header> }
}
