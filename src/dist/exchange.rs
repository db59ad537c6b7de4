//! What ranks tell each other about the edges on the roots they share
//! (`docs/design/distributed.md`, "One step"): which shared edges splits still use while
//! coarsening, and which shared edges the closure bisected. Edges travel as pairs of vertex keys;
//! everything else is the forest's own coarsening and closure.

use crate::adapt::{Forest, Support};
use crate::comm::{Comm, CommExt};
use crate::hash::IntSet;
use crate::Result;

/// Per rank: edges as pairs of vertex keys (what travels).
type KeyedEdges = Vec<Vec<(u64, u64)>>;
/// Per rank: edges as local vertex ids (`None`: an edge whose ends are not here).
type LocalEdges = Vec<Vec<Option<(u32, u32)>>>;

/// `edges` (`(root held elsewhere, vertex, vertex)`) grouped by the rank owning the root,
/// each edge once per rank, in the order given: as vertex keys (to send) and as local ends.
fn by_destination(
    forest: &Forest,
    owner: &[u32],
    nranks: usize,
    edges: impl IntoIterator<Item = (u32, u32, u32)>,
) -> (KeyedEdges, Vec<Vec<(u32, u32)>>) {
    let mut keys = vec![Vec::new(); nranks];
    let mut ends = vec![Vec::new(); nranks];
    let mut seen: IntSet<(u32, u64)> = IntSet::default();
    let verts = forest.vertices();
    for (root, a, b) in edges {
        let dest = owner[root as usize];
        if seen.insert((dest, crate::adapt::edge_key(a, b))) {
            keys[dest as usize].push((verts[a].key, verts[b].key));
            ends[dest as usize].push((a, b));
        }
    }
    (keys, ends)
}

/// The distributed closure (`docs/design/distributed.md`): repeat {the forest's closure; send the
/// edges it bisected on roots held elsewhere to their owners; bisect what arrives} until no
/// rank sent anything. Returns the number of rounds.
pub(crate) fn close<C: Comm + ?Sized>(
    comm: &C,
    forest: &mut Forest,
    owner: &[u32],
) -> Result<usize> {
    let mut rounds = 0;
    loop {
        rounds += 1;
        comm.agree(forest.close())?;
        let outbox = std::mem::take(&mut forest.outbox);
        let (outgoing, _) = by_destination(forest, owner, comm.size(), outbox);
        if !comm.any(outgoing.iter().any(|v| !v.is_empty()))? {
            return Ok(rounds);
        }
        let incoming = comm.all_to_all_serde(&outgoing)?;
        let applied = (|| {
            if incoming.iter().all(Vec::is_empty) {
                return Ok(());
            }
            // The ends of the edges that arrive, and their midpoints (to detect collisions).
            let keys = incoming
                .iter()
                .flatten()
                .flat_map(|&(ka, kb)| [ka, kb, crate::adapt::midpoint_key(ka, kb)]);
            let mut by_key = forest.midpoints_with_keys(keys, true);
            for &(ka, kb) in incoming.iter().flatten() {
                forest.bisect_from_elsewhere(&mut by_key, ka, kb)?;
            }
            Ok(())
        })();
        comm.agree(applied)?;
    }
}

/// Coarsening's exchange across ranks ([`crate::adapt`]'s `SharedEdges`): first each rank asks
/// the owners of the roots around its candidates' shared edges about them; then, at every
/// refresh, each rank answers whether its own splits still use each edge it was asked about.
pub(crate) struct CoarsenExchange<'a, C: Comm + ?Sized> {
    comm: &'a C,
    owner: &'a [u32],
    /// The edges this rank asked each rank about (local ends), in the order asked.
    asked: Vec<Vec<(u32, u32)>>,
    /// The edges each rank asked about, here (`None`: not an edge here).
    questions: Option<LocalEdges>,
}

impl<'a, C: Comm + ?Sized> CoarsenExchange<'a, C> {
    /// The exchange of one coarsening on this rank.
    pub(crate) fn new(comm: &'a C, owner: &'a [u32]) -> Self {
        CoarsenExchange {
            comm,
            owner,
            asked: Vec::new(),
            questions: None,
        }
    }

    /// Sends this rank's questions and receives the others'.
    fn ask(&mut self, forest: &Forest, shared: &[(u32, u32, u32)]) -> Result<()> {
        let mut around = Vec::new();
        for &(r, a, b) in shared {
            let support: Support =
                crate::adapt::union(&forest.vertices()[a].support, &forest.vertices()[b].support);
            forest.for_each_other_root_around(r, &support, |s| {
                if !forest.holds(s) {
                    around.push((s, a, b));
                }
            });
        }
        let (keys, ends) = by_destination(forest, self.owner, self.comm.size(), around);
        self.asked = ends;
        let incoming = self.comm.all_to_all_serde(&keys)?;
        let keys = incoming.iter().flatten().flat_map(|&(ka, kb)| [ka, kb]);
        let by_key = forest.midpoints_with_keys(keys, true);
        let id = |k: u64| forest.vertex_with_key(k, &by_key);
        self.questions = Some(
            incoming
                .iter()
                .map(|edges| edges.iter().map(|&(ka, kb)| id(ka).zip(id(kb))).collect())
                .collect(),
        );
        Ok(())
    }
}

impl<C: Comm + ?Sized> crate::adapt::SharedEdges for CoarsenExchange<'_, C> {
    fn refresh(&mut self, forest: &mut Forest, shared: &[(u32, u32, u32)]) -> Result<bool> {
        if self.questions.is_none() {
            self.ask(forest, shared)?;
        }
        let questions = self.questions.as_ref().expect("asked");
        let answers: Vec<Vec<bool>> = questions
            .iter()
            .map(|edges| {
                edges
                    .iter()
                    .map(|e| e.is_some_and(|(a, b)| forest.still_used_here(a, b)))
                    .collect()
            })
            .collect();
        let replies = self.comm.all_to_all_serde(&answers)?;
        let mut used_elsewhere = IntSet::default();
        for (asked, reply) in self.asked.iter().zip(&replies) {
            for (&(a, b), &used) in asked.iter().zip(reply) {
                if used {
                    used_elsewhere.insert(crate::adapt::edge_key(a, b));
                }
            }
        }
        let changed = used_elsewhere != forest.used_elsewhere;
        forest.used_elsewhere = used_elsewhere;
        Ok(changed)
    }

    fn any(&mut self, local: bool) -> Result<bool> {
        self.comm.any(local)
    }
}
