//! `plume refine FILE (--uniform L | --sphere X Y Z R --levels L) -o OUT.vtu`.

use super::common::{
    check_extension, check_uniform_size, create_parent, levels, load_mesh, refine_levels, say,
    VtkCompression,
};
use super::failure::{CliResult, Failure};
use super::progress::Progress;
use clap::{ArgGroup, Args};
use plume::adapt::{AdaptOptions, Forest, LeafView, Locator, Region};
use plume::mesh::geometry::{bounding_box, dist2};
use plume::mesh::Mesh;
use plume_cases::budget::{Budget, REFINE};
use std::path::PathBuf;

/// Arguments of `plume refine`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("how").required(true).args(["uniform", "sphere"])))]
pub struct RefineArgs {
    /// Mesh file: .msh or .vtu.
    pub file: PathBuf,
    /// Refine every leaf, L times (0 to 12; 0 writes the mesh as read).
    #[arg(long, value_name = "L", value_parser = levels)]
    pub uniform: Option<u8>,
    /// Refine the leaves that meet the sphere of centre (X, Y, Z) and radius R (needs --levels).
    /// A leaf meets it when its centroid is within R plus the leaf's size (largest
    /// centroid–corner distance) of the centre.
    #[arg(long, num_args = 4, value_names = ["X", "Y", "Z", "R"], requires = "levels",
          allow_negative_numbers = true)]
    pub sphere: Option<Vec<f64>>,
    /// Number of successive --sphere refinements (0 to 12).
    #[arg(long, value_name = "L", requires = "sphere", value_parser = levels)]
    pub levels: Option<u8>,
    /// Leaves at this depth are not refined further (0 to 12) [default: the number of levels].
    #[arg(long, value_name = "D", value_parser = levels)]
    pub max_depth: Option<u8>,
    /// Output file (.vtu), with cell data root, level and pattern.
    #[arg(short, long, value_name = "OUT.vtu")]
    pub output: PathBuf,
    /// How the .vtu file stores its data.
    #[arg(long, value_enum, default_value_t = VtkCompression::Zlib)]
    pub vtk_compression: VtkCompression,
}

/// A sphere to refine around.
#[derive(Debug, Clone, Copy)]
struct Sphere {
    centre: [f64; 3],
    radius: f64,
}

impl Sphere {
    fn parse(values: &[f64]) -> CliResult<Sphere> {
        if values.iter().any(|v| !v.is_finite()) {
            return Err(Failure::Usage(format!(
                "--sphere {values:?}: every value must be finite"
            )));
        }
        if values[3] < 0.0 {
            return Err(Failure::Usage(format!(
                "--sphere: radius R = {} must not be negative",
                values[3]
            )));
        }
        Ok(Sphere {
            centre: [values[0], values[1], values[2]],
            radius: values[3],
        })
    }

    /// Refuses a sphere whose distance tests would overflow on `mesh` (they would then hold for
    /// every leaf, or for none): the squared distance from the centre to the farthest corner of
    /// the mesh's bounding box, and (R + the box's diagonal)², must be finite.
    fn check_range(&self, mesh: &Mesh) -> CliResult {
        let (lo, hi) = bounding_box(mesh.coords.iter().copied());
        let farthest: [f64; 3] = std::array::from_fn(|k| {
            (self.centre[k] - lo[k])
                .abs()
                .max((self.centre[k] - hi[k]).abs())
        });
        let reach = self.radius + dist2(lo, hi).sqrt();
        if (dist2(farthest, [0.0; 3]) + reach * reach).is_finite() {
            return Ok(());
        }
        let point = |p: [f64; 3]| format!("({:?}, {:?}, {:?})", p[0], p[1], p[2]);
        Err(Failure::Usage(format!(
            "--sphere {:?} {:?} {:?} {:?}: too far from or too large for the mesh, which spans \
             {} to {}: the squared distances plume compares overflow; give a centre and a \
             radius of the mesh's scale",
            self.centre[0],
            self.centre[1],
            self.centre[2],
            self.radius,
            point(lo),
            point(hi)
        )))
    }

    /// The sphere as a region: [`Sphere::meets`] tests the leaves' bounding balls against it.
    fn region(&self) -> Region {
        Region::Sphere {
            centre: self.centre,
            radius: self.radius,
        }
    }

    /// True when the leaf may meet the sphere: its centroid is within R plus the leaf's size.
    fn meets(&self, leaf: &LeafView) -> bool {
        let size2 = leaf
            .corners
            .iter()
            .map(|&c| dist2(c, leaf.centroid))
            .fold(0.0, f64::max);
        let reach = self.radius + size2.sqrt();
        dist2(self.centre, leaf.centroid) <= reach * reach
    }
}

/// Runs `plume refine`.
pub fn run(args: RefineArgs) -> CliResult {
    let (nlevels, option, sphere) = match (&args.sphere, args.uniform, args.levels) {
        (Some(values), _, Some(l)) => (l, "--levels", Some(Sphere::parse(values)?)),
        (None, Some(l), _) => (l, "--uniform", None),
        _ => {
            return Err(Failure::Usage(
                "give --uniform L, or --sphere X Y Z R with --levels L".into(),
            ))
        }
    };
    check_extension(&args.output, "-o", &["vtu"])?;
    let budget = Budget::of_system();
    let mesh = load_mesh(&args.file)?;
    match &sphere {
        Some(s) => s.check_range(&mesh)?,
        None => check_uniform_size((&budget, &REFINE), option, mesh.nelems(), nlevels)?,
    }
    // The roots that may hold a leaf meeting the sphere (the same for every level: the roots
    // never change); marking visits their trees only.
    let near = sphere.map(|s| Locator::new(&mesh).roots_reaching(&s.region()));
    let max_depth = args.max_depth.unwrap_or(nlevels);
    let mut forest = Forest::new(
        mesh,
        AdaptOptions {
            max_depth,
            nfields: 0,
            ..AdaptOptions::default()
        },
    )?;
    create_parent(&args.output)?;
    match sphere {
        Some(s) => refine_levels(
            &mut forest,
            (&budget, &REFINE),
            (nlevels, option),
            near.as_deref(),
            |leaf| s.meets(leaf),
        )?,
        None => refine_levels(
            &mut forest,
            (&budget, &REFINE),
            (nlevels, option),
            None,
            |_| true,
        )?,
    }
    let progress = Progress::spinner(format!("writing {}", args.output.display()));
    plume::io::VtuPiece::forest(&forest, &[])?.write(&args.output, &args.vtk_compression.into())?;
    drop(progress);
    say(format!(
        "wrote {} ({} leaves)",
        args.output.display(),
        forest.nleaves()
    ))
}
