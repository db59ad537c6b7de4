//! The `.vtu` writer on a uniformly refined box (criterion). Run with `cargo bench --bench vtu`.
//!
//! Builds a box of `PLUME_BOX=nx,ny,nz` cubes (default 16,16,16: 24,576 roots), refines it
//! twice (64 leaves per root: 1.6 M leaves; `26,26,25` gives the 6.5 M leaves of
//! `plume refine --uniform 2` on a 100k-element box), then for each compression:
//! - prints the file size, the writer's extra memory (the peak of the bytes allocated while
//!   writing, above what was allocated before, per leaf: a counting allocator), and the CPU
//!   time of a write (the process's, all threads: on a shared machine the wall clock also
//!   counts other people's work);
//! - times `vtu/<compression>`, writing the file into the temporary folder; the throughput is
//!   counted in bytes of the uncompressed file, so the two rates compare data per second.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plume::adapt::{AdaptOptions, Forest};
use plume::io::{Compression, VtuOptions, VtuPiece};
use plume::mesh::generate_box;

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The bytes `f` allocates at its peak above what was in use before it.
fn extra_bytes(f: impl FnOnce()) -> usize {
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - before
}

/// The CPU time the process has used, all threads.
fn cpu_seconds() -> f64 {
    plume::comm::CpuClock::Process.now().as_secs_f64()
}

fn forest() -> Forest {
    let cubes = std::env::var("PLUME_BOX").map_or([16, 16, 16], |s| {
        let n: Vec<usize> = s
            .split(',')
            .map(|x| x.parse().expect("PLUME_BOX=nx,ny,nz"))
            .collect();
        [n[0], n[1], n[2]]
    });
    let mesh = generate_box(cubes, [1.0; 3]).expect("box");
    let mut forest = Forest::new(mesh, AdaptOptions::default()).expect("forest");
    for _ in 0..2 {
        forest.mark_refine_where(|_| true);
        forest.adapt().expect("adapt");
    }
    forest
}

fn write(forest: &Forest, path: &Path, compression: Compression) {
    VtuPiece::forest(forest, &[])
        .expect("piece")
        .write(path, &VtuOptions { compression })
        .expect("write");
}

fn bench(c: &mut Criterion) {
    let forest = forest();
    let leaves = forest.nleaves();
    let path = std::env::temp_dir().join(format!("plume-bench-vtu-{}.vtu", std::process::id()));
    let mut raw_size = 0;
    let mut group = c.benchmark_group("vtu");
    group.sample_size(10);
    for (name, compression) in [("raw", Compression::None), ("zlib", Compression::Zlib)] {
        let extra = extra_bytes(|| write(&forest, &path, compression));
        let size = std::fs::metadata(&path).expect("written").len();
        if compression == Compression::None {
            raw_size = size;
        }
        let start = cpu_seconds();
        (0..3).for_each(|_| write(&forest, &path, compression));
        let cpu = (cpu_seconds() - start) / 3.0;
        println!(
            "{name}: {leaves} leaves, {:.1} MB ({:.1} bytes per leaf), extra memory {:.1} MB \
             ({:.1} bytes per leaf), {:.3} s of CPU per write ({:.0} MB/s of data per CPU \
             second)",
            size as f64 / 1e6,
            size as f64 / leaves as f64,
            extra as f64 / 1e6,
            extra as f64 / leaves as f64,
            cpu,
            raw_size as f64 / 1e6 / cpu
        );
        group.throughput(Throughput::Bytes(raw_size));
        group.bench_function(name, |b| b.iter(|| write(&forest, &path, compression)));
    }
    group.finish();
    std::fs::remove_file(path).ok();
}

criterion_group!(benches, bench);
criterion_main!(benches);
