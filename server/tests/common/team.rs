//! Servers of a team's board for the tests: writers of some folders and
//! readers, on a database of the test cluster (`postgres`).

use std::time::Duration;

/// A server that writes the sessions of `dirs` to the store at `url` as
/// `machine` (person `ana`), and reads the others'.
pub fn writer(dirs: &[std::path::PathBuf], machine: &str, url: &str) -> taskview_server::Config {
    let mut config = super::config(taskview_server::Source::Recordings {
        dirs: dirs.to_vec(),
        watching: taskview_server::sources::recordings::Watching::every(Duration::from_millis(50)),
    });
    config.store = Some(store(url, machine, true));
    config
}

/// A server that only reads the store at `url`.
pub fn reader(url: &str) -> taskview_server::Config {
    let mut config = super::config(taskview_server::Source::Team);
    config.store = Some(store(url, "team-reader", false));
    config
}

/// The store settings of a test server.
pub fn store(
    url: &str,
    machine: &str,
    writes: bool,
) -> taskview_server::sources::store::StoreConfig {
    taskview_server::sources::store::StoreConfig {
        url: url.parse().expect("a PostgreSQL URL"),
        machine: machine.into(),
        person: "ana".into(),
        content: Default::default(),
        unmasked: false,
        writes,
        pending_mb: taskview_server::sources::store::DEFAULT_PENDING_MB,
        keep_days: None,
    }
}
