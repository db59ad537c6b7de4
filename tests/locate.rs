//! Geometric queries (`adapt::Locator`) against brute force over every leaf, on forests
//! refined and coarsened at random: point location (points inside, outside, on leaves' faces,
//! edges and vertices; on a forest holding only some roots), region queries, and marking
//! restricted to the roots near a region (the same marks as visiting every leaf).

use plume::adapt::{AdaptOptions, Forest, LeafId, LeafView, Location, Locator, Region};
use plume::hash::mix64;
use plume::mesh::{generate_box, geometry};
use proptest::prelude::*;

/// A seeded stream of numbers in [0, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = mix64(self.0.wrapping_add(0x9E37_79B9_7F4A_7C15));
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }
}

/// A 3×2×2 box of size 1.5 × 1 × 0.8 refined at random twice, then coarsened in part (with a
/// little refinement), so the leaves mix depths and green families.
fn random_forest(rng: &mut Rng) -> Forest {
    let mesh = generate_box([3, 2, 2], [1.5, 1.0, 0.8]).unwrap();
    let mut f = Forest::new(mesh, AdaptOptions::default()).unwrap();
    for p in [0.3, 0.2] {
        f.mark_refine_where(|_| rng.next() < p);
        f.adapt().unwrap();
    }
    let (mut refine, mut coarsen) = (Vec::new(), Vec::new());
    f.for_each_leaf(|l| match rng.next() {
        x if x < 0.05 => refine.push(l.id),
        x if x < 0.8 => coarsen.push(l.id),
        _ => {}
    });
    refine.into_iter().for_each(|id| f.mark_refine(id));
    coarsen.into_iter().for_each(|id| f.mark_coarsen(id));
    f.adapt().unwrap();
    f
}

/// Every leaf with its corners, in canonical order.
fn leaves(f: &Forest) -> Vec<(LeafId, [[f64; 3]; 4])> {
    let mut out = Vec::new();
    f.for_each_leaf(|l| out.push((l.id, l.corners)));
    out
}

/// `w`-weighted combination of corners.
fn combine(c: &[[f64; 3]; 4], w: [f64; 4]) -> [f64; 3] {
    let total: f64 = w.iter().sum();
    std::array::from_fn(|k| (0..4).map(|i| w[i] * c[i][k]).sum::<f64>() / total)
}

/// Random points: in the mesh's box grown by a fifth (inside or outside the mesh), at leaf
/// vertices, on leaf edges and faces, inside leaves.
fn points(rng: &mut Rng, leaves: &[(LeafId, [[f64; 3]; 4])], n: usize) -> Vec<[f64; 3]> {
    (0..n)
        .map(|_| {
            let c = &leaves[rng.below(leaves.len())].1;
            let mut w = [rng.next(), rng.next(), rng.next(), rng.next()];
            match rng.below(5) {
                0 => [
                    -0.3 + 2.1 * rng.next(),
                    -0.2 + 1.4 * rng.next(),
                    -0.16 + 1.12 * rng.next(),
                ],
                1 => c[rng.below(4)],
                kind => {
                    // On an edge (2 weights), a face (3) or inside (4).
                    let zero = rng.below(4);
                    for k in 0..(4 - kind) {
                        w[(zero + k) % 4] = 0.0;
                    }
                    combine(c, w)
                }
            }
        })
        .collect()
}

/// Barycentric coordinates of `p` in `c`.
fn barycentric(c: &[[f64; 3]; 4], p: [f64; 3]) -> [f64; 4] {
    let v = geometry::volume(c);
    std::array::from_fn(|i| {
        let mut with_p = *c;
        with_p[i] = p;
        geometry::volume(&with_p) / v
    })
}

/// Brute force: the first leaf, in canonical order, whose barycentric coordinates of `p` are all
/// above a small negative tolerance.
fn brute_locate(leaves: &[(LeafId, [[f64; 3]; 4])], p: [f64; 3]) -> Option<LeafId> {
    leaves
        .iter()
        .find(|(_, c)| barycentric(c, p).iter().all(|&l| l >= -1e-9))
        .map(|&(id, _)| id)
}

/// A random region around the mesh.
fn region(rng: &mut Rng) -> Region {
    let centre = [
        -0.3 + 2.1 * rng.next(),
        -0.2 + 1.4 * rng.next(),
        -0.16 + 1.12 * rng.next(),
    ];
    let radius = 0.5 * rng.next();
    match rng.below(3) {
        0 => Region::Sphere { centre, radius },
        1 => Region::Cylinder {
            axis: rng.below(3),
            centre,
            radius,
        },
        _ => Region::Box {
            lo: centre,
            hi: centre.map(|x| x + radius),
        },
    }
}

/// The distance from a point to `region` (0 inside).
fn distance_to(region: &Region, p: [f64; 3]) -> f64 {
    match *region {
        Region::Sphere { centre, radius } => geometry::dist2(p, centre).sqrt() - radius,
        Region::Cylinder {
            axis,
            centre,
            radius,
        } => {
            let mut q = p;
            q[axis] = centre[axis];
            geometry::dist2(q, centre).sqrt() - radius
        }
        Region::Box { lo, hi } => {
            let q: [f64; 3] = std::array::from_fn(|k| p[k].clamp(lo[k], hi[k]));
            geometry::dist2(p, q).sqrt()
        }
    }
}

/// The indicator `refine --sphere` and the shock front use: the leaf's bounding ball (centroid,
/// largest centroid–corner distance) meets the region.
fn ball_meets(region: &Region, l: &LeafView) -> bool {
    let reach = l
        .corners
        .iter()
        .map(|&c| geometry::dist2(c, l.centroid).sqrt())
        .fold(0.0, f64::max);
    distance_to(region, l.centroid) <= reach
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn point_location_agrees_with_brute_force(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let f = random_forest(&mut rng);
        let locator = Locator::new(f.mesh());
        let all = leaves(&f);
        let pts = points(&mut rng, &all, 400);
        // The same forest with a third of its trees held elsewhere.
        let mut part = f.clone();
        let elsewhere: Vec<u32> = (0..f.nroots() as u32).filter(|r| r % 3 == 1).collect();
        part.take_trees(&elsewhere).unwrap();
        for p in pts {
            let expected = brute_locate(&all, p);
            let found = locator.locate(&f, p);
            let want = match expected {
                Some(id) => Location::Leaf(id),
                None => Location::Outside,
            };
            prop_assert_eq!(found, want, "point {:?}", p);
            prop_assert_eq!(locator.locate_root(p), expected.map(|id| id.root));
            // Taking trees makes a new generation of `part`: its ids carry it.
            let want_part = match expected {
                Some(id) if id.root % 3 == 1 => Location::NotHeld { root: id.root },
                Some(id) => Location::Leaf(part.leaf_id(id.root, id.elem)),
                None => Location::Outside,
            };
            prop_assert_eq!(locator.locate(&part, p), want_part, "point {:?}", p);
        }
    }

    #[test]
    fn region_queries_agree_with_brute_force(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let f = random_forest(&mut rng);
        let locator = Locator::new(f.mesh());
        for _ in 0..20 {
            let region = region(&mut rng);
            let meets = |c: &[[f64; 3]; 4]| {
                let (lo, hi) = geometry::bounding_box(c.iter().copied());
                region.within(lo, hi, 0.0)
            };
            let roots: Vec<u32> = (0..f.nroots() as u32)
                .filter(|&r| meets(&f.mesh().corners(r as usize)))
                .collect();
            prop_assert_eq!(locator.roots_meeting(&region), roots);
            let brute: Vec<LeafId> =
                leaves(&f).into_iter().filter(|(_, c)| meets(c)).map(|(id, _)| id).collect();
            prop_assert_eq!(locator.leaves_meeting(&f, &region), brute);
        }
    }

    #[test]
    fn marking_near_a_region_gives_the_marks_of_a_whole_walk(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let f = random_forest(&mut rng);
        let locator = Locator::new(f.mesh());
        for _ in 0..20 {
            let region = region(&mut rng);
            let near = locator.roots_reaching(&region);
            let (mut walk, mut restricted) = (Vec::new(), Vec::new());
            f.for_each_leaf(|l| if ball_meets(&region, l) { walk.push(l.id) });
            f.for_each_leaf_in(&near, |l| if ball_meets(&region, l) { restricted.push(l.id) });
            prop_assert_eq!(&restricted, &walk);
            let (mut a, mut b) = (f.clone(), f.clone());
            let marked = a.mark_refine_where(|l| ball_meets(&region, l));
            prop_assert_eq!(b.mark_refine_where_in(&near, |l| ball_meets(&region, l)), marked);
            a.adapt().unwrap();
            b.adapt().unwrap();
            prop_assert_eq!(a.trees(), b.trees());
        }
    }
}

#[test]
fn a_point_on_a_shared_face_goes_to_the_first_leaf_holding_it() {
    let f = Forest::new(
        generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap(),
        AdaptOptions::default(),
    )
    .unwrap();
    let locator = Locator::new(f.mesh());
    // The plane x = 1 separates the two cubes' roots; its centre lies on several of them.
    let p = [1.0, 0.5, 0.5];
    let Location::Leaf(id) = locator.locate(&f, p) else {
        panic!("{p:?} is in the mesh");
    };
    let holding: Vec<u32> = (0..f.nroots() as u32)
        .filter(|&r| {
            barycentric(&f.mesh().corners(r as usize), p)
                .iter()
                .all(|&l| l >= -1e-12)
        })
        .collect();
    assert!(holding.len() >= 2, "{holding:?}");
    assert_eq!(id.root, holding[0]);
    assert_eq!(locator.locate(&f, [2.5, 0.5, 0.5]), Location::Outside);
    assert_eq!(locator.locate(&f, [f64::NAN, 0.5, 0.5]), Location::Outside);
}

#[test]
fn a_probe_reads_the_leaf_holding_the_point_and_its_data() {
    let mut f = Forest::new(
        generate_box([2, 2, 2], [1.0, 1.0, 1.0]).unwrap(),
        AdaptOptions {
            nfields: 2,
            ..AdaptOptions::default()
        },
    )
    .unwrap();
    f.mark_refine_where(|l| l.centroid[0] < 0.5);
    f.adapt().unwrap();
    let mut views = Vec::new();
    f.for_each_leaf(|l| views.push((l.id, l.centroid, l.level)));
    for &(id, _, _) in &views {
        f.leaf_data_mut(id)
            .copy_from_slice(&[f64::from(id.root), f64::from(id.elem)]);
    }
    let locator = Locator::new(f.mesh());
    for (id, centroid, level) in views {
        let probe = locator
            .probe(&f, centroid)
            .expect("a centroid is in the mesh");
        assert_eq!((probe.leaf, probe.level), (id, level));
        assert_eq!(probe.data, &[f64::from(id.root), f64::from(id.elem)]);
    }
    assert_eq!(locator.probe(&f, [1.5, 0.5, 0.5]), None);
}
