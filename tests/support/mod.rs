//! Shared by the browser tests: mounting a view into a fresh element.

pub mod messages;
pub mod transcript;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Mounts `view` into a new `<section>` in the body; returns the section and
/// the handle that unmounts the view when dropped.
pub fn mount(view: impl FnOnce() -> AnyView + 'static) -> (web_sys::HtmlElement, impl Drop) {
    let document = document();
    let host: web_sys::HtmlElement = document.create_element("section").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    let handle = mount_to(host.clone(), view);
    (host, handle)
}
