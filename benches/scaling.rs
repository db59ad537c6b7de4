//! Critical-path speed-up and work inflation of the distributed adaptive loop on thread ranks
//! (`scale.md`, "How to measure speed-up on a 2-core machine"): CPU time, not wall time, so a
//! 2-core machine can say what P dedicated cores would do.
//!
//! The run: the shock case with the library alone (`meshes/shock_box.msh`, 9 levels of a
//! moving cylinder, depth 3, PLUM with METIS balancing on the predicted weights, no output),
//! the mesh read and its topology built once on the main thread, each rank then holding its
//! part of it (`Run::on_parts`), as `plume run shock` does. Every rank's CPU clock is read at every collective
//! of start-up and of each step ([`plume::metrics::RunCpu`]); the read and the topology count
//! once, on the critical path, by the process's clock (their checks use rayon's pool). The
//! P = 1 row is the baseline of every speed-up and work inflation.
//!
//! For P = 1, 2, 4, 8, 16, 32 it prints the critical path, the CPU summed over ranks, the
//! speed-up (CPU at P = 1 / critical path at P), the work inflation (CPU at P / CPU at P = 1)
//! and start-up's share of the critical path; then the phases at P = 16: each phase's critical
//! path, largest rank and sum over ranks.
//!
//! `cargo bench --bench scaling` (`PLUME_SCALING_P=16` runs one P only, e.g. under `perf`).

#[path = "common/shock_case.rs"]
mod shock_case;

use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions};
use plume::comm::{launch_threads, CpuClock};
use plume::dist::{gather_cpu, GatheredPlum, Run};
use plume::metrics::{Phase, RunCpu};
use shock_case::{options, read_shock_mesh, shock_mark};

const LEVELS: usize = 9;

/// The shock case's run on `procs` thread ranks: its account, as rank 0 gathered it.
fn shock_run(procs: usize) -> RunCpu {
    // Before the ranks start the process is this thread and the pools it hands work to.
    let clock = CpuClock::Process;
    let start = clock.now();
    let mesh = read_shock_mesh();
    let read = clock.now() - start;
    let initial = InitialMesh::new(mesh).expect("a valid mesh");
    let topology = clock.now() - start - read;
    let mut runs = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut run = Run::on_parts(comm, &initial, options(), GatheredPlum::new(plum))?;
        let mut account = RunCpu::new(&gather_cpu(comm, run.startup_cpu())?);
        for level in 1..=LEVELS {
            let report = run.step(|leaf| shock_mark(leaf, level))?;
            account.add_step(&gather_cpu(comm, &report.cpu)?);
        }
        Ok(account)
    })
    .expect("the ranks run");
    let mut account = runs.swap_remove(0);
    account
        .add_serial(Phase::Read, read.as_secs_f64())
        .and_then(|()| account.add_serial(Phase::Topology, topology.as_secs_f64()))
        .expect("clock readings are finite");
    account
}

fn main() {
    let procs: Vec<usize> = match std::env::var("PLUME_SCALING_P") {
        Ok(p) => vec![p.parse().expect("PLUME_SCALING_P: a number of ranks")],
        Err(_) => vec![1, 2, 4, 8, 16, 32],
    };
    let serial_run = shock_run(1);
    let serial = serial_run.cpu_s();
    println!("shock case, {LEVELS} levels, PLUM (METIS), thread ranks; CPU seconds");
    println!("| P | critical path s | CPU s (sum) | speed-up | work inflation | start-up share |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut at16 = None;
    for &p in &procs {
        let run = if p == 1 {
            serial_run.clone()
        } else {
            shock_run(p)
        };
        println!(
            "| {p} | {:.3} | {:.3} | {:.2}x | {:.2} | {:.0} % |",
            run.critical_path_s(),
            run.cpu_s(),
            run.speed_up(serial).unwrap_or(f64::NAN),
            run.work_inflation(serial).unwrap_or(f64::NAN),
            100.0 * run.startup_share()
        );
        if p == 16 {
            at16 = Some(run);
        }
    }
    if let Some(run) = at16 {
        println!("\nP = 16, per phase (seconds over the run)");
        println!("| phase | critical path | largest rank | sum over ranks |");
        println!("| --- | ---: | ---: | ---: |");
        for (phase, cpu) in &run.phases {
            println!(
                "| {phase:?} | {:.3} | {:.3} | {:.3} |",
                cpu.critical_s, cpu.max_s, cpu.sum_s
            );
        }
    }
}
