//! taskview-core: everything that is not DOM, in four layers; each imports
//! only the layers before it (docs/ARCHITECTURE.md, "How the shape is
//! checked"). Tested natively with `cargo test`.

pub mod model;
pub mod read;
pub mod screen;
pub mod state;
