//! The memory bound of `plume study hier` (issue 24, item 3): at small sizes, the heap peak of
//! one P's balances stays under the bytes per object and per processor the study documents
//! (`plume_studies::hier::memory`), and grows with the objects and the processors no faster
//! than those constants say, so that the estimate that refuses a study too large for the
//! machine bounds the full study (P = 65,536, 1,048,576 objects) too. One test in this
//! binary: the counting allocator sees every thread of the process.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use plume::balance::hier::LbTest;
use plume_studies::hier::memory::{procs_bytes, sweep_bytes, BYTES_PER_OBJECT, BYTES_PER_PROC};
use plume_studies::hier::{balance_all, run, HierConfig};

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        IN_USE.fetch_sub(layout.size(), Ordering::SeqCst);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Heap bytes `f` takes at its peak above what was in use before it.
fn peak_of(f: impl FnOnce()) -> usize {
    let base = IN_USE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    f();
    PEAK.load(Ordering::SeqCst) - base
}

/// The peak of generating lb_test and balancing it with every balancer at one P.
fn one_p(objects: usize, procs: usize) -> usize {
    let cfg = HierConfig {
        objects,
        lowest: 64,
        ..HierConfig::seed_study()
    };
    peak_of(|| {
        let (objs, records) = LbTest::new(objects, procs).generate().unwrap();
        balance_all(&cfg, &objs, &records, procs).unwrap();
    })
}

#[test]
fn the_peak_stays_under_the_documented_bytes_per_object_and_processor() {
    let (n, p) = (32_768, 512);
    let base = one_p(n, p);
    let more_objects = one_p(2 * n, p);
    let more_procs = one_p(n, 4 * p);
    eprintln!(
        "peak {base} B; per object {:.0} B, per processor {:.0} B",
        (more_objects - base) as f64 / n as f64,
        (more_procs as f64 - base as f64) / (3 * p) as f64
    );
    for (peak, n, p) in [
        (base, n, p),
        (more_objects, 2 * n, p),
        (more_procs, n, 4 * p),
    ] {
        assert!(
            peak as u128 <= procs_bytes(n, p),
            "{n} objects on {p}: {peak} B above the estimate {}",
            procs_bytes(n, p)
        );
    }
    // The slopes: what one more object or processor costs.
    assert!(more_objects - base <= BYTES_PER_OBJECT as usize * n);
    assert!(more_procs.saturating_sub(base) <= BYTES_PER_PROC as usize * 3 * p);

    // The sweep: one copy of the objects per level of full databases.
    let cfg = HierConfig {
        procs: vec![128],
        objects: 128,
        lowest: 64,
        sweep_procs: 256,
        sweep_objects: n,
        sweep_levels: vec![9],
        ..HierConfig::seed_study()
    };
    let sweep = peak_of(|| {
        run(&cfg, |_| ()).unwrap();
    });
    eprintln!(
        "sweep of 9 levels: {sweep} B, {:.0} B per object and level above one P's",
        (sweep as f64 - procs_bytes(n, 256) as f64) / (9 * n) as f64
    );
    assert!(sweep as u128 <= sweep_bytes(n, 256, 9));
}
