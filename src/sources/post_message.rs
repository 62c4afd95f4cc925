//! Messages the host page appends to an embedded file view (the embed
//! contract's `append`, docs/embedding.md): a kandev message list, applied
//! exactly like live `session.message.added` events. `crate::embed` decides
//! whether a request is obeyed and hands it to [`deliver`].

use crate::live::Live;
use leptos::prelude::*;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use taskview_core::read::import::kandev;

type Sink = Rc<dyn Fn(&Value) -> bool>;

thread_local! {
    /// The mounted file view's handler; appends wait for none otherwise.
    static SINK: RefCell<Option<Sink>> = const { RefCell::new(None) };
}

/// Takes append requests while the calling component is mounted;
/// `on_append` runs after each accepted batch.
pub fn listen(live: Live, on_append: impl Fn() + 'static) {
    let sink: Sink = Rc::new(move |request: &Value| match kandev::from_value(request) {
        Ok(events) => {
            live.push(events);
            on_append();
            true
        }
        Err(_) => false,
    });
    SINK.with_borrow_mut(|s| *s = Some(sink));
    on_cleanup(|| SINK.with_borrow_mut(|s| *s = None));
}

/// Applies an obeyed append request; false when no file view is mounted or
/// the request is not a message list.
pub(crate) fn deliver(request: &Value) -> bool {
    let sink = SINK.with_borrow(Clone::clone);
    sink.is_some_and(|sink| sink(request))
}
