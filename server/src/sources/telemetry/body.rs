//! An OTLP/HTTP request's body as sent: its encoding (`Content-Type`), its
//! bytes read whatever the transfer (`Content-Length` or chunked) up to a
//! limit, within a time and within the bytes all bodies being read may hold
//! together ([`Bodies`]), and gunzipped (`Content-Encoding: gzip`) up to
//! another limit.

use axum::body::Body;
use axum::http::{header, HeaderMap};
use futures_util::StreamExt;
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The most bytes a request may carry as sent.
pub const MAX_SENT: usize = 16 << 20;
/// The most bytes a request may unpack to (a gzip bomb stops here).
pub const MAX_UNPACKED: usize = 16 << 20;
/// The bytes all the bodies being read at once may hold together; a body
/// that would take more waits for room.
pub const BODIES_IN_FLIGHT: usize = 64 << 20;
/// The unit of [`Bodies`]' permits.
const KIB: usize = 1 << 10;

/// The room bodies being read share, and how long one may take.
pub struct Bodies {
    room: Arc<Semaphore>,
    timeout: Duration,
}

impl Bodies {
    /// Room for [`BODIES_IN_FLIGHT`] bytes; each body read within `timeout`.
    pub fn new(timeout: Duration) -> Bodies {
        Bodies {
            room: Arc::new(Semaphore::new(BODIES_IN_FLIGHT / KIB)),
            timeout,
        }
    }
}

/// A body's bytes and the room they hold until dropped.
pub struct Sent {
    pub bytes: Vec<u8>,
    _room: Option<OwnedSemaphorePermit>,
}

/// How an export request is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Protobuf,
    Json,
}

/// Why a body is not read.
#[derive(Debug)]
pub enum Refusal {
    /// A `Content-Type` or `Content-Encoding` the receiver does not speak (415).
    Unsupported(String),
    /// Past [`MAX_SENT`] or [`MAX_UNPACKED`] (413).
    TooLarge,
    /// Not all sent within the body timeout (408).
    TooSlow,
    /// Bytes that are not what they claim (400).
    Unreadable(String),
}

/// The body's encoding, from `Content-Type` (parameters such as `charset`
/// are ignored).
pub fn encoding(headers: &HeaderMap) -> Result<Encoding, Refusal> {
    let given = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let media = given.split(';').next().unwrap_or_default().trim();
    match media.to_ascii_lowercase().as_str() {
        "application/x-protobuf" | "application/protobuf" => Ok(Encoding::Protobuf),
        "application/json" => Ok(Encoding::Json),
        _ => Err(Refusal::Unsupported(format!(
            "Content-Type {given:?}: send application/x-protobuf or application/json"
        ))),
    }
}

/// Whether the body is gzipped (`Content-Encoding`).
pub fn gzipped(headers: &HeaderMap) -> Result<bool, Refusal> {
    match headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("" | "identity") => Ok(false),
        Some("gzip") => Ok(true),
        Some(other) => Err(Refusal::Unsupported(format!(
            "Content-Encoding {other:?}: send gzip or none"
        ))),
    }
}

/// The body's bytes as sent, read to its end within the body timeout,
/// holding room among `bodies` for them; refused at once when its
/// `Content-Length` is past [`MAX_SENT`].
pub async fn read(headers: &HeaderMap, body: Body, bodies: &Bodies) -> Result<Sent, Refusal> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_SENT as u64) {
        return Err(Refusal::TooLarge);
    }
    let deadline = Instant::now() + bodies.timeout;
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    let mut room: Option<OwnedSemaphorePermit> = None;
    loop {
        let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
            Err(_) => return Err(Refusal::TooSlow),
            Ok(None) => break,
            Ok(Some(chunk)) => chunk,
        };
        let chunk = chunk.map_err(|e| Refusal::Unreadable(format!("the body broke off: {e}")))?;
        if bytes.len() + chunk.len() > MAX_SENT {
            return Err(Refusal::TooLarge);
        }
        let held = room.as_ref().map_or(0, |r| r.num_permits() * KIB);
        let wanted = (bytes.len() + chunk.len()).div_ceil(KIB) * KIB;
        if wanted > held {
            let more = u32::try_from((wanted - held) / KIB).unwrap_or(u32::MAX);
            let acquire = Arc::clone(&bodies.room).acquire_many_owned(more);
            let permit = match tokio::time::timeout_at(deadline, acquire).await {
                Err(_) => return Err(Refusal::TooSlow),
                Ok(permit) => permit.map_err(|_| Refusal::TooSlow)?,
            };
            match &mut room {
                Some(room) => room.merge(permit),
                None => room = Some(permit),
            }
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Sent { bytes, _room: room })
}

/// `sent` unpacked when `gzip`, else as it is.
pub fn unpack(sent: Vec<u8>, gzip: bool) -> Result<Vec<u8>, Refusal> {
    if gzip {
        gunzip(&sent)
    } else {
        Ok(sent)
    }
}

/// `packed` unpacked, refused once past [`MAX_UNPACKED`].
fn gunzip(packed: &[u8]) -> Result<Vec<u8>, Refusal> {
    let mut unpacked = Vec::new();
    flate2::read::MultiGzDecoder::new(packed)
        .take(MAX_UNPACKED as u64 + 1)
        .read_to_end(&mut unpacked)
        .map_err(|e| Refusal::Unreadable(format!("not gzip: {e}")))?;
    if unpacked.len() > MAX_UNPACKED {
        return Err(Refusal::TooLarge);
    }
    Ok(unpacked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_type(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn the_content_type_names_the_encoding_whatever_its_case_and_parameters() {
        let json = with_type("Application/JSON; charset=utf-8");
        assert_eq!(encoding(&json).unwrap(), Encoding::Json);
        let proto = with_type("application/x-protobuf");
        assert_eq!(encoding(&proto).unwrap(), Encoding::Protobuf);
        assert!(matches!(
            encoding(&with_type("text/plain")),
            Err(Refusal::Unsupported(_))
        ));
        assert!(matches!(
            encoding(&HeaderMap::new()),
            Err(Refusal::Unsupported(_))
        ));
    }

    #[test]
    fn a_gzip_bomb_stops_at_the_unpacked_limit() {
        use flate2::write::GzEncoder;
        use std::io::Write;
        let mut packer = GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..(MAX_UNPACKED >> 20) + 1 {
            packer.write_all(&zeros).unwrap();
        }
        let bomb = packer.finish().unwrap();
        assert!(bomb.len() < MAX_SENT / 100, "the bomb is small as sent");
        assert!(matches!(gunzip(&bomb), Err(Refusal::TooLarge)));
    }
}
