//! # plume — adaptive tetrahedral meshes and their load balancing
//!
//! A solver on P ranks holds a [`dist::Run`]: one rank's part of an adaptive run. Between
//! steps it gives the leaves held here with their faces and the other ranks' leaves across
//! them ([`dist::Run::halo`]); a step adapts to your marks, balances and migrates; the old →
//! new leaf map moves your own arrays along ([`dist::Run::step_with_transfer`]):
//!
//! ```
//! # use plume::{adapt::AdaptOptions, balance::{Plum, PlumOptions}, comm::launch_threads};
//! # use plume::{dist::{Family, GatheredPlum, Run}, mesh::generate_box};
//! # use std::collections::HashMap;
//! let leaves = launch_threads(2, |comm| {
//!     let plum = GatheredPlum::new(Plum::new(PlumOptions::new(2))?);
//!     let mesh = generate_box([4, 2, 2], [2.0, 1.0, 1.0])?;
//!     let mut run = Run::new(comm, mesh, AdaptOptions::default(), plum)?;
//!     // Your own value per leaf: any type, any container.
//!     let mut u: HashMap<_, f64> = run.forest().leaves().into_iter().map(|id| (id, 1.0)).collect();
//!     for _ in 0..3 {
//!         let halo = run.halo()?; // the leaves held here, their faces, ghosts across ranks
//!         let _ghost_u = run.exchange_halo(&halo, 1, |i, out| out.push(u[&halo.adjacency.leaves[i]]))?;
//!         let refine = (halo.adjacency.leaves.iter().copied()) // your indicator
//!             .filter(|&id| run.leaf_geometry(id).is_ok_and(|g| g.centroid[0] < 0.5))
//!             .collect();
//!         let mut next = HashMap::new(); // your transfer, family by family
//!         run.step_with_transfer(refine, Vec::new(), &mut |f: &Family| {
//!             let mean = f.old.iter().map(|o| u[o]).sum::<f64>() / f.old.len().max(1) as f64;
//!             next.extend(f.new.iter().map(|&id| (id, mean)));
//!         })?;
//!         u = next;
//!     }
//!     Ok(u.len())
//! })
//! .unwrap();
//! assert!(leaves.iter().sum::<usize>() > 96);
//! ```
//!
//! The data travels through one folder per stage:
//!
//! | stage | owns |
//! | --- | --- |
//! | [`mesh`] | the initial mesh (vertices, positively oriented tetrahedra), its topology, validation, the box generator |
//! | [`adapt`] | the refinement forest: edge-based 1:2 / 1:4 / 1:8 refinement, closure, coarsening, vertex identity, data transfer |
//! | [`graph`] | the dual graph of the initial mesh and its weights `PWgt`, `RWgt`, `CWgt` (current and predicted); any graph as a `GraphView` |
//! | [`io`] | Gmsh MSH 2.2 / 4.1 and VTK `.vtu` files, METIS graph files |
//! | [`balance`] | ranks in one process and migration, when to balance, the PLUM pipeline |
//! | [`partition`] | repartitioning a graph into parts of equal or given shares: the `Partitioner` trait, METIS multilevel k-way, recursive coordinate bisection |
//! | [`metrics`] | every reported metric: LoadImb / λ / LB, Cut%, TotalV / MaxV / MaxSR, SBN's QWgt and WSysLL, time-based LB / μLB / Transfer / η |
//! | [`remap`] | processor reassignment: the similarity matrix and the TotalV / MaxV / MaxSR remappers |
//! | [`sim`] | the simulated machine: P processors in virtual time running a level under SBN or PLUM |
//! | [`solver_model`] | the solver a processing level stands for: iterations per level, bytes per cut face (what `sim` and `dist` both read) |
//! | [`comm`] | ranks that talk: the transport trait `Comm` over threads or MPI (feature `mpi`), and the launcher |
//! | [`rng`] | the seeded random stream behind every random choice |
//! | [`memory`] | the memory still available, for the guards that refuse input or work too large for it |
//! | [`numbers`] | numbers as messages and file names echo them: short and bounded |
//!
//! Vocabulary used everywhere: *element* = tetrahedron; *leaf* = element of the current
//! computational mesh; *root* = element of the initial mesh; *tree* = a root with all its
//! descendants; *rank* = one of the P processing elements.
//!
//! A typical adaptive loop (the `plume-cases` crate, `cases/`, holds complete drivers):
//!
//! ```
//! use plume::{adapt::Forest, mesh::generate_box};
//! let mesh = generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap();
//! let mut forest = Forest::new(mesh, Default::default()).unwrap();
//! forest.mark_refine_where(|leaf| leaf.centroid[0] < 1.0);
//! forest.adapt().unwrap();
//! assert!(forest.nleaves() > 12);
//! ```
#![warn(missing_docs)]

pub mod adapt;
pub mod balance;
pub mod comm;
pub mod dist;
pub mod error;
pub mod graph;
pub mod hash;
pub mod io;
pub mod memory;
pub mod mesh;
pub mod metrics;
pub mod numbers;
mod panic_guard;
pub mod partition;
pub mod remap;
pub mod rng;
pub mod sim;
pub mod solver_model;

pub use error::{Error, Result};
