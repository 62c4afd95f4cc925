//! Watching an element's size: one `ResizeObserver` per element, dropped
//! with the reactive owner that set it up.

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Calls `resized` with `el` once it is mounted, and again whenever its
/// size changes, until the current owner is cleaned up.
pub fn on_resize(el: NodeRef<Div>, resized: impl Fn(&web_sys::HtmlDivElement) + 'static) {
    let observer = StoredValue::new_local(None::<(web_sys::ResizeObserver, Closure<dyn FnMut()>)>);
    let resized = std::rc::Rc::new(resized);
    Effect::new(move |_| {
        let Some(target) = el.get() else { return };
        if observer.with_value(Option::is_some) {
            return;
        }
        let report = {
            let (resized, target) = (resized.clone(), target.clone());
            Closure::<dyn FnMut()>::new(move || resized(&target))
        };
        if let Ok(ro) = web_sys::ResizeObserver::new(report.as_ref().unchecked_ref()) {
            ro.observe(&target);
            observer.set_value(Some((ro, report)));
        }
    });
    on_cleanup(move || {
        if let Some(Some((ro, _))) = observer.try_update_value(Option::take) {
            ro.disconnect();
        }
    });
}
