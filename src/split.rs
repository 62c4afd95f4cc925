//! Parts of the app that the release build (feature `split`, `taskview
//! split`) cuts into modules of their own, fetched the first time they are
//! shown. A module that cannot be fetched (the server went away) gives a
//! visible error with a retry, never a blank view or a trapped app.

use leptos::prelude::*;
use std::future::Future;

/// A module of the app that could not be fetched.
#[derive(Debug, Clone, Copy)]
pub struct Unloaded;

impl From<leptos::wasm_split::SplitLoaderError> for Unloaded {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> Self {
        Unloaded
    }
}

/// Declares `async fn NAME(ARGS) -> Result<AnyView, Unloaded>` returning
/// BODY's view, and, if named, `async fn PRELOAD()` that only fetches it: with the
/// feature `split`, BODY (and all that only it uses) is the module `NAME`,
/// fetched on the first call of either; without it, the app is one module
/// and both return at once.
macro_rules! split_view {
    ($(#[$doc:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) $(preload $preload:ident)? $body:block) => {
        $(#[$doc])*
        #[cfg(feature = "split")]
        #[::leptos::wasm_split::wasm_split(
            $name,
            wasm_split_path = ::leptos::wasm_split,
            $(preload($preload),)?
            fallible
        )]
        $vis fn $name($($arg: $ty),*) -> Result<AnyView, $crate::split::Unloaded> {
            Ok($body)
        }
        $(#[$doc])*
        #[cfg(not(feature = "split"))]
        $vis async fn $name($($arg: $ty),*) -> Result<AnyView, $crate::split::Unloaded> {
            Ok($body)
        }
        $(
            /// Fetches the module ahead of its first use (the app is one
            /// module without the feature `split`).
            #[cfg(not(feature = "split"))]
            async fn $preload() -> Result<(), $crate::split::Unloaded> {
                Ok(())
            }
        )?
    };
}
pub(crate) use split_view;

/// The view `load` gives once its module is there; while it is fetched,
/// nothing; when it cannot be, an error naming `what` and a button that tries
/// again.
#[component]
pub fn SplitView<F, Fut>(what: &'static str, load: F) -> impl IntoView
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<AnyView, Unloaded>> + 'static,
{
    let attempt = RwSignal::new(0u32);
    move || {
        attempt.track();
        // One thread in a page: the wrapper only tells the compiler so.
        let loading = send_wrapper::SendWrapper::new(load());
        Suspend::new(async move {
            loading.await.unwrap_or_else(|Unloaded| {
                view! {
                    <section class="load-error" role="alert" data-testid="module-error">
                        <h2>{format!("Could not load {what}")}</h2>
                        <p>"This part of taskview is fetched from its server when first shown, and the server did not answer."</p>
                        <p><button on:click=move |_| attempt.update(|n| *n += 1)>"Try again"</button></p>
                    </section>
                }
                .into_any()
            })
        })
    }
}
