//! The names `Host` and `Origin` headers give: a host (an IP address or a DNS
//! name) with its port, and a web page's origin.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// A host: an IP address or a lower-case DNS name (without a trailing dot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostName {
    Ip(IpAddr),
    Name(String),
}

impl HostName {
    /// The host and port of a `Host` header or an origin's authority
    /// (`name`, `name:port`, `1.2.3.4:port`, `[::1]:port`).
    pub(super) fn of_authority(text: &str) -> Option<(HostName, Option<u16>)> {
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (inside, after) = rest.split_once(']')?;
            let ip: Ipv6Addr = inside.parse().ok()?;
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':')?),
            };
            (HostName::Ip(IpAddr::V6(ip)), port)
        } else {
            let (host, port) = match text.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (text, None),
            };
            (HostName::of_name(host)?, port)
        };
        let port = match port {
            None | Some("") => None,
            Some(p) if p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => {
                Some(p.parse().ok()?)
            }
            Some(_) => return None,
        };
        Some((host, port))
    }

    fn of_name(host: &str) -> Option<HostName> {
        if let Ok(ip) = host.parse::<Ipv4Addr>() {
            return Some(HostName::Ip(IpAddr::V4(ip)));
        }
        let name = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
        let label_ok = |label: &str| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        };
        name.split('.')
            .all(label_ok)
            .then_some(HostName::Name(name))
    }

    /// `localhost`, `*.localhost`, 127.0.0.0/8 or `::1`.
    pub(super) fn is_loopback(&self) -> bool {
        match self {
            HostName::Ip(ip) => ip.to_canonical().is_loopback(),
            HostName::Name(name) => name == "localhost" || name.ends_with(".localhost"),
        }
    }
}

impl FromStr for HostName {
    type Err = String;

    fn from_str(text: &str) -> Result<HostName, String> {
        let hint = "expected a host name or address without a port, e.g. tv.example.com";
        match HostName::of_authority(text) {
            Some((host, None)) if !text.ends_with(':') => Ok(host),
            _ => Err(format!("{text:?} is not a host; {hint}")),
        }
    }
}

impl fmt::Display for HostName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostName::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
            HostName::Ip(ip) => write!(f, "{ip}"),
            HostName::Name(name) => f.write_str(name),
        }
    }
}

/// A web page's origin: `http(s)://host[:port]`, its port made explicit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageOrigin {
    pub(super) secure: bool,
    pub(super) host: HostName,
    pub(super) port: u16,
}

impl PageOrigin {
    /// The origin an `Origin` header names; `None` for `null` or anything
    /// that is not a plain http(s) origin.
    pub(super) fn of_header(text: &str) -> Option<PageOrigin> {
        let (secure, authority) = if let Some(rest) = text.strip_prefix("https://") {
            (true, rest)
        } else {
            (false, text.strip_prefix("http://")?)
        };
        let (host, port) = HostName::of_authority(authority)?;
        let default = if secure { 443 } else { 80 };
        Some(PageOrigin {
            secure,
            host,
            port: port.unwrap_or(default),
        })
    }

    /// Whether a page of this origin is the app itself, served at `host`.
    pub(super) fn is_served_at(&self, (host, port): &(HostName, Option<u16>)) -> bool {
        let default = if self.secure { 443 } else { 80 };
        self.host == *host && self.port == port.unwrap_or(default)
    }
}

impl FromStr for PageOrigin {
    type Err = String;

    fn from_str(text: &str) -> Result<PageOrigin, String> {
        let plain = text.strip_suffix('/').unwrap_or(text);
        PageOrigin::of_header(plain).ok_or_else(|| {
            format!(
                "{text:?} is not an origin; expected http(s)://host[:port] with no path \
                 or wildcard, e.g. https://kandev.example.com"
            )
        })
    }
}

impl fmt::Display for PageOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (scheme, default) = if self.secure {
            ("https", 443)
        } else {
            ("http", 80)
        };
        write!(f, "{scheme}://{}", self.host)?;
        if self.port != default {
            write!(f, ":{}", self.port)?;
        }
        Ok(())
    }
}
