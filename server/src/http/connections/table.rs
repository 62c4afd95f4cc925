//! The connections being served: what each is doing (a request in
//! flight, the start of one arriving, or nothing), so the idlest one can be
//! let go when a new one needs its place, and one that waits too long for a
//! request's headers, or idles too long between requests, is closed.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// Every live connection (each one's [`Slot`]).
pub struct Table {
    slots: Mutex<Vec<Weak<Slot>>>,
    /// When the table started: slots count time from here, in milliseconds.
    epoch: Instant,
}

/// One connection: alive while anything holds it (its task, or the
/// WebSocket it became).
pub struct Slot {
    table: Weak<Table>,
    /// Requests in flight and WebSockets open on it.
    busy: AtomicUsize,
    /// Milliseconds since the table's epoch of the last byte read or
    /// written, or of the last request's end.
    last_activity: AtomicU64,
    /// When bytes of a request began to arrive with none in flight (`0`:
    /// none arriving), in the table's milliseconds plus one.
    arriving_since: AtomicU64,
    closing: AtomicBool,
    close: Notify,
    /// Wakes the watch when a request's bytes begin to arrive.
    arriving: Notify,
}

/// A request or WebSocket holding its connection busy until dropped.
pub struct Busy(Arc<Slot>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
        self.0.touch();
    }
}

impl Table {
    /// An empty table.
    pub fn new() -> Arc<Table> {
        Arc::new(Table {
            slots: Mutex::new(Vec::new()),
            epoch: Instant::now(),
        })
    }

    fn slots(&self) -> MutexGuard<'_, Vec<Weak<Slot>>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A slot for a new connection.
    pub fn open(self: &Arc<Table>) -> Arc<Slot> {
        let slot = Arc::new(Slot {
            table: Arc::downgrade(self),
            busy: AtomicUsize::new(0),
            last_activity: AtomicU64::new(self.now_ms()),
            arriving_since: AtomicU64::new(0),
            closing: AtomicBool::new(false),
            close: Notify::new(),
            arriving: Notify::new(),
        });
        self.slots().push(Arc::downgrade(&slot));
        slot
    }

    /// How many connections are open.
    pub fn len(&self) -> usize {
        self.slots().len()
    }

    /// Lets the idlest connection go (no request in flight, the longest
    /// without a byte either way); false when every one is busy.
    pub fn evict_idlest(&self) -> bool {
        // Upgraded outside the lock: dropping the last hold of a slot takes it.
        let weak: Vec<Weak<Slot>> = self.slots().clone();
        let live: Vec<Arc<Slot>> = weak.iter().filter_map(Weak::upgrade).collect();
        let idlest = live
            .iter()
            .filter(|slot| slot.busy.load(Ordering::Acquire) == 0)
            .min_by_key(|slot| slot.last_activity.load(Ordering::Acquire));
        let Some(slot) = idlest else {
            return false;
        };
        self.remove(Arc::as_ptr(slot));
        slot.shut();
        true
    }

    /// Takes the slot at `slot` out of the table, with any that are gone.
    fn remove(&self, slot: *const Slot) {
        self.slots()
            .retain(|weak| weak.strong_count() > 0 && !std::ptr::eq(weak.as_ptr(), slot));
    }
}

impl Slot {
    /// Marks a request in flight until the guard is dropped.
    pub fn busy(self: &Arc<Slot>) -> Busy {
        self.busy.fetch_add(1, Ordering::AcqRel);
        self.arriving_since.store(0, Ordering::Release);
        Busy(Arc::clone(self))
    }

    fn now_ms(&self) -> u64 {
        self.table.upgrade().map_or(0, |table| table.now_ms())
    }

    /// Notes bytes read (`read`) or written.
    pub fn note(&self, read: bool) {
        let now = self.now_ms();
        self.last_activity.store(now, Ordering::Release);
        if read && self.busy.load(Ordering::Acquire) == 0 {
            let began = self.arriving_since.compare_exchange(
                0,
                now + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
            if began.is_ok() {
                self.arriving.notify_one();
            }
        }
    }

    fn touch(&self) {
        self.last_activity.store(self.now_ms(), Ordering::Release);
    }

    /// Asks the connection to close now.
    fn shut(&self) {
        self.closing.store(true, Ordering::Release);
        self.close.notify_one();
    }

    /// Resolves once the connection should close: let go for a new one,
    /// its request's headers slower than `header_timeout`, or idle longer
    /// than `idle_timeout` with nothing in flight.
    pub async fn closed(&self, header_timeout: Duration, idle_timeout: Duration) {
        loop {
            if self.closing.load(Ordering::Acquire) {
                return;
            }
            let wait = match self.overdue(header_timeout, idle_timeout) {
                Ok(()) => return,
                Err(wait) => wait,
            };
            tokio::select! {
                () = self.close.notified() => return,
                () = self.arriving.notified() => {}
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// `Ok` when a timeout has passed, else how long until one might.
    fn overdue(&self, header_timeout: Duration, idle_timeout: Duration) -> Result<(), Duration> {
        if self.busy.load(Ordering::Acquire) > 0 {
            return Err(idle_timeout.min(header_timeout));
        }
        let now = self.now_ms();
        let arriving = self.arriving_since.load(Ordering::Acquire);
        let (since, limit) = match arriving {
            0 => (self.last_activity.load(Ordering::Acquire), idle_timeout),
            at => (at - 1, header_timeout),
        };
        let limit_ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        let waited = now.saturating_sub(since);
        if waited >= limit_ms {
            Ok(())
        } else {
            Err(Duration::from_millis(limit_ms - waited))
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(table) = self.table.upgrade() {
            table.remove(self);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_idlest_connection_without_a_request_in_flight_is_let_go_first() {
        let table = Table::new();
        let busy = table.open();
        let _working = busy.busy();
        let old = table.open();
        tokio::time::advance(Duration::from_millis(50)).await;
        let recent = table.open();
        assert_eq!(table.len(), 3);
        assert!(table.evict_idlest());
        assert!(old.closing.load(Ordering::Acquire));
        assert!(!recent.closing.load(Ordering::Acquire));
        assert_eq!(table.len(), 2);
        assert!(table.evict_idlest());
        assert!(!table.evict_idlest(), "the busy one stays");
        drop((old, recent));
    }

    #[tokio::test(start_paused = true)]
    async fn headers_arriving_too_slowly_and_idling_too_long_close_a_connection() {
        let table = Table::new();
        let header = Duration::from_secs(10);
        let idle = Duration::from_secs(60);
        let slow = table.open();
        slow.note(true);
        let started = Instant::now();
        slow.closed(header, idle).await;
        assert_eq!(started.elapsed().as_secs(), 10, "headers: 10 s");
        let quiet = table.open();
        let started = Instant::now();
        quiet.closed(header, idle).await;
        assert_eq!(started.elapsed().as_secs(), 60, "idle: 60 s");
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_in_flight_keeps_its_connection_however_long_it_takes() {
        let table = Table::new();
        let slot = table.open();
        let working = slot.busy();
        let wait = tokio::time::timeout(
            Duration::from_secs(600),
            slot.closed(Duration::from_secs(10), Duration::from_secs(60)),
        );
        assert!(wait.await.is_err(), "still open after 10 minutes");
        drop(working);
        assert_eq!(table.len(), 1);
        drop(slot);
        assert_eq!(table.len(), 0, "a slot leaves the table when dropped");
    }
}
