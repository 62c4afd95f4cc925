//! Reading: what turns bytes from outside into the model: one importer per
//! dialect, the kandev protocol, the protocol client's decisions, the app's
//! routes and the embed contract. Imports only the model.

pub mod client;
pub mod embed;
pub mod import;
pub mod protocol;
pub mod route;
