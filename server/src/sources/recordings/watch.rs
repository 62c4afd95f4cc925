//! Changes come from the operating system: a filesystem watcher (inotify,
//! FSEvents, …; the `notify` crate) recursive on each recordings folder. A
//! folder that does not exist yet is waited for through its nearest
//! existing parent. Paths that changed arrive in debounced batches. Where
//! notifications cannot be had (an unsupported filesystem, the inotify
//! watch limit), the caller's slow rescan is all there is.

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;

/// How long a burst of changes may go on before its batch is read.
const DEBOUNCE: Duration = Duration::from_millis(30);

/// What the watcher reports.
pub(super) enum Signal {
    /// Something changed at this path.
    Changed(PathBuf),
    /// Changes were lost (the kernel's queue overflowed): look at everything.
    Rescan,
}

/// A batch of changes.
#[derive(Default)]
pub(super) struct Batch {
    pub paths: HashSet<PathBuf>,
    pub rescan: bool,
}

/// The watcher of the recordings folders.
pub(super) struct Watch {
    watcher: Option<RecommendedWatcher>,
    signals: mpsc::UnboundedReceiver<Signal>,
    /// Folders not watched recursively yet (they do not exist yet, or their
    /// watch failed), each with the parent watched in its place.
    waiting: Vec<(PathBuf, Option<PathBuf>)>,
}

impl Watch {
    /// Watches `roots`; `notify` false: no notifications at all (the caller's rescan only).
    pub(super) fn start(roots: &[PathBuf], notify: bool) -> Watch {
        let (tx, signals) = mpsc::unbounded_channel();
        let watcher = notify
            .then(|| {
                let handler = move |event: notify::Result<notify::Event>| {
                    let signals = match event {
                        Ok(e) if e.need_rescan() => vec![Signal::Rescan],
                        // Reads (ours too: a walk opens folders) change nothing.
                        Ok(e) if e.kind.is_access() => Vec::new(),
                        Ok(e) => e.paths.into_iter().map(Signal::Changed).collect(),
                        Err(_) => vec![Signal::Rescan],
                    };
                    for s in signals {
                        let _ = tx.send(s);
                    }
                };
                notify::recommended_watcher(handler)
                    .map_err(|e| {
                        tracing::warn!("no filesystem notifications ({e}); rescanning only")
                    })
                    .ok()
            })
            .flatten();
        let mut watch = Watch {
            watcher,
            signals,
            waiting: roots.iter().map(|r| (r.clone(), None)).collect(),
        };
        watch.arrived();
        watch
    }

    /// Watches the waited-for folders that exist now; returns them. A
    /// folder still missing has its nearest existing parent watched instead.
    pub(super) fn arrived(&mut self) -> Vec<PathBuf> {
        let Some(watcher) = self.watcher.as_mut() else {
            return Vec::new();
        };
        let mut arrived = Vec::new();
        for (root, parent) in std::mem::take(&mut self.waiting) {
            if root.is_dir() {
                match watcher.watch(&root, RecursiveMode::Recursive) {
                    Ok(()) => {
                        if let Some(p) = &parent {
                            let _ = watcher.unwatch(p);
                        }
                        arrived.push(root);
                        continue;
                    }
                    // Not tried again (a recursive watch walks the tree):
                    // the rescan finds its changes.
                    Err(e) => tracing::warn!(
                        "cannot watch {} ({e}); its changes are found by the rescan every --poll-ms",
                        root.display()
                    ),
                }
                if let Some(p) = &parent {
                    let _ = watcher.unwatch(p);
                }
                continue;
            }
            let nearest = root
                .ancestors()
                .skip(1)
                .find(|a| a.is_dir())
                .map(Path::to_path_buf);
            let parent = match (parent, nearest) {
                (Some(old), Some(new)) if old == new => Some(old),
                (old, Some(new)) => {
                    if let Some(old) = old {
                        let _ = watcher.unwatch(&old);
                    }
                    watcher
                        .watch(&new, RecursiveMode::NonRecursive)
                        .ok()
                        .map(|()| new)
                }
                (old, None) => old,
            };
            self.waiting.push((root, parent));
        }
        arrived
    }

    /// The next batch of changes: waits up to `wait` for a first one, then
    /// gathers what follows it within the debounce time. Empty when
    /// nothing came.
    pub(super) async fn next(&mut self, wait: Duration) -> Batch {
        let mut batch = Batch::default();
        let first = match tokio::time::timeout(wait, self.signals.recv()).await {
            Ok(Some(first)) => first,
            // No watcher sends: wait all the same.
            Ok(None) => {
                tokio::time::sleep(wait).await;
                return batch;
            }
            Err(_) => return batch,
        };
        batch.add(first);
        tokio::time::sleep(DEBOUNCE).await;
        while let Ok(signal) = self.signals.try_recv() {
            batch.add(signal);
        }
        batch
    }
}

impl Batch {
    fn add(&mut self, signal: Signal) {
        match signal {
            Signal::Changed(path) => {
                self.paths.insert(path);
            }
            Signal::Rescan => self.rescan = true,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.rescan
    }
}
