//! Memory guards: every command estimates what it will allocate before it starts (and the
//! runs before each level), and refuses with one line naming what asked for it when that
//! exceeds the memory the process can still get. Counts and sizes are `u128` with saturating
//! arithmetic, so no estimate overflows: a size past `u128::MAX` stays there and is refused.
//!
//! The bytes per element, leaf, root or table entry below were measured with
//! `/usr/bin/time -v` (maximum resident set size) on the release build, at two or more sizes,
//! and rounded up; each constant says where its number comes from.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use plume::comm::{Comm, CommExt, ReduceOp};

use crate::error::{Error, Result};
use crate::words::ObjectiveName;

/// Most leaves the command line lets a refinement create (leaf and vertex numbers are 32-bit).
pub const MAX_LEAVES: u64 = 1 << 31;

/// Peak bytes per element of `plume mesh box` (the mesh, its `MeshInfo` and the writer):
/// 211 (`.vtu`) and 163 (`.msh`) at 3.07 million elements, 203 and 162 at 6 million.
pub const BOX_BYTES_PER_ELEMENT: u64 = 256;

/// Peak bytes per leaf of `plume refine` (forest, leaf mesh and `.vtu` output) on uniform
/// refinements of boxes: 413 at 384,000 leaves, 338 at 3.07 million (6,000 roots × 8³ and
/// 48,000 × 8²), 321 at 12.3 million (24,000 × 8³).
pub const REFINE_BYTES_PER_LEAF: u64 = 400;

/// Peak bytes per leaf of `plume run shock` and `plume run erosion` (forest, dual graph,
/// balancer state, `.vtu` of the last level), with [`RUN_BYTES_PER_ROOT`]: the shock case
/// with PLUM at P = 8 peaked at 426 bytes per leaf at 1.83 million leaves and 448 at 5.1
/// million; four erosion runs (19k to 480k roots, 114k to 1.25 million leaves) fit 434 bytes
/// per leaf plus 377 per root.
pub const RUN_BYTES_PER_LEAF: u64 = 512;

/// Peak bytes per leaf of `plume run euler` (forest with five fields a leaf, flow mesh with
/// each leaf's geometry and adjacency, halo, the stage's rates and primitive states, balancer,
/// `.vtu` pieces), with [`RUN_BYTES_PER_ROOT`]: whole runs' maximum resident set over their
/// most leaves, the process's few MB included: Sod at depth 5, 6 and 7 (40k, 166k and 2.1
/// million leaves, P = 1 and 2) 1,080, 940 and 980; the blast at depth 3 (127k leaves) 1,070
/// with PLUM, 1,090 writing every tenth output as VTK, 1,150 with SBN at P = 2 and 1,250 at
/// P = 4. 1,536 leaves a margin of 23 % over the largest.
pub const EULER_BYTES_PER_LEAF: u64 = 1536;

/// Peak bytes per root of the runs besides their leaves' (see [`RUN_BYTES_PER_LEAF`]).
pub const RUN_BYTES_PER_ROOT: u64 = 512;

/// Bytes per processor and root of an SBN level: every simulated processor keeps its own
/// location table (4 bytes a root) and the index of its job queue (slot, stamp and weight:
/// 16 bytes a root), as a real rank would; rounded up for the queues' heaps and the messages
/// in flight. Measured on the 50,136-root shock mesh: 18.2 bytes per processor and root at
/// P = 500 and 1,000 (one level), 20.2 at P = 4,000 (three levels).
pub const SBN_BYTES_PER_PROC_ROOT: u64 = 24;

/// Bytes per entry of the `P·F × P·F` dense matrices of PLUM's exact remaps, counted from
/// their `i64` tables: the dense similarity rows and Kuhn–Munkres' matrix for `totalv` (16;
/// 17 measured at P = 1,000 and 2,000), plus the costs and their sorted copy for `maxv` (32),
/// plus the send and receive tables and their sorted copies for `maxsr` (48). The greedy
/// and identity remaps work on the sparse matrix.
pub fn remap_bytes_per_entry(objective: ObjectiveName) -> u64 {
    match objective {
        ObjectiveName::TotalV => 16,
        ObjectiveName::MaxV => 32,
        ObjectiveName::MaxSR => 48,
        ObjectiveName::TotalVGreedy | ObjectiveName::Identity => 0,
    }
}

/// Bytes of a run (`plume run shock`, `plume run erosion`) over `roots` roots and `leaves`
/// leaves, at [`RUN_BYTES_PER_ROOT`] and [`RUN_BYTES_PER_LEAF`].
pub fn run_bytes(roots: u128, leaves: u128) -> u128 {
    bytes(roots, RUN_BYTES_PER_ROOT).saturating_add(bytes(leaves, RUN_BYTES_PER_LEAF))
}

/// Bytes of `plume run euler` over `roots` roots and `leaves` leaves, at
/// [`RUN_BYTES_PER_ROOT`] and [`EULER_BYTES_PER_LEAF`].
pub fn euler_bytes(roots: u128, leaves: u128) -> u128 {
    bytes(roots, RUN_BYTES_PER_ROOT).saturating_add(bytes(leaves, EULER_BYTES_PER_LEAF))
}

/// The leaves after an adaptation step that divides `divided` of `nleaves` leaves 1:8 (the
/// closure's green splits around them are left to the margin of the bytes per leaf).
pub fn leaves_after(nleaves: usize, divided: usize) -> u128 {
    nleaves as u128 + 7 * divided as u128
}

/// The leaves an adaptation step dividing `divided` of the `nleaves` leaves of this rank would
/// leave in this process, and on all ranks (a collective): every rank's when `ranks_here` > 1
/// (thread ranks share the process), this rank's under MPI.
///
/// # Errors
/// The reduction's failure.
pub fn leaves_after_step<C: Comm + ?Sized>(
    comm: &C,
    nleaves: usize,
    divided: usize,
    ranks_here: usize,
) -> plume::Result<(u128, u64)> {
    let own = leaves_after(nleaves, divided);
    let all = comm.reduce_u64(own.min(u128::from(u64::MAX)) as u64, ReduceOp::Sum)?;
    let here = if ranks_here > 1 { u128::from(all) } else { own };
    Ok((here, all))
}

/// `count × each` bytes, saturating instead of overflowing.
pub fn bytes(count: u128, each: u64) -> u128 {
    count.saturating_mul(u128::from(each))
}

/// What the process may still allocate, read once when a command starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    available: Option<u64>,
}

impl Budget {
    /// No known limit: every check passes (library callers that guard nothing).
    pub const UNLIMITED: Budget = Budget { available: None };

    /// A budget of `available` bytes.
    pub fn bytes(available: u64) -> Budget {
        Budget {
            available: Some(available),
        }
    }

    /// The memory this process can still get: the least of the system's `MemAvailable`, the
    /// room left under the memory limit of its cgroup and of every parent cgroup (v2
    /// `memory.max`, v1 `memory.limit_in_bytes`), and half the room left in its address-space
    /// limit (`ulimit -v`, `ADDRESS_SPACE_PER_BYTE`). Unlimited where none of them can be
    /// read (no `/proc`).
    pub fn of_system() -> Budget {
        let limits = [
            plume::memory::available(),
            cgroup_room(),
            address_space_room(),
        ];
        Budget {
            available: limits.into_iter().flatten().min(),
        }
    }

    /// The bytes available, if known.
    pub fn available(&self) -> Option<u64> {
        self.available
    }

    /// Refuses `need` bytes when they exceed the budget: "`what` would need about 12.3 GB of
    /// memory, but 8.0 GB is available; `hint`" (settings in `hint` as their configuration
    /// fields between backticks).
    ///
    /// # Errors
    /// [`Error::MemoryExceeded`].
    pub fn check(&self, what: &str, need: u128, hint: impl Into<Cow<'static, str>>) -> Result {
        match self.available {
            Some(available) if need > u128::from(available) => Err(Error::MemoryExceeded {
                what: what.to_string(),
                need,
                available,
                hint: hint.into(),
            }),
            _ => Ok(()),
        }
    }
}

/// The first whitespace-separated number after `key` on the line of `text` starting with it.
fn field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

/// Bytes of address space a byte of the estimates takes. The estimates count resident
/// memory; an address-space limit also counts memory reserved but not yet touched and the old
/// and new copies of a growing array: `plume refine` of 196,608 leaves, 83 MB resident, failed
/// to allocate under a 120 MB `ulimit -v` and ran under 160 MB.
const ADDRESS_SPACE_PER_BYTE: u64 = 2;

/// The room under `ulimit -v`: the soft address-space limit less the current virtual size,
/// in resident bytes ([`ADDRESS_SPACE_PER_BYTE`]).
fn address_space_room() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let limit = field(&limits, "Max address space")?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let size = field(&status, "VmSize:")?.checked_mul(1024)?;
    Some(limit.saturating_sub(size) / ADDRESS_SPACE_PER_BYTE)
}

/// The least room under the memory limits of this process's cgroup and its parents.
fn cgroup_room() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut rooms = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let (root, files) = match controllers {
            "" => ("/sys/fs/cgroup", ("memory.max", "memory.current")),
            c if c.split(',').any(|c| c == "memory") => (
                "/sys/fs/cgroup/memory",
                ("memory.limit_in_bytes", "memory.usage_in_bytes"),
            ),
            _ => continue,
        };
        let mut dir = PathBuf::from(root).join(path.trim_start_matches('/'));
        loop {
            rooms.extend(cgroup_level_room(&dir, files));
            if dir == Path::new(root) || !dir.pop() {
                break;
            }
        }
    }
    rooms.into_iter().min()
}

/// `limit − usage` of one cgroup folder, `None` without a limit ("max" or absent files).
fn cgroup_level_room(dir: &Path, (limit, usage): (&str, &str)) -> Option<u64> {
    let read = |name: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some(read(limit)?.saturating_sub(read(usage)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_saturate_instead_of_overflowing() {
        assert_eq!(bytes(3, 400), 1200);
        assert_eq!(bytes(u128::MAX / 2, 3), u128::MAX);
        let need = bytes(u128::from(u64::MAX) * u128::from(u64::MAX), 256);
        assert_eq!(need, u128::MAX);
        let err = Budget::bytes(1 << 30)
            .check("x", need, "less")
            .unwrap_err()
            .to_string();
        assert!(err.contains("e29 GB"), "{err}");
    }

    #[test]
    fn a_budget_refuses_only_what_exceeds_it() {
        let budget = Budget::bytes(2_000_000_000);
        assert!(budget.check("a", 2_000_000_000, "").is_ok());
        let err = Budget::bytes(96_000_000)
            .check("b", 147_456_000, "")
            .unwrap_err()
            .to_string();
        assert!(err.contains("about 147 MB of memory, but 96 MB"), "{err}");
        let err = budget
            .check("level 3", 2_500_000_000, "use fewer levels")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "level 3 would need about 2.5 GB of memory, but 2.0 GB is available; use fewer levels"
        );
        assert!(Budget::UNLIMITED.check("a", u128::MAX, "").is_ok());
    }

    #[test]
    fn fields_are_read_from_proc_style_text() {
        let text = "MemTotal:  100 kB\nMemAvailable:   42 kB\n";
        assert_eq!(field(text, "MemAvailable:"), Some(42));
        assert_eq!(
            field(
                "Max address space  unlimited  unlimited  bytes",
                "Max address space"
            ),
            None
        );
        assert_eq!(
            field("Max address space  1000  2000  bytes", "Max address space"),
            Some(1000)
        );
    }

    #[test]
    fn cgroup_room_is_limit_less_usage() {
        let dir = std::env::temp_dir().join(format!("plume-cgroup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files = ("memory.max", "memory.current");
        std::fs::write(dir.join("memory.current"), "300\n").unwrap();
        std::fs::write(dir.join("memory.max"), "max\n").unwrap();
        assert_eq!(cgroup_level_room(&dir, files), None);
        std::fs::write(dir.join("memory.max"), "1000\n").unwrap();
        assert_eq!(cgroup_level_room(&dir, files), Some(700));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
