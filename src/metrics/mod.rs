//! Every metric a run reports (`docs/fields.md`), as pure functions over plain
//! slices: per-rank loads, assignments (`root → rank`) and the dual graph's CSR arrays.
//!
//! | file | computes | source |
//! | --- | --- | --- |
//! | `imbalance` | [`Imbalance`]: `LoadImb = max/mean`, `λ = (max/mean − 1)·100`, `LB = mean/max`; [`rank_loads`] | [Harvey 2001, §5.3.1], [Pearce 2014], [Huck 2010, eq. 3] |
//! | `moments` | [`Moments`]: `σ`, skewness `g₁`, kurtosis `g₂` of per-rank loads | [Pearce 2014, eq. 2.6–2.8] |
//! | `model_fit` | [`ModelFit`]: a load model's per-rank values against measured times (rank correlation, least-squares line, R², RMSE) | [Pearce 2014, eq. 3.8] |
//! | `cut` | [`Cut`]: `Cut%` of an assignment, each dual edge once | [Harvey 2001, §5.3.1] |
//! | `movement` | [`Movement`]: `sent`, `recv`, `TotalV`, `MaxV`, `MaxSR` between two assignments | [Harvey 2001, §5.1.3, §5.3.1] |
//! | `cost` | [`CostModel`]: SBN's `Wgt`, `Comm`, `Remap`, `QWgt`, and [`SysLoad`] (`WSysLL`) | [Harvey 2001, §4.2, §5.4.1] |
//! | `cpu` | [`CpuAccount`], [`RunCpu`]: ranks' CPU seconds per phase, critical path, speed-up, work inflation | `docs/performance.md` |
//! | `time` | [`TimeBalance`]: `LB`, `μLB`, `Transfer`, `η` from measured times | [Huck 2010, eq. 1–6] |
//!
//! Vocabulary: an *assignment* is a slice with one rank per root (`assignment[v] = p`);
//! `old` is the assignment before balancing (`O(v)`), `new` after (`A(v)`); *loads* are
//! per-rank sums (`W_p`). Weights are the dual graph's integer `PWgt`, `RWgt`, `CWgt`
//! ([`crate::graph::Weights`]).
//!
//! ```
//! use plume::metrics::{rank_loads, Imbalance, Movement};
//! let pwgt = [4, 4, 2, 6];
//! let old = [0, 0, 1, 1];
//! let new = [0, 1, 1, 0];
//! let loads = rank_loads(&pwgt, &new, 2);
//! assert_eq!(loads, vec![10, 6]);
//! assert_eq!(Imbalance::from_u64(&loads).load_imb, 1.25);
//! let rwgt = [5, 5, 3, 7];
//! let m = Movement::new(&old, &new, &rwgt, 2);
//! assert_eq!((m.sent, m.recv), (vec![5, 7], vec![7, 5]));
//! assert_eq!((m.total_v, m.max_v, m.max_sr), (12, 7, 14));
//! ```

mod cost;
mod cpu;
mod cut;
mod imbalance;
mod model_fit;
mod moments;
mod movement;
mod time;

pub use cost::{CostModel, CostScales, GridSlowdowns, Slowdowns, SysLoad};
pub use cpu::{CpuAccount, Phase, PhaseCpu, RankCpu, RunCpu};
pub use cut::Cut;
pub use imbalance::{rank_loads, Imbalance};
pub use model_fit::ModelFit;
pub use moments::Moments;
pub use movement::Movement;
pub use time::TimeBalance;
