//! The folder's quota and age, and session file names.

use super::*;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("taskview-store-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn keeping(max_kib: u64) -> Keeping {
    Keeping {
        max_bytes: max_kib << 10,
        ..Keeping::default()
    }
}

fn lines(bytes: usize) -> Vec<String> {
    vec!["x".repeat(bytes - 1)]
}

/// Sets a session file's last write `age` ago.
fn written_ago(store: &Store, session: &str, age: Duration) {
    let when = SystemTime::now() - age;
    let file = File::options()
        .append(true)
        .open(store.file_of(session))
        .unwrap();
    file.set_modified(when).unwrap();
    store.rescan().unwrap();
}

#[test]
fn a_session_id_names_its_file_only_when_it_stays_inside_the_folder() {
    assert_eq!(
        file_stem("0b9c7c1e-6d3a-4c21-9f1e-2f4b8d1c0a11"),
        "0b9c7c1e-6d3a-4c21-9f1e-2f4b8d1c0a11"
    );
    for hostile in [
        "../../etc/passwd",
        "..",
        "",
        "a/b",
        "x\0y",
        &"a".repeat(300),
    ] {
        let stem = file_stem(hostile);
        assert!(stem.starts_with("session-"), "{hostile:?} → {stem}");
        assert_eq!(stem.len(), "session-".len() + 32);
    }
    assert_ne!(file_stem("a/b"), file_stem("a/c"));
}

#[test]
fn past_the_quota_the_sessions_written_longest_ago_go_first_and_the_folder_never_exceeds_it() {
    let dir = folder("quota");
    let store = Store::open(&dir, keeping(512)).unwrap();
    for (n, session) in ["old", "mid", "new"].iter().enumerate() {
        assert!(store
            .append(&[(session, &lines(100 << 10))])
            .unwrap()
            .is_empty());
        written_ago(&store, session, Duration::from_secs(300 - 100 * n as u64));
    }
    assert_eq!(store.charged(), 300 << 10);
    // 400 KiB more: the oldest two go (one would leave 700 KiB).
    assert!(store
        .append(&[("next", &lines(400 << 10))])
        .unwrap()
        .is_empty());
    let left: Vec<bool> = ["old", "mid", "new", "next"]
        .iter()
        .map(|s| store.file_of(s).exists())
        .collect();
    assert_eq!(left, [false, false, true, true]);
    assert!(store.charged() <= 512 << 10);
    let on_disk: u64 = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| is_session_file(&e.file_name().to_string_lossy()))
        .map(|e| charge(e.metadata().unwrap().len()))
        .sum();
    assert_eq!(on_disk, store.charged());
}

#[test]
fn what_cannot_fit_even_alone_is_not_written_and_the_rest_is() {
    let dir = folder("alone");
    let store = Store::open(&dir, keeping(256)).unwrap();
    let big = lines(300 << 10);
    let small = lines(10);
    let refused = store.append(&[("big", &big), ("small", &small)]).unwrap();
    assert_eq!(refused, [0]);
    assert!(!store.file_of("big").exists());
    assert!(store.file_of("small").exists());
}

#[test]
fn every_session_file_counts_at_least_the_smallest_charge() {
    let dir = folder("charge");
    let store = Store::open(&dir, keeping(4 * (SMALLEST_CHARGE >> 10))).unwrap();
    for n in 0..10 {
        store.append(&[(&format!("s{n}"), &lines(10))]).unwrap();
    }
    let files = fs::read_dir(&dir).unwrap().flatten();
    let sessions = files.filter(|e| is_session_file(&e.file_name().to_string_lossy()));
    assert_eq!(
        sessions.count(),
        4,
        "a tiny session costs 64 KiB of the quota"
    );
}

#[test]
fn sessions_not_written_for_longer_than_the_age_are_removed() {
    let dir = folder("age");
    let store = Store::open(&dir, Keeping::default()).unwrap();
    store
        .append(&[("stale", &lines(10)), ("fresh", &lines(10))])
        .unwrap();
    written_ago(&store, "stale", Duration::from_secs(31 * 86_400));
    written_ago(&store, "fresh", Duration::from_secs(29 * 86_400));
    store.sweep();
    assert!(!store.file_of("stale").exists());
    assert!(store.file_of("fresh").exists());
}

#[test]
fn one_folder_is_one_store_in_a_process() {
    let dir = folder("shared");
    let first = Store::open(&dir, keeping(100)).unwrap();
    let second = Store::open(&dir, Keeping::default()).unwrap();
    assert!(Arc::ptr_eq(&first, &second));
    assert_eq!(second.keeping, keeping(100));
}
