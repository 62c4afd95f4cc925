//! Compression of what the server sends: the build's best levels (`taskview
//! precompress` writes twins with them) and the quick level of what is
//! compressed per request (the API's answers, a page with its first screen).

use std::io::Write;

/// The build's levels: the best gzip (as `gzip -9`) and brotli.
pub(crate) const BEST_GZIP: u32 = 9;
pub(crate) const BEST_BROTLI: u32 = 11;

/// The brotli quality and gzip level of what is compressed per request (the
/// API's answers, a page with its first screen): quick, and still 4-9x on
/// JSON (docs/behaviour.md §10).
pub const PER_REQUEST_LEVEL: u32 = 5;

/// gzip at `level`, with no name or time in the header, so a build is
/// reproducible.
pub(crate) fn gzip(raw: &[u8], level: u32) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    encoder.write_all(raw)?;
    encoder.finish()
}

/// Brotli at `quality` with the largest standard window.
pub(crate) fn brotli(raw: &[u8], quality: u32) -> std::io::Result<Vec<u8>> {
    const WINDOW_BITS: u32 = 22;
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, quality, WINDOW_BITS);
        writer.write_all(raw)?;
    }
    Ok(out)
}
