//! Importers: each dialect's bytes become the one model, as `Event`s.

pub mod kandev;
