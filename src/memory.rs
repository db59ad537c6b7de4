//! What the machine can give: the memory still available, for the guards that refuse work or
//! input too large for it.

/// Memory the system can still give, in bytes, from `MemAvailable` in `/proc/meminfo` (`None`
/// where it cannot be read, e.g. outside Linux).
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}
