//! The shutdown signal shared by the server, its connections and scenarios.

use std::time::Duration;
use tokio::sync::watch;

/// A cloneable view of the shutdown flag.
#[derive(Clone, Debug)]
pub struct Shutdown(watch::Receiver<bool>);

/// Raises the shutdown flag.
#[derive(Debug)]
pub struct Trigger(watch::Sender<bool>);

/// A new flag, lowered.
pub fn channel() -> (Trigger, Shutdown) {
    let (tx, rx) = watch::channel(false);
    (Trigger(tx), Shutdown(rx))
}

impl Trigger {
    /// Tells every holder of the [`Shutdown`] to stop.
    pub fn fire(&self) {
        self.0.send_replace(true);
    }
}

impl Shutdown {
    /// Resolves once shutdown has been requested (or the trigger is gone).
    pub async fn requested(&mut self) {
        // An error means the trigger was dropped: treat that as shutdown too.
        let _ = self.0.wait_for(|down| *down).await;
    }

    /// Sleeps for `duration`; false when shutdown came first.
    pub async fn sleep(&mut self, duration: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(duration) => true,
            _ = self.requested() => false,
        }
    }
}
