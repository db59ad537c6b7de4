//! The shock-wave test case ([Harvey 2001, §5.3], `docs/commands.md`): a cylinder with its axis
//! along z moves along +x across a box elongated along x; leaves it touches are refined up to a
//! maximum depth, refined leaves it has left behind are coarsened, one level per adaptation. Each
//! adaptation is followed by one or more *tracks* ([`Track`]): a balancer on P ranks (PLUM,
//! SBN, or none) that owns its assignment, processes the level on the simulated machine and
//! records the level's metrics. The adaptation does not depend on the balancing, so
//! `plume compare` runs every (method, P) track on one adaptation. `plume run shock` with PLUM
//! or no balancer runs the case on real ranks instead ([`ranks`]), with the same marks
//! (`FrontAt`) and the same level records, made on rank 0.
//!
//! **Calibration** (the published case grows from 50,000 to 1,833,730 elements over 9 levels):
//! on the shipped 50,136-element mesh of [0, 4] × [0, 1]², a front of radius 0.16 growing by
//! 13.5% a level, starting at x = 0.3 and moving 0.3 a level, refined to depth 3, grows the mesh
//! to 68,128 / 130,053 / 168,192 / 218,340 / 347,818 / 547,022 / 859,340 / 1,274,645 /
//! 1,828,034 leaves over the 9 levels. A constant radius cannot reach the published growth
//! (the refined band's volume stays constant), hence the growth.
//!
//! **Solver model.** Between adaptations the solver runs `N_adapt` iterations; an iteration on a
//! rank costs `T_iter` per leaf it owns. The level's modelled solver time is that of the most
//! loaded rank; PLUM's gain/cost rule uses the same model.
//!
//! | file | owns |
//! | --- | --- |
//! | `config.rs` | the run's configuration ([`ShockConfig`]: its [`Balancer`], when PLUM balances, [`BalanceAt`]) and its options' words in the reports |
//! | `front.rs` | the moving front ([`Front`]), where it stands at a level and the leaves it marks |
//! | `serial.rs` | the case in one process ([`run`], [`run_many`]), the [`track`] each balancer follows it with, a finished [`ShockRun`] |
//! | `sequence.rs` | the recorded sequence of weights any repartitioner can replay ([`Sequence`]) |
//! | `track.rs` | what a balancer's track is to the serial driver ([`Track`]) |
//! | `memory.rs` | the memory checks before the run and before each level ([`check_memory`]) |
//! | `plum_track.rs`, `sbn_track.rs` | PLUM's (and no balancing's) and SBN's tracks on the simulated machine |
//! | `ranks.rs`, `sbn_ranks.rs` | the case on real ranks and the records of a level processed there |
//! | `select.rs` | `--policy select` on ranks: its balancer and its records |
//! | `record.rs`, `stage.rs` | what a level records, and the stages it is timed in |
//! | `mesh.rs` | the published case's mesh |

mod config;
mod front;
pub mod load_models;
mod memory;
mod mesh;
mod plum_track;
pub mod ranks;
mod record;
pub mod run_ranks;
mod sbn_ranks;
mod sbn_track;
mod select;
mod sequence;
mod serial;
mod stage;
mod table;
mod track;

pub use crate::words::Balancer;
pub use config::ShockConfig;
pub use front::Front;
pub use memory::check_memory;
pub use mesh::{published_mesh, published_mesh_and_source, PUBLISHED_MESH_NAME};
pub use plume::dist::BalanceAt;
pub use record::{error_pct, LevelRecord, MeasuredRecord, SbnRecord, SimRecord, Traffic};
pub use sequence::{record as record_sequence, run_recording, Sequence, SequenceLevel};
pub use serial::{run, run_many, track, ShockRun};
pub use stage::{balancer_ms, Stage, StageTimes};
pub use track::Track;
