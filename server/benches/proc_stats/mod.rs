//! What Linux's `/proc` says of a benchmark's child process.

/// Resident memory of process `pid`, in MiB (NaN when it cannot be read).
pub fn rss_mib(pid: u32) -> f64 {
    status_mib(pid, "VmRSS:")
}

/// The most resident memory process `pid` has held, in MiB (the kernel's
/// high-water mark; NaN when it cannot be read).
#[allow(dead_code)] // each benchmark uses its own subset
pub fn peak_mib(pid: u32) -> f64 {
    status_mib(pid, "VmHWM:")
}

fn status_mib(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / 1024.0)
}
