//! The screen: everything derived from the state for what the app shows:
//! view-models and formats, the viewer a page holds, the fan-out's readers,
//! row heights of the virtualized list, safe markdown and links, and the
//! exported page with its secrets masked. Imports every layer before it.

pub mod export;
pub mod link;
pub mod markdown;
pub mod secrets;
pub mod view;
pub mod viewer;
pub mod viewport;
