//! `/view?src=<url>` and `/embed/view?src=<url>`: a transcript from a file.

use crate::components::shell::EmptyState;
use leptos::prelude::*;

/// A transcript loaded from a file URL or a local file.
#[component]
pub fn FileViewPage() -> impl IntoView {
    view! { <EmptyState title="Open a transcript" detail="Give a file with ?src=<url>." /> }
}
