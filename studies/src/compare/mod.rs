//! PLUM and SBN side by side on the shock-wave case (`plume compare shock`): one adaptation,
//! balanced by both methods for every P, timed on the same simulated machine. Writes
//! `compare.json` (`{"procs", "plum": [summary…], "sbn": [summary…]}`), `compare.md` ([Harvey 2001]
//! tables 8 and 9 with the published values beside ours, and the simulated times the seed
//! could not measure) and SVG charts of LoadImb, Cut% and MaxSR against P (its figure 21), and
//! of SBN's simulated time relative to PLUM's.
//!
//! LoadImb is `max W / mean W` (leaves per processor) for both methods, in both files, as in
//! every `metrics.json`; SBN's own measure, [Harvey 2001]'s `max QWgt / WSysLL`, is
//! `qwgt_load_imb`, shown in its own column beside the values [Harvey 2001] published for it.
//!
//! Both files name the simulated machine and list its constants (`machine` in `compare.json`),
//! so a reader sees which times were modelled with what.
//!
//! | file | owns |
//! | --- | --- |
//! | `comparison.rs` | running the comparison ([`compare`], [`Comparison`]) |
//! | `hier.rs` | the hierarchical balancer's run with its largest databases ([`HierRun`]), and the graph flat PLUM gathers ([`GatheredGraph`]) |
//! | `minex.rs` | MinEX beside PLUM, replayed on the recorded levels (`--minex`: [`minex_group`]) |
//! | `published.rs` | [Harvey 2001]'s published table 8 ([`SEED_TABLE_8`]) |
//! | `rows.rs` | one P's averages of both methods, read from the runs' summaries |
//! | `json.rs` | `compare.json` |
//! | `markdown.rs` | `compare.md` and the machine's table ([`machine_table`]) |
//! | `charts.rs` | the SVG charts against P |
//! | `write.rs` | writing the files into the run folder ([`Comparison::write`]) |

mod charts;
mod comparison;
mod hier;
mod json;
mod markdown;
mod minex;
mod published;
mod rows;
mod write;

pub use comparison::{compare, compare_recording, Comparison, HierChoice};
pub use hier::{Databases, GatheredGraph, HierRun};
pub use markdown::machine_table;
pub use minex::{minex_group, MinexRow};
pub use published::SEED_TABLE_8;
