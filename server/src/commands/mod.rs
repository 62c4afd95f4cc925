//! The one-shot commands besides `serve`: `taskview export` (a transcript as
//! one self-contained page) and the release build's steps `taskview split`
//! (code splitting) and `taskview precompress` (the compressed twins).

pub mod export;
pub mod precompress;
pub mod split;
