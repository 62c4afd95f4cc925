//! An OTLP/HTTP request's body as sent: its encoding (`Content-Type`), its
//! bytes read whatever the transfer (`Content-Length` or chunked) up to a
//! limit, and gunzipped (`Content-Encoding: gzip`) up to another.

use axum::body::Body;
use axum::http::{header, HeaderMap};
use futures_util::StreamExt;
use std::io::Read;

/// The most bytes a request may carry as sent.
pub const MAX_SENT: usize = 16 << 20;
/// The most bytes a request may unpack to (a gzip bomb stops here).
pub const MAX_UNPACKED: usize = 64 << 20;

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

/// The body's bytes, read to its end and unpacked.
pub async fn read(headers: &HeaderMap, body: Body) -> Result<Vec<u8>, Refusal> {
    let gzip = match headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("" | "identity") => false,
        Some("gzip") => true,
        Some(other) => {
            return Err(Refusal::Unsupported(format!(
                "Content-Encoding {other:?}: send gzip or none"
            )))
        }
    };
    let sent = collect(body).await?;
    if gzip {
        gunzip(&sent)
    } else {
        Ok(sent)
    }
}

/// Every chunk of the body, refused once past [`MAX_SENT`].
async fn collect(body: Body) -> Result<Vec<u8>, Refusal> {
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| Refusal::Unreadable(format!("the body broke off: {e}")))?;
        if bytes.len() + chunk.len() > MAX_SENT {
            return Err(Refusal::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
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
