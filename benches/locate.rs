//! Benchmarks of the geometric queries (criterion). Run with `cargo bench --bench locate`.
//! On a ~100,000-root box refined once uniformly (~800,000 leaves):
//!
//! - `locate/points`: point location of random points in the mesh (R*-tree, then descent);
//!   throughput in points.
//! - `locate/build`: building the R*-tree over the roots (once per run).
//! - `mark/*`: the marking walk of `refine --sphere` (a leaf is selected when its bounding
//!   ball meets the sphere) around a sphere holding about 0.1% and 1% of the mesh: over every
//!   leaf (`walk`, as before the locator) against over the leaves of the roots the locator
//!   finds within reach (`located`, the query included): the cost follows the region.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plume::adapt::{AdaptOptions, Forest, LeafView, Locator, Region};
use plume::hash::mix64;
use plume::mesh::{generate_box, geometry};

fn forest() -> Forest {
    let cells = [24, 24, 29];
    let size = cells.map(|c| c as f64 / cells[0] as f64);
    let mut f = Forest::new(generate_box(cells, size).unwrap(), AdaptOptions::default()).unwrap();
    f.mark_refine_where(|_| true);
    f.adapt().unwrap();
    f
}

/// `refine --sphere`'s indicator: the leaf's bounding ball meets the sphere.
fn meets(centre: [f64; 3], radius: f64, l: &LeafView) -> bool {
    let size2 = l
        .corners
        .iter()
        .map(|&c| geometry::dist2(c, l.centroid))
        .fold(0.0, f64::max);
    let reach = radius + size2.sqrt();
    geometry::dist2(centre, l.centroid) <= reach * reach
}

fn locate(c: &mut Criterion) {
    let f = forest();
    let locator = Locator::new(f.mesh());
    let mut g = c.benchmark_group("locate");
    let mut state = 1u64;
    let mut next = || {
        state = mix64(state);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let points: Vec<[f64; 3]> = (0..10_000)
        .map(|_| [next(), next(), next() * 29.0 / 24.0])
        .collect();
    g.throughput(Throughput::Elements(points.len() as u64));
    g.bench_function("points", |b| {
        b.iter(|| {
            points
                .iter()
                .filter(|&&p| matches!(locator.locate(&f, p), plume::adapt::Location::Leaf(_)))
                .count()
        })
    });
    g.throughput(Throughput::Elements(f.nroots() as u64));
    g.sample_size(10);
    g.bench_function("build", |b| b.iter(|| Locator::new(f.mesh())));
    g.finish();

    let mut g = c.benchmark_group("mark");
    g.sample_size(10);
    let volume = f.mesh().volume();
    for (name, share) in [("0.1%", 0.001), ("1%", 0.01)] {
        let radius = (share * volume * 3.0 / (4.0 * std::f64::consts::PI)).cbrt();
        let centre = [0.5, 0.5, 0.6];
        g.bench_function(format!("sphere_{name}/walk"), |b| {
            b.iter(|| {
                let mut n = 0usize;
                f.for_each_leaf(|l| n += usize::from(meets(centre, radius, l)));
                n
            })
        });
        g.bench_function(format!("sphere_{name}/located"), |b| {
            b.iter(|| {
                let near = locator.roots_reaching(&Region::Sphere { centre, radius });
                let mut n = 0usize;
                f.for_each_leaf_in(&near, |l| n += usize::from(meets(centre, radius, l)));
                n
            })
        });
    }
    g.finish();
}

criterion_group!(benches, locate);
criterion_main!(benches);
