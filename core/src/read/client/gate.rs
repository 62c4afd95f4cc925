//! When a follow (a board, a task, a session) reads over HTTP (docs/behaviour.md §7,
//! docs/protocol.md §5.1 "subscribe, then fetch"). A read after the socket's
//! subscription misses nothing, so a page that opens while its socket is
//! connecting waits for it and reads once; it reads over HTTP alone only
//! when the socket cannot help (down, or slow to open), and again on every
//! later open (a reconnect re-reads and merges).

use super::backoff::ConnectionStatus;

/// How long a page waits for a connecting socket before it reads without
/// one, in milliseconds.
pub const SOCKET_WAIT_MS: u32 = 2000;

/// A read to start now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    /// Subscribe on the socket first (it is open).
    pub subscribe: bool,
}

/// One follow's reads. See the module docs.
#[derive(Clone, Debug, Default)]
pub struct ReadGate {
    read: bool,
}

impl ReadGate {
    /// A follow that has not read yet.
    pub fn new() -> ReadGate {
        ReadGate::default()
    }

    /// The follow starts while the socket is `status`: read now over the
    /// open socket, wait for one that is connecting, or read over HTTP
    /// alone when it is down.
    pub fn start(&mut self, status: &ConnectionStatus) -> Option<Read> {
        let read = match status {
            ConnectionStatus::Connected => Read { subscribe: true },
            ConnectionStatus::Connecting => return None,
            ConnectionStatus::Reconnecting { .. } | ConnectionStatus::Offline => {
                Read { subscribe: false }
            }
        };
        self.read = true;
        Some(read)
    }

    /// The socket opened (the first time, or again): subscribe and read.
    pub fn opened(&mut self) -> Read {
        self.read = true;
        Read { subscribe: true }
    }

    /// The socket's first attempt failed, or [`SOCKET_WAIT_MS`] passed
    /// without an open: read over HTTP alone, unless a read already started.
    pub fn stop_waiting(&mut self) -> Option<Read> {
        (!std::mem::replace(&mut self.read, true)).then_some(Read { subscribe: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cold_page_waits_for_the_connecting_socket_and_reads_once() {
        let mut gate = ReadGate::new();
        assert_eq!(gate.start(&ConnectionStatus::Connecting), None);
        assert_eq!(gate.opened(), Read { subscribe: true });
        assert_eq!(gate.stop_waiting(), None, "the wait timer fires late");
    }

    #[test]
    fn an_open_socket_reads_at_once_and_every_reopen_reads_again() {
        let mut gate = ReadGate::new();
        assert_eq!(
            gate.start(&ConnectionStatus::Connected),
            Some(Read { subscribe: true })
        );
        assert_eq!(gate.stop_waiting(), None);
        assert_eq!(gate.opened(), Read { subscribe: true });
    }

    #[test]
    fn without_a_socket_the_page_reads_over_http_alone() {
        for down in [
            ConnectionStatus::Reconnecting { seconds: 3 },
            ConnectionStatus::Offline,
        ] {
            let mut gate = ReadGate::new();
            assert_eq!(gate.start(&down), Some(Read { subscribe: false }));
        }
        let mut slow = ReadGate::new();
        assert_eq!(slow.start(&ConnectionStatus::Connecting), None);
        assert_eq!(slow.stop_waiting(), Some(Read { subscribe: false }));
        assert_eq!(slow.stop_waiting(), None, "once");
        assert_eq!(
            slow.opened(),
            Read { subscribe: true },
            "then re-read on open"
        );
    }
}
