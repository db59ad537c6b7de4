//! Gmsh physical groups in MSH files: `$PhysicalNames` (both versions) and the physical tags
//! of the surface and volume entities listed in MSH 4.1's `$Entities`.
//!
//! An MSH 2.2 element carries its physical tag as its first tag; an MSH 4.1 element block
//! belongs to an entity, whose first physical tag is the block's (an entity in several groups
//! gives its elements the first; an entity absent from `$Entities` leaves them untagged).

use super::lines::{Line, LineReader};
use crate::mesh::PhysicalName;
use crate::Result;
use std::collections::HashMap;

/// What the file says about physical groups (filled as sections are read).
#[derive(Debug, Default)]
pub(super) struct Physical {
    /// `$PhysicalNames` entries of dimension 2 and 3, in file order.
    pub names: Vec<PhysicalName>,
    /// Physical tag of each surface entity (dimension 2) and volume entity (dimension 3) with
    /// one, by entity tag: `entities[dim - 2]`.
    entities: [HashMap<i64, u32>; 2],
}

impl Physical {
    /// Physical tag of the elements of entity `entity` of dimension `dim` (0 when untagged).
    pub fn of_entity(&self, dim: u32, entity: i64) -> u32 {
        match dim {
            2 | 3 => self.entities[dim as usize - 2]
                .get(&entity)
                .copied()
                .unwrap_or(0),
            _ => 0,
        }
    }
}

/// A physical tag read from `line`: 0 (untagged) or positive, within `u32`.
pub(super) fn physical_tag(line: &mut Line, what: &str) -> Result<u32> {
    let tag: i64 = line.next(what)?;
    u32::try_from(tag)
        .map_err(|_| line.error(format!("{what} {tag} is out of range (0 to {})", u32::MAX)))
}

/// `$PhysicalNames`: a count, then `dim tag "name"` per line. Groups of dimension 2 and 3 are
/// kept; a group named twice is an error.
pub(super) fn read_names(lines: &mut LineReader, physical: &mut Physical) -> Result<()> {
    const SECTION: (&str, &str) = ("$PhysicalNames", "$EndPhysicalNames");
    let mut header = lines.expect_data(SECTION.0, SECTION.1)?;
    let count: usize = header.next("number of physical names")?;
    for _ in 0..count {
        let mut line = lines.expect_data(SECTION.0, SECTION.1)?;
        let dim: u8 = line.next("physical group dimension")?;
        let tag = physical_tag(&mut line, "physical tag")?;
        let name = quoted(line.text)
            .ok_or_else(|| line.error("a physical name must be written in double quotes"))?;
        if physical.names.iter().any(|n| n.dim == dim && n.tag == tag) {
            return Err(line.error(format!(
                "physical group {tag} of dimension {dim} is named twice"
            )));
        }
        if dim == 2 || dim == 3 {
            physical.names.push(PhysicalName {
                dim,
                tag,
                name: name.to_string(),
            });
        }
    }
    lines.expect_end(SECTION.0, SECTION.1)
}

/// The text between the first and the last double quote of `text`.
fn quoted(text: &str) -> Option<&str> {
    let start = text.find('"')?;
    let end = text.rfind('"')?;
    (end > start).then(|| &text[start + 1..end])
}

/// MSH 4.1 `$Entities`: counts of points, curves, surfaces and volumes, then one entity per
/// line (tag, its point or box, its physical tags, then what bounds it).
pub(super) fn read_entities(lines: &mut LineReader, physical: &mut Physical) -> Result<()> {
    const SECTION: (&str, &str) = ("$Entities", "$EndEntities");
    let mut header = lines.expect_data(SECTION.0, SECTION.1)?;
    let mut counts = [0usize; 4];
    for (dim, count) in counts.iter_mut().enumerate() {
        *count = header.next(
            [
                "number of points",
                "number of curves",
                "number of surfaces",
                "number of volumes",
            ][dim],
        )?;
    }
    for (dim, &count) in counts.iter().enumerate() {
        for _ in 0..count {
            let mut line = lines.expect_data(SECTION.0, SECTION.1)?;
            let entity: i64 = line.next("entity tag")?;
            for _ in 0..if dim == 0 { 3 } else { 6 } {
                let _: f64 = line.next("entity coordinate")?;
            }
            let ntags: usize = line.next("number of physical tags")?;
            let mut first = 0;
            for k in 0..ntags {
                let tag = physical_tag(&mut line, "physical tag")?;
                if k == 0 {
                    first = tag;
                }
            }
            if dim >= 2 && first != 0 {
                physical.entities[dim - 2].insert(entity, first);
            }
        }
    }
    lines.expect_end(SECTION.0, SECTION.1)
}
