//! The parallel start-up wired into `dist::Run`, as a scenario every backend runs alike: a
//! rank's share from its chunk is the share cut from the whole mesh, and runs started from
//! chunks (first owners by the curve across the ranks, and by METIS on rank 0's gathered graph)
//! give, step by step, the lines [`chunk_start`] returns on rank 0 — the same on threads and
//! under `mpirun`.

use super::{ensure, tagged_box};
use plume::adapt::{AdaptOptions, InitialMesh};
use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::comm::{Comm, CommExt};
use plume::dist::{Balancer, Diffusive, FirstOwners, GatheredPlum, Mark, Run, Share};
use plume::hash::mix64;
use plume::mesh::chunk::spread;
use plume::partition::{Diffusion, Sfc};
use plume::Result;

/// Steps of each run.
const STEPS: usize = 3;

/// Checks the share of every rank of a tagged box against [`Share::of_rank`], then runs
/// [`STEPS`] steps from chunks with each kind of first owners: per step, the metrics, the
/// trees' checksum and a digest of every root's owner.
pub fn chunk_start<C: Comm + ?Sized>(comm: &C) -> Result<Vec<String>> {
    let mesh = tagged_box([4, 3, 3]);
    let whole = InitialMesh::new(mesh.clone())?;
    let (rank, procs) = (comm.rank(), comm.size());
    let owner: Vec<u32> = (0..whole.nroots() as u64)
        .map(|g| (mix64(g) % procs as u64) as u32)
        .collect();
    let chunk = spread(comm, (rank == 0).then(|| mesh.clone()))?;
    let roots = chunk.first() as usize..chunk.first() as usize + chunk.len();
    let got = Share::of_chunk(comm, &chunk, &owner[roots])?;
    let want = Share::of_rank(&whole, &owner, rank as u32, procs)?;
    let (g, w) = (got.initial(), want.initial());
    let same = g.mesh() == w.mesh()
        && got.owner() == want.owner()
        && (0..g.nroots() as u32).all(|r| g.root_gid(r) == w.root_gid(r))
        && (0..g.mesh().nverts() as u32).all(|v| g.vertex_gid(v) == w.vertex_gid(v));
    comm.agree(ensure(same, || {
        format!("rank {rank}: the share from its chunk is not Share::of_rank's")
    }))?;
    let opts = AdaptOptions {
        max_depth: 2,
        nfields: 0,
        ..AdaptOptions::default()
    };
    let plum = PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(procs)
    };
    let mut lines = Vec::new();
    for first in [FirstOwners::Sfc, FirstOwners::Balancer] {
        let balancer: Box<dyn Balancer> = match first {
            FirstOwners::Sfc => Box::new(Diffusive::with(
                plum.clone(),
                Diffusion::default(),
                Box::new(Threshold::default()),
                Box::new(Sfc), // never asked: the curve runs on the ranks
            )?),
            FirstOwners::Balancer => Box::new(GatheredPlum::new(Plum::new(plum.clone())?)),
        };
        let mesh = (rank == 0).then(|| mesh.clone());
        let mut run = Run::from_chunk(comm, |c| spread(c, mesh), opts.clone(), balancer, first)?;
        for step in 0..STEPS {
            let x = 0.2 + 0.3 * step as f64;
            let report = run.step(|leaf| match (leaf.centroid[0] - x).abs() {
                d if d < 0.15 => Mark::Refine,
                d if d > 0.5 => Mark::Coarsen,
                _ => Mark::Keep,
            })?;
            let initial = run.forest().initial();
            let held: Vec<u32> = run
                .held_roots()
                .iter()
                .map(|&r| initial.root_gid(r))
                .collect();
            let mut owners = vec![0u32; whole.nroots()];
            for (p, roots) in comm.all_gather_serde(&held)?.into_iter().enumerate() {
                for g in roots {
                    owners[g as usize] = p as u32;
                }
            }
            let digest = owners.iter().fold(0u64, |h, &o| mix64(h ^ u64::from(o)));
            lines.push(format!(
                "{first:?} step {step}: {:?} checksum {:x} owners {digest:x}",
                report.metrics,
                run.checksum()?
            ));
        }
    }
    Ok(lines)
}
