//! The invariants of `docs/design/adaptation.md` under random refine / coarsen marks over several
//! rounds, on the box generator and on a piece of the Gmsh mesh: conformity, volume, structure,
//! maximum depth, reversibility, determinism under any marking order, incremental and predicted
//! dual-graph weights equal to a recomputation, and element quality under uniform refinement.

mod common;

use common::*;
use plume::adapt::{AdaptReport, Forest};
use plume::graph::DualGraph;
use plume::hash::mix64;
use plume::mesh::{generate_box, geometry, Mesh};
use proptest::prelude::*;

/// A seeded stream of numbers in [0, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = mix64(self.0.wrapping_add(0x9E37_79B9_7F4A_7C15));
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The elements of the shipped Gmsh mesh near one end (about 1,600), read once.
fn gmsh_piece() -> Mesh {
    static PIECE: std::sync::OnceLock<Mesh> = std::sync::OnceLock::new();
    PIECE
        .get_or_init(|| {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/meshes/shock_box.msh");
            let (mesh, _) = plume::io::read_mesh(std::path::Path::new(path)).unwrap();
            submesh(&mesh, |c| c[0] < 0.25 && c[1] < 0.5)
        })
        .clone()
}

/// One round of random marks: each leaf is marked for refinement with probability `p_ref`,
/// else for coarsening with probability `p_coarse`, or always when its centroid lies below
/// `slab` along x (a coarsening region, as behind a moving front: scattered marks alone rarely
/// free a family, whose neighbours keep its edges bisected); then adapt and check everything.
fn random_round(
    f: &mut Forest,
    graph: &mut DualGraph,
    rng: &mut Rng,
    (p_ref, p_coarse, slab): (f64, f64, f64),
) -> AdaptReport {
    let mut refine = Vec::new();
    let mut coarsen = Vec::new();
    f.for_each_leaf(|l| {
        let x = rng.next();
        if l.centroid[0] < slab {
            coarsen.push(l.id);
        } else if x < p_ref {
            refine.push(l.id);
        } else if x < p_ref + p_coarse {
            coarsen.push(l.id);
        }
    });
    refine.iter().for_each(|&id| f.mark_refine(id));
    coarsen.iter().for_each(|&id| f.mark_coarsen(id));
    f.coarsen().unwrap();
    f.close().unwrap();
    let predicted = graph.predict(f);
    let report = f.subdivide();
    f.check().unwrap();
    graph.update(f, &report.changed_roots);
    let fresh = DualGraph::recompute(f);
    assert_eq!(
        graph.weights, fresh,
        "incremental weights differ from a recomputation"
    );
    assert_eq!(
        predicted, fresh,
        "predicted weights differ from the subdivided ones"
    );
    report
}

fn run_rounds(mesh: Mesh, seed: u64, rounds: usize, max_depth: u8) -> Forest {
    let mut f = forest(mesh, max_depth, 0);
    let mut graph = DualGraph::new(&f);
    let mut rng = Rng(seed);
    let (mut coarsened, mut upgraded) = (0, 0);
    for round in 0..rounds {
        // Grow first, then mix, then coarsen a random slab and most of the rest.
        let xmax = f.mesh().coords.iter().map(|p| p[0]).fold(0.0, f64::max);
        let marks = match round % 3 {
            0 => (0.15, 0.2, f64::NEG_INFINITY),
            1 => (0.08, 0.5, f64::NEG_INFINITY),
            _ => (0.02, 0.9, (0.3 + 0.7 * rng.next()) * xmax),
        };
        let report = random_round(&mut f, &mut graph, &mut rng, marks);
        coarsened += report.coarsened;
        upgraded += report.upgraded;
    }
    // The rounds must exercise coarsening and green upgrades, or they prove little.
    assert!(
        coarsened > 0 && upgraded > 0,
        "coarsened {coarsened}, upgraded {upgraded}"
    );
    f
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_marks_on_the_box_keep_every_invariant(seed in any::<u64>()) {
        let mesh = generate_box([3, 2, 2], [3.0, 2.0, 2.0]).unwrap();
        run_rounds(mesh, seed, 7, 3);
    }

    #[test]
    fn random_marks_on_the_gmsh_mesh_keep_every_invariant(seed in any::<u64>()) {
        run_rounds(gmsh_piece(), seed, 5, 3);
    }

    #[test]
    fn marking_order_does_not_change_the_mesh(seed in any::<u64>()) {
        // Two forests receive the same marks in opposite orders, over three rounds.
        let mesh = generate_box([2, 2, 1], [2.0, 2.0, 1.0]).unwrap();
        let mut a = forest(mesh.clone(), 3, 0);
        let mut b = forest(mesh, 3, 0);
        let mut rng = Rng(seed);
        for _ in 0..3 {
            let ids = a.leaves();
            prop_assert_eq!(&ids, &b.leaves());
            let marks: Vec<(plume::adapt::LeafId, f64)> = ids.iter().map(|&id| (id, rng.next())).collect();
            for &(id, x) in &marks {
                if x < 0.2 { a.mark_refine(id) } else if x < 0.5 { a.mark_coarsen(id) }
            }
            for &(id, x) in marks.iter().rev() {
                if x < 0.2 { b.mark_refine(id) } else if x < 0.5 { b.mark_coarsen(id) }
            }
            a.adapt().unwrap();
            b.adapt().unwrap();
            prop_assert_eq!(a.canonical_leaves(), b.canonical_leaves());
        }
    }

    #[test]
    fn refining_then_coarsening_everything_gives_back_the_initial_mesh(seed in any::<u64>()) {
        let mesh = generate_box([2, 2, 2], [1.0; 3]).unwrap();
        let mut f = forest(mesh, 3, 0);
        let initial = f.canonical_leaves();
        let mut rng = Rng(seed);
        for _ in 0..3 {
            f.mark_refine_where(|_| rng.next() < 0.3);
            f.adapt().unwrap();
        }
        for _ in 0..6 {
            coarsen_all(&mut f);
        }
        f.check().unwrap();
        prop_assert_eq!(f.canonical_leaves(), initial);
        prop_assert_eq!(f.edges().len(), 0);
        prop_assert_eq!(f.vertices().nlive(), f.mesh().nverts());
    }
}

#[test]
fn uniform_levels_give_the_published_weights() {
    // After L uniform levels: PWgt = 8^L, RWgt = (8^(L+1) − 1)/7, and CWgt = 4^L on every face.
    let mesh = generate_box([2, 2, 1], [2.0, 2.0, 1.0]).unwrap();
    let mut f = forest(mesh, 4, 0);
    let mut graph = DualGraph::new(&f);
    for level in 1..=3u32 {
        refine_all(&mut f);
        let changed: Vec<u32> = (0..f.nroots() as u32).collect();
        graph.update(&f, &changed);
        let w = &graph.weights;
        assert!(w.pwgt.iter().all(|&p| p == 8u64.pow(level)));
        assert!(w.rwgt.iter().all(|&r| r == (8u64.pow(level + 1) - 1) / 7));
        assert!(w.cwgt.iter().all(|&c| c == 4u64.pow(level)));
    }
}

#[test]
fn uniform_refinement_then_coarsening_is_exactly_reversible() {
    let mesh = gmsh_piece();
    let mut f = forest(mesh, 3, 0);
    let initial = f.canonical_leaves();
    let n0 = f.nleaves();
    for level in 1..=2 {
        refine_all(&mut f);
        assert_eq!(f.nleaves(), n0 * 8usize.pow(level));
        f.check().unwrap();
    }
    for _ in 0..2 {
        coarsen_all(&mut f);
        f.check().unwrap();
    }
    assert_eq!(f.canonical_leaves(), initial);
}

#[test]
fn five_uniform_levels_keep_the_minimum_dihedral_angle_bounded() {
    // The six tetrahedra of a cube, refined 1:8 five times (196,608 leaves), shortest diagonal
    // each time. Measured: the minimum angle stays at the initial one's fraction printed here.
    let mesh = generate_box([1, 1, 1], [1.0; 3]).unwrap();
    let initial_min = (0..mesh.nelems())
        .map(|e| geometry::dihedral_range(&mesh.corners(e)).0)
        .fold(f64::INFINITY, f64::min);
    let mut f = forest(mesh, 5, 0);
    for _ in 0..5 {
        refine_all(&mut f);
    }
    assert_eq!(f.nleaves(), 6 * 8usize.pow(5));
    let mut min = f64::INFINITY;
    f.for_each_leaf(|l| min = min.min(geometry::dihedral_range(&l.corners).0));
    let ratio = min / initial_min;
    println!(
        "min dihedral: initial {initial_min:.3}°, after 5 levels {min:.3}° (ratio {ratio:.3})"
    );
    assert!(ratio > 0.5, "quality degraded: ratio {ratio}");
    f.check_volumes(1e-10).unwrap();
}
