//! Remapping under uneven target shares. When processors are to receive different shares of the
//! work (ULBA's, [Boulmier 2019, Alg. 2]), part `j` of a partition into `P·F` parts is cut to the
//! size of processor `j / F`'s share, so it may only go to a processor with that same share: the
//! processors fall into *classes* of equal share, and each class is remapped on its own, on the
//! similarity matrix of its processors and their parts.

use super::{check_buffer, Objective, RemapInfo, Remapper, SimilarityMatrix};
use crate::Result;

/// Maps the parts of `s` onto processors with `remapper`, part `j` only onto a processor of the
/// class of processor `j / F`; `class[i]` is processor i's class (`P` entries). With a single
/// class this is `remapper.remap`. Each class's mapping minimizes the objective within the
/// class; the result is exact for `TotalV` (retained data adds up over classes), and reported
/// inexact for the other objectives when there are several classes.
///
/// # Errors
/// Those of the remapper; [`crate::Error::LengthMismatch`] for a wrong `part2proc` or `class`.
pub(crate) fn remap_within_classes(
    remapper: &dyn Remapper,
    s: &SimilarityMatrix,
    class: &[u32],
    part2proc: &mut [u32],
) -> Result<RemapInfo> {
    check_buffer(s, part2proc)?;
    crate::Error::check_len("processor classes", s.nprocs(), class.len())?;
    let mut classes: Vec<u32> = class.to_vec();
    classes.sort_unstable();
    classes.dedup();
    if classes.len() == 1 {
        return remapper.remap(s, part2proc);
    }
    let f = s.parts_per_proc();
    // Processors of each class, ascending, and each processor's place in its class.
    let members: Vec<Vec<usize>> = classes
        .iter()
        .map(|&c| (0..class.len()).filter(|&i| class[i] == c).collect())
        .collect();
    let mut place = vec![0usize; class.len()];
    let mut class_index = vec![0usize; class.len()];
    for (k, procs) in members.iter().enumerate() {
        for (a, &i) in procs.iter().enumerate() {
            place[i] = a;
            class_index[i] = k;
        }
    }
    // The entries S[i][j] with i and j in the same class, in each class's dense sub-matrix.
    let mut dense: Vec<Vec<u64>> = members
        .iter()
        .map(|m| vec![0; m.len() * m.len() * f])
        .collect();
    for (&w, (i, j)) in s.matrix().iter() {
        let k = class_index[j / f];
        if class_index[i] == k {
            let ncols = members[k].len() * f;
            dense[k][place[i] * ncols + place[j / f] * f + j % f] = w;
        }
    }
    let mut infos = Vec::with_capacity(members.len());
    for (procs, dense) in members.iter().zip(&dense) {
        let sub = SimilarityMatrix::from_dense(procs.len(), f, dense)?;
        let mut sub_part2proc = vec![0u32; procs.len() * f];
        infos.push(remapper.remap(&sub, &mut sub_part2proc)?);
        for (b, &a) in sub_part2proc.iter().enumerate() {
            part2proc[procs[b / f] * f + b % f] = procs[a as usize] as u32;
        }
    }
    let first = &infos[0];
    let solver = if infos.iter().all(|i| i.solver == first.solver) {
        first.solver
    } else {
        "mixed"
    };
    let exact = infos.iter().all(|i| i.exact) && first.objective == Some(Objective::TotalV);
    Ok(RemapInfo::new(solver, first.objective, exact, s, part2proc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remap::{Identity, TotalVOptimal};

    /// 4 processors, F = 1: processors 0 and 2 in class 0, 1 and 3 in class 1. Part 1 holds
    /// most of processor 0's data, but part 1 belongs to class 1.
    fn matrix() -> SimilarityMatrix {
        #[rustfmt::skip]
        let dense = [
            1, 9, 0, 0,
            8, 1, 0, 0,
            0, 0, 1, 7,
            0, 0, 6, 1,
        ];
        SimilarityMatrix::from_dense(4, 1, &dense).unwrap()
    }

    #[test]
    fn parts_stay_in_their_class() {
        let s = matrix();
        let class = [0, 1, 0, 1];
        let mut free = vec![0; 4];
        TotalVOptimal.remap(&s, &mut free).unwrap();
        assert_eq!(free, [1, 0, 3, 2], "unconstrained, parts follow their data");
        let mut p2p = vec![0; 4];
        let info = remap_within_classes(&TotalVOptimal, &s, &class, &mut p2p).unwrap();
        for (j, &i) in p2p.iter().enumerate() {
            assert_eq!(class[i as usize], class[j], "part {j} on processor {i}");
        }
        // Class 0 (processors 0, 2; parts 0, 2): keeping 1 + 1 beats 0 + 0. Class 1 likewise.
        assert_eq!(p2p, [0, 1, 2, 3]);
        assert!(info.exact);
        assert_eq!(info.volumes, s.volumes(&p2p));
    }

    #[test]
    fn within_a_class_the_remapper_still_chooses() {
        let s = matrix();
        let class = [0, 0, 1, 1];
        let mut p2p = vec![0; 4];
        remap_within_classes(&TotalVOptimal, &s, &class, &mut p2p).unwrap();
        assert_eq!(p2p, [1, 0, 3, 2]);
        let mut ident = vec![0; 4];
        let info = remap_within_classes(&Identity, &s, &class, &mut ident).unwrap();
        assert_eq!((ident, info.solver), (vec![0, 1, 2, 3], "identity"));
    }
}
