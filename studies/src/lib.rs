//! plume's studies: seed 001's 2-D erosion experiment and its model-only studies, seed 002's
//! lb_test at its scale (central strategies, PLUM and HybridLB), and PLUM
//! against SBN on the shock case for several P. They run the cases of `plume_cases` and write
//! their tables, JSON and charts; no command line here (the `plume` command, in plume-cli,
//! parses the options and calls them).
#![warn(missing_docs)]

pub mod compare;
pub mod erosion2d;
pub mod hier;
pub mod minex;
pub mod model_study;
