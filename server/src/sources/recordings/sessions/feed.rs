//! A Collector's file of many sessions in the folders (`otlp::Feed`): not
//! listed itself, fed to the telemetry store by its new lines, whose files
//! list its sessions.

use super::{index, Sessions};
use crate::sources::telemetry::Feed;

impl Sessions {
    /// Feeds the Collector files found from now on to `feed` (their
    /// sessions are listed from its store) instead of listing each as one.
    pub(in crate::sources::recordings) fn feed_collector_files(&mut self, feed: Feed) {
        self.feed = Some(feed);
    }

    /// Whether telemetry file `i` is a Collector's, to feed to the store
    /// instead of listing it (`Feed::takes`, from its head).
    pub(super) fn is_collector_file(&self, i: usize) -> bool {
        let path = &self.files[i].path;
        self.feed
            .as_ref()
            .is_some_and(|feed| index::read_head(path).is_ok_and(|h| feed.takes(path, &h)))
    }

    /// Feeds Collector file `i`'s lines written since it was last fed.
    pub(super) fn feed(&mut self, i: usize) {
        let path = &self.files[i].path;
        if let Some(Err(e)) = self.feed.as_mut().map(|feed| feed.feed(path)) {
            tracing::warn!("cannot feed {} to the telemetry store: {e}", path.display());
        }
    }
}
