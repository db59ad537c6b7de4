//! Memory guards: every command estimates what it will allocate before it starts (and the
//! runs before each level), and refuses with one line naming what asked for it when that
//! exceeds the memory the process can still get. Counts and sizes are `u128` with saturating
//! arithmetic, so no estimate overflows: a size past `u128::MAX` stays there and is refused.
//!
//! The bytes per element, leaf, root or table entry below were measured with
//! `/usr/bin/time -v` (maximum resident set size) on the release build, at two or more sizes,
//! and given a stated margin ([`MARGIN_PERCENT`]); each constant says where its number comes
//! from and the command that measures it. Each command is checked at the footprint of what it
//! holds ([`Footprint`]), so that runs that fit are not refused.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use plume::comm::{Comm, CommExt, ReduceOp};

use crate::error::{Error, Result};
use crate::words::ObjectiveName;

/// Most leaves the command line lets a refinement create (leaf and vertex numbers are 32-bit).
pub const MAX_LEAVES: u64 = 1 << 31;

/// The margin every measured footprint below is given: a run's peak moves with where its
/// growing tables stand between two growths (the vertex store and the edge table double),
/// with the shape of the refinement and with the allocator. A run the estimate refuses needs
/// more than the largest peak measured per leaf and root plus this margin.
pub const MARGIN_PERCENT: u64 = 25;

/// `measured` bytes plus [`MARGIN_PERCENT`], rounded up.
pub const fn with_margin(measured: u64) -> u64 {
    (measured * (100 + MARGIN_PERCENT)).div_ceil(100)
}

/// What a command holds at its peak: bytes per root of its initial mesh besides the root's
/// leaves (the mesh read, its topology, the dual graph and the tables sized by the roots) and
/// bytes per leaf (the forest, its vertices and bisected edges, the output), each measured
/// and given the [`MARGIN_PERCENT`] margin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes per root, besides its leaves.
    pub per_root: u64,
    /// Bytes per leaf.
    pub per_leaf: u64,
}

impl Footprint {
    /// The footprint of the measured peak bytes per root and per leaf, each with the margin.
    pub const fn measured(per_root: u64, per_leaf: u64) -> Footprint {
        Footprint {
            per_root: with_margin(per_root),
            per_leaf: with_margin(per_leaf),
        }
    }

    /// Bytes of `roots` roots and `leaves` leaves, saturating.
    pub fn bytes(&self, roots: u128, leaves: u128) -> u128 {
        bytes(roots, self.per_root).saturating_add(bytes(leaves, self.per_leaf))
    }
}

/// Peak bytes per element of `plume mesh box` (the mesh, its `MeshInfo` and the writer),
/// measured 166 (`.msh`) and 170 (`.vtu`) at 6 million elements (`--cells 100 100 100`),
/// 168 at 1.3 million (`--cells 60 60 60`), 167 at 1.43 million (`--cells 62 62 62`):
/// `/usr/bin/time -v plume mesh box --cells 100 100 100 -o box.vtu`, maximum resident set
/// less the 4.5 MB of `plume --version`, over the elements.
pub const BOX_BYTES_PER_ELEMENT: u64 = with_margin(170);

/// `plume refine` (the mesh read, the forest, its vertices and bisected edges, the `.vtu`
/// written from it): 61 bytes per leaf, the slope of uniform refinements of a box between
/// two depths (60.8 from 384,000 to 3.07 million leaves of 6,000 roots, 60.6 from 3.07 to
/// 24.6 million of 48,000, 61.4 from 1.3 to 10.4 million of 162,000), and 305 bytes per
/// root besides its leaf (the mesh read and its topology: 366 a root with its one leaf at
/// `--uniform 0` on 162,000 roots, 333 on 1.43 million). Measured with
/// `/usr/bin/time -v plume refine box.msh --uniform L -o out.vtu` on boxes of
/// `plume mesh box --cells N N N` (N = 10, 20, 30, 62).
pub const REFINE: Footprint = Footprint::measured(305, 61);

/// `plume graph` (the forest of `--uniform`, the dual graph of the roots and its METIS
/// text): 49 bytes per leaf (the slope from 384,000 to 3.07 million leaves of 6,000 roots;
/// 40 from 1.3 to 10.4 million of 162,000) and 500 per root besides its leaf (549 with its
/// leaf at `--uniform 0`, on 162,000 and 1.43 million roots). Measured as [`REFINE`], with
/// `plume graph box.msh --uniform L -o box.graph`.
pub const GRAPH: Footprint = Footprint::measured(500, 49);

/// `plume run shock` and `plume compare shock`, per root and rank held in the process (each
/// rank's copy of the initial mesh, its topology and locator, the dual graph, the owners) and
/// per leaf (the forest, its vertices and bisected edges, the weights, the `.vtu` of the last
/// level). A fit of twelve runs gives 414 a root copy and 104 a leaf; the footprint is the
/// least that covers every run: 480 and 140, which the 1.43-million-root box on P = 2 for one
/// level (2.2 million leaves, 1.59 GB: 0.97 of it) and the 162,000-root box at P = 1 for five
/// levels (15.1 million leaves, 2.13 GB: 0.99; its vertex store and edge table are sized for
/// the front's marks, most of them at the maximum depth) reach. The published case (50,136
/// roots, 9 levels, 1.83 million leaves) peaks at 202 MB on P = 1 and 321 MB on P = 8.
/// Measured with `/usr/bin/time -v plume run shock --procs P --levels L --mesh box.msh`.
pub const SHOCK: Footprint = Footprint::measured(480, 140);

/// `plume run erosion`, per root and rank held in the process and per leaf: the least that
/// covers five runs, 660 and 105 (the slope is 100 a leaf from 198,000 to 1.2 million leaves
/// of 75,264 roots at P = 1, `--max-depth 1` and 2; 1.2 million root copies at P = 8 took 499
/// each). Measured with `/usr/bin/time -v plume run erosion --procs P --cells NX NY NZ`.
pub const EROSION: Footprint = Footprint::measured(660, 105);

/// `plume run euler`, per root and rank held in the process and per leaf (the forest with
/// five fields a leaf, the flow mesh with each leaf's geometry and adjacency, the halo, the
/// stage's rates and states, the balancer, the `.vtu` pieces): the least that covers seven
/// runs, 800 and 1,600. The blast at depth 3 on P = 1 writing every iteration (162,651 leaves,
/// 262 MB) reaches 0.98 of it; Sod across a 48,000-root box at depth 3 (1.08 million leaves)
/// took 960 a leaf, and the blast on 162,000 unrefined roots 1,780 a root with its leaf.
/// Measured with `/usr/bin/time -v plume run euler --output-every 1 ...`.
pub const EULER: Footprint = Footprint::measured(800, 1600);

/// Bytes per root of an SBN level on the simulated machine: the level's starting places, the
/// data's true places and where each root was processed (4 bytes each), each root's queue slot,
/// heap entries and directory entries where it is queued, held and homed (a few per root,
/// 16–32 bytes each), and the messages in flight. Rounded up from the whole `compare shock
/// --procs 2,…,2048` on the 50,136-root mesh, which peaked at 253 MB with the mesh and forests.
pub const SBN_BYTES_PER_ROOT: u64 = 256;

/// Bytes per processor of an SBN level on the simulated machine: its processor, clock, inbox
/// and the empty maps of its queue and directory.
pub const SBN_BYTES_PER_PROC: u64 = 4096;

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
    fn footprints_add_the_margin_to_what_was_measured() {
        assert_eq!(MARGIN_PERCENT, 25);
        assert_eq!(
            (with_margin(61), with_margin(305), with_margin(0)),
            (77, 382, 0)
        );
        let footprint = Footprint::measured(305, 61);
        assert_eq!(footprint.bytes(2, 10), 2 * 382 + 10 * 77);
        assert_eq!(footprint.bytes(u128::MAX, 1), u128::MAX);
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
