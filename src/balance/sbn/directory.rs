//! A processor's knowledge of where the roots' data is, as a distributed directory: each root
//! has a **home** processor that the new holder of its data tells of each move (a locate
//! message to the home, not a broadcast), and every processor keeps what it learned itself
//! (the data that arrived here or left here, the holder named by each job it received) over
//! the level's starting holders, which all processors share (one copy on the simulated
//! machine, the level's input on real ranks). A processor thus holds `O(roots / P + P)` of its
//! own for it, not a table over all roots.
//!
//! **Homes** are consecutive blocks, root `r` at `⌊r · P / roots⌋`: computed without a table,
//! `⌈roots / P⌉` roots each, and the roots of one group moved together (a root and its
//! neighbours, which the mesh numbers close together) mostly share a home, so one locate
//! message serves the group ([`Directory::homes`]); `r mod P` would spread a group's roots
//! over as many homes.
//!
//! **Finding a root**: every holder this knowledge names is one the data passed through (a
//! job names its holder when sent, and the data cannot move while its job travels; a locate
//! message names the holder that sent it; a processor the data left knows where it went), so
//! a request sent to it and forwarded by each processor to the next holder it knows of
//! ([`Directory::next_hop`]) follows the data's path forward and arrives at the holder. A
//! processor that knows nothing of the root sends the request to its home.
//!
//! **Order at the home**: the data of a root carries the number of times it moved in the
//! level, and a locate message says "on `holder` after `moves` moves"; the home keeps the
//! entry with the most moves, so a message that arrives late does not undo a later move.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::hash::IntMap;

/// The home of root `r` among `procs` processors for `nroots` roots: consecutive blocks.
pub fn home(r: u32, nroots: usize, procs: usize) -> u32 {
    (u64::from(r) * procs as u64 / nroots.max(1) as u64) as u32
}

/// One processor's knowledge of where the roots' data is (module doc).
#[derive(Debug, Clone)]
pub struct Directory {
    me: u32,
    procs: usize,
    /// The level's starting holder of every root, shared by every processor.
    start: Arc<[u32]>,
    /// What this processor learned itself: its own arrivals and departures and the holders
    /// named by the jobs it received.
    learned: IntMap<u32, u32>,
    /// The moves so far of the data held here that moved in the level (absent: none).
    moves: IntMap<u32, u32>,
    /// Home entries of the roots homed here that moved: `(holder, moves)` as the locate
    /// messages told it.
    homed: IntMap<u32, (u32, u32)>,
}

impl Directory {
    /// Processor `me`'s directory among `procs` processors, the data starting where `start`
    /// says.
    pub fn new(me: u32, procs: usize, start: Arc<[u32]>) -> Directory {
        Directory {
            me,
            procs,
            start,
            learned: IntMap::default(),
            moves: IntMap::default(),
            homed: IntMap::default(),
        }
    }

    /// The home of root `r`.
    pub fn home(&self, r: u32) -> u32 {
        home(r, self.start.len(), self.procs)
    }

    /// Where this processor believes root `r`'s data is: what it learned itself, else what
    /// its home entry says (when `r` is homed here), else the level's start.
    pub fn holder(&self, r: u32) -> u32 {
        match self.learned.get(&r) {
            Some(&at) => at,
            None => self.home_entry(r),
        }
    }

    /// The home entry of root `r` (meaningful at its home): the holder the locate messages
    /// named last in the order of the moves, or the level's start.
    fn home_entry(&self, r: u32) -> u32 {
        self.homed.get(&r).map_or(self.start[r as usize], |e| e.0)
    }

    /// Learns that root `r`'s data is on `at` (a job received names it).
    pub fn learn(&mut self, r: u32, at: u32) {
        self.learned.insert(r, at);
    }

    /// Root `r`'s data arrived here after `moves` moves in the level.
    pub fn arrived(&mut self, r: u32, moves: u32) {
        self.learned.insert(r, self.me);
        self.moves.insert(r, moves);
    }

    /// Root `r`'s data leaves here for `to`; returns the moves it will have made on arrival.
    pub fn left(&mut self, r: u32, to: u32) -> u32 {
        self.learned.insert(r, to);
        self.moves.remove(&r).unwrap_or(0) + 1
    }

    /// At `r`'s home: a locate message says `r`'s data is on `holder` after `moves` moves.
    /// Kept unless the entry already names a later move.
    pub fn report(&mut self, r: u32, holder: u32, moves: u32) {
        let later = self.homed.get(&r).is_some_and(|e| e.1 >= moves);
        if !later {
            self.homed.insert(r, (holder, moves));
        }
    }

    /// Where a request for root `r`, whose data is not here, goes next from this processor:
    /// the holder it learned of, or its home entry when `r` is homed here, else `r`'s home
    /// (module doc: each hop follows the data's path forward).
    pub fn next_hop(&self, r: u32) -> u32 {
        let home = self.home(r);
        let known = match self.learned.get(&r) {
            Some(&at) => Some(at),
            None => (home == self.me).then(|| self.home_entry(r)),
        };
        match known {
            Some(q) if q != self.me => q,
            _ => home,
        }
    }

    /// `roots` grouped by home, homes ascending: one locate message each.
    pub fn homes(&self, roots: &[u32]) -> BTreeMap<u32, Vec<u32>> {
        let mut by_home: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for &r in roots {
            by_home.entry(self.home(r)).or_default().push(r);
        }
        by_home
    }

    /// The moves so far of root `r`'s data, held here.
    pub fn moves(&self, r: u32) -> u32 {
        self.moves.get(&r).copied().unwrap_or(0)
    }

    /// True when the home entry of every root homed here is where `data` says.
    pub fn agrees(&self, data: &[u32]) -> bool {
        let n = self.start.len() as u64;
        let (me, procs) = (u64::from(self.me), self.procs as u64);
        let first = (me * n).div_ceil(procs) as u32;
        let end = ((me + 1) * n).div_ceil(procs) as u32;
        (first..end).all(|r| self.home_entry(r) == data[r as usize])
    }

    /// Entries this processor holds of its own (what it learned, the moves of the data held
    /// here, its home entries): its share of the directory's memory.
    pub fn entries(&self) -> usize {
        self.learned.len() + self.moves.len() + self.homed.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn homes_are_consecutive_blocks_and_agrees_covers_exactly_them() {
        // 10 roots on 4 processors: homes 0 0 0 1 1 2 2 2 3 3.
        let homes: Vec<u32> = (0..10).map(|r| home(r, 10, 4)).collect();
        assert_eq!(homes, [0, 0, 0, 1, 1, 2, 2, 2, 3, 3]);
        let start: Arc<[u32]> = Arc::from(vec![0; 10]);
        for p in 0..4 {
            let d = Directory::new(p, 4, Arc::clone(&start));
            let mut data = vec![0; 10];
            assert!(d.agrees(&data));
            // Wrong on a root homed elsewhere: still agrees; on one homed here: not.
            for r in 0..10u32 {
                data[r as usize] = 1;
                assert_eq!(d.agrees(&data), homes[r as usize] != p, "p {p} root {r}");
                data[r as usize] = 0;
            }
        }
    }

    #[test]
    fn a_late_locate_message_does_not_undo_a_later_move() {
        let start: Arc<[u32]> = Arc::from(vec![0, 0]);
        let mut home = Directory::new(0, 3, start);
        // Root 1 moved 0 → 1 → 0 → 2; the messages arrive last first.
        home.report(1, 2, 3);
        home.report(1, 0, 2);
        home.report(1, 1, 1);
        assert_eq!(home.holder(1), 2);
        assert!(home.agrees(&[0, 2]));
        assert_eq!(home.entries(), 1);
    }

    #[test]
    fn data_leaving_counts_its_moves_and_points_forward() {
        let start: Arc<[u32]> = Arc::from(vec![0, 1]);
        let mut p0 = Directory::new(0, 2, Arc::clone(&start));
        let mut p1 = Directory::new(1, 2, start);
        let m = p0.left(0, 1);
        assert_eq!((m, p0.next_hop(0), p0.holder(0)), (1, 1, 1));
        p1.arrived(0, m);
        assert_eq!((p1.holder(0), p1.moves(0)), (1, 1));
        assert_eq!(p1.left(0, 0), 2);
        // p1 knows nothing of root 1's moves but that it starts there; root 0 left p1 for 0.
        assert_eq!(p1.next_hop(0), 0);
    }
}
