//! Filling empty parts: PLUM needs every part non-empty (a processor without roots breaks the
//! remap), and METIS may leave parts empty when `nparts` is close to the number of roots or the
//! weights are very uneven.

/// Fills every empty part, deterministically: while some part is empty (lowest id first), move
/// the lightest root (lowest index on ties) of the heaviest part holding more than one root
/// (lowest id on ties) into it. Returns the number of roots moved (0 when no part was empty).
///
/// ```
/// use plume::partition::fill_empty_parts;
/// let pwgt = [5, 1, 3, 2];
/// let mut part = [0, 0, 0, 1]; // part 2 is empty, part 0 (weight 9) is the heaviest
/// assert_eq!(fill_empty_parts(&pwgt, 3, &mut part), 1);
/// assert_eq!(part, [0, 2, 0, 1]); // its lightest root (weight 1) moved
/// ```
///
/// # Panics
/// If `nparts` exceeds the number of roots, a part id is not below `nparts`, or `pwgt` and
/// `part` differ in length: callers validate first ([`super::check_arguments`]).
#[track_caller]
pub fn fill_empty_parts(pwgt: &[u64], nparts: usize, part: &mut [u32]) -> usize {
    assert_eq!(pwgt.len(), part.len(), "one weight per root");
    assert!(
        nparts <= part.len(),
        "{nparts} parts cannot all be filled with {} roots",
        part.len()
    );
    let mut count = vec![0usize; nparts];
    let mut weight = vec![0u64; nparts];
    for (&p, &w) in part.iter().zip(pwgt) {
        assert!((p as usize) < nparts, "part id {p} not below {nparts}");
        count[p as usize] += 1;
        weight[p as usize] += w;
    }
    let outcome = refill(&mut count, &mut weight, |heavy, empty| {
        let v = (0..part.len())
            .filter(|&v| part[v] as usize == heavy)
            .min_by_key(|&v| (pwgt[v], v))
            .expect("the heavy part is not empty");
        part[v] = empty as u32;
        Ok::<_, std::convert::Infallible>(pwgt[v])
    });
    match outcome {
        Ok(moves) => moves,
        Err(never) => match never {},
    }
}

/// The loop of [`fill_empty_parts`] over the parts' root counts and weights, wherever the
/// roots are (on one rank, or spread over ranks: [`super::sfc_parts`]): while some part is
/// empty (lowest id first), `move_lightest(heavy, empty)` moves the lightest root (lowest
/// index on ties) of `heavy`, the heaviest part holding more than one root (lowest id on
/// ties), into `empty` and returns its weight. Returns the number of roots moved.
///
/// # Panics
/// If the parts hold fewer roots than there are parts.
#[track_caller]
pub(crate) fn refill<E>(
    count: &mut [usize],
    weight: &mut [u64],
    mut move_lightest: impl FnMut(usize, usize) -> Result<u64, E>,
) -> Result<usize, E> {
    let mut moves = 0;
    while let Some(empty) = count.iter().position(|&c| c == 0) {
        // Some part has two roots or more, since nparts <= nroots and one part is empty.
        let heavy = (0..count.len())
            .filter(|&p| count[p] > 1)
            .max_by(|&a, &b| weight[a].cmp(&weight[b]).then(b.cmp(&a)))
            .expect("a part with two roots exists");
        let w = move_lightest(heavy, empty)?;
        count[heavy] -= 1;
        weight[heavy] -= w;
        count[empty] += 1;
        weight[empty] += w;
        moves += 1;
    }
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_to_do_when_every_part_has_a_root() {
        let mut part = [0, 1, 2, 1];
        assert_eq!(fill_empty_parts(&[1, 1, 1, 1], 3, &mut part), 0);
        assert_eq!(part, [0, 1, 2, 1]);
    }

    #[test]
    fn several_empty_parts_are_filled_lowest_first_from_the_heaviest() {
        // Part 0: roots 0 (4), 1 (1), 2 (2) → 7; part 1: roots 3 (3), 4 (3) → 6; parts 2, 3 empty.
        let pwgt = [4, 1, 2, 3, 3];
        let mut part = [0, 0, 0, 1, 1];
        assert_eq!(fill_empty_parts(&pwgt, 4, &mut part), 2);
        // Part 2 gets root 1 from part 0 (7 → 6); then parts 0 and 1 weigh 6: the lower id,
        // part 0, gives its lightest root, root 2, to part 3.
        assert_eq!(part, [0, 2, 3, 1, 1]);
    }

    #[test]
    fn a_single_root_part_is_never_emptied() {
        // Part 0 is heaviest but holds one root: the roots come from part 1.
        let pwgt = [100, 1, 2];
        let mut part = [0, 1, 1];
        assert_eq!(fill_empty_parts(&pwgt, 3, &mut part), 1);
        assert_eq!(part, [0, 2, 1]);
    }

    #[test]
    fn as_many_parts_as_roots_gives_one_root_each() {
        let pwgt = [0, 0, 0, 0, 0];
        let mut part = [0; 5];
        assert_eq!(fill_empty_parts(&pwgt, 5, &mut part), 4);
        let mut sorted = part;
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2, 3, 4]);
    }

    #[test]
    #[should_panic(expected = "not below")]
    fn ids_out_of_range_are_a_broken_contract() {
        fill_empty_parts(&[1, 1], 2, &mut [0, 2]);
    }
}
