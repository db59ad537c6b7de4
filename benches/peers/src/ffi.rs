//! Every call into C: Zoltan (`zoltan.h`, Trilinos 13.2, `ZOLTAN_ID_TYPE` = `unsigned int`) and
//! Scotch (`scotch.h` 7.0.3, `SCOTCH_Num` = `int`), declared by hand from the installed headers
//! (`/usr/include/trilinos`, `/usr/include/scotch`). The rest of the crate is safe code; this
//! module turns each library call into a function taking Rust slices.

use mpi::traits::AsRaw;
use std::ffi::{c_char, c_double, c_int, c_uint, c_void, CString};
use std::ptr;
use std::sync::OnceLock;
use std::time::Instant;

/// `ZOLTAN_OK`; `ZOLTAN_WARN` (1) is a success with a warning (e.g. the tolerance not met).
const ZOLTAN_OK: c_int = 0;
const ZOLTAN_WARN: c_int = 1;
const ZOLTAN_FATAL: c_int = -1;

/// `struct Zoltan_Struct`, only ever behind a pointer.
#[repr(C)]
struct ZoltanStruct {
    _opaque: [u8; 0],
}

/// `SCOTCH_Graph` (`double dummy[12]` in scotch.h 7.0.3).
#[repr(C)]
struct ScotchGraph {
    _dummy: [c_double; 12],
}

/// `SCOTCH_Context` (`double dummy[3]`).
#[repr(C)]
struct ScotchContext {
    _dummy: [c_double; 3],
}

/// `SCOTCH_OPTIONNUMDETERMINISTIC`.
const SCOTCH_OPTIONNUMDETERMINISTIC: c_int = 0;

/// `SCOTCH_Strat` (`double dummy[1]`).
#[repr(C)]
struct ScotchStrat {
    _dummy: [c_double; 1],
}

type Ids = *mut c_uint;
type NumFn = extern "C" fn(*mut c_void, *mut c_int) -> c_int;
type ObjListFn = extern "C" fn(*mut c_void, c_int, c_int, Ids, Ids, c_int, *mut f32, *mut c_int);
type MultiIntFn = extern "C" fn(*mut c_void, c_int, c_int, c_int, Ids, Ids, *mut c_int, *mut c_int);
type EdgeListFn = extern "C" fn(
    *mut c_void,
    c_int,
    c_int,
    c_int,
    Ids,
    Ids,
    *mut c_int,
    Ids,
    *mut c_int,
    c_int,
    *mut f32,
    *mut c_int,
);
type GeomFn =
    extern "C" fn(*mut c_void, c_int, c_int, c_int, Ids, Ids, c_int, *mut f64, *mut c_int);

#[link(name = "trilinos_zoltan")]
extern "C" {
    fn Zoltan_Initialize(argc: c_int, argv: *mut *mut c_char, ver: *mut f32) -> c_int;
    fn Zoltan_Create(comm: mpi::ffi::MPI_Comm) -> *mut ZoltanStruct;
    fn Zoltan_Destroy(zz: *mut *mut ZoltanStruct);
    fn Zoltan_Set_Param(zz: *mut ZoltanStruct, name: *const c_char, val: *const c_char) -> c_int;
    fn Zoltan_Set_Num_Obj_Fn(zz: *mut ZoltanStruct, f: NumFn, data: *mut c_void) -> c_int;
    fn Zoltan_Set_Obj_List_Fn(zz: *mut ZoltanStruct, f: ObjListFn, data: *mut c_void) -> c_int;
    fn Zoltan_Set_Num_Edges_Multi_Fn(
        zz: *mut ZoltanStruct,
        f: MultiIntFn,
        data: *mut c_void,
    ) -> c_int;
    fn Zoltan_Set_Edge_List_Multi_Fn(
        zz: *mut ZoltanStruct,
        f: EdgeListFn,
        data: *mut c_void,
    ) -> c_int;
    fn Zoltan_Set_Num_Geom_Fn(zz: *mut ZoltanStruct, f: NumFn, data: *mut c_void) -> c_int;
    fn Zoltan_Set_Geom_Multi_Fn(zz: *mut ZoltanStruct, f: GeomFn, data: *mut c_void) -> c_int;
    fn Zoltan_Set_Obj_Size_Multi_Fn(
        zz: *mut ZoltanStruct,
        f: MultiIntFn,
        data: *mut c_void,
    ) -> c_int;
    fn Zoltan_Set_Part_Multi_Fn(zz: *mut ZoltanStruct, f: MultiIntFn, data: *mut c_void) -> c_int;
    #[allow(clippy::too_many_arguments)]
    fn Zoltan_LB_Partition(
        zz: *mut ZoltanStruct,
        changes: *mut c_int,
        num_gid_entries: *mut c_int,
        num_lid_entries: *mut c_int,
        num_import: *mut c_int,
        import_global_ids: *mut Ids,
        import_local_ids: *mut Ids,
        import_procs: *mut *mut c_int,
        import_to_part: *mut *mut c_int,
        num_export: *mut c_int,
        export_global_ids: *mut Ids,
        export_local_ids: *mut Ids,
        export_procs: *mut *mut c_int,
        export_to_part: *mut *mut c_int,
    ) -> c_int;
    fn Zoltan_Seed() -> c_uint;
    fn Zoltan_Srand(seed: c_uint, state: *mut c_uint);
    fn Zoltan_LB_Free_Part(
        global_ids: *mut Ids,
        local_ids: *mut Ids,
        procs: *mut *mut c_int,
        to_part: *mut *mut c_int,
    ) -> c_int;
}

#[link(name = "scotch")]
extern "C" {
    fn SCOTCH_graphInit(graph: *mut ScotchGraph) -> c_int;
    fn SCOTCH_graphExit(graph: *mut ScotchGraph);
    #[allow(clippy::too_many_arguments)]
    fn SCOTCH_graphBuild(
        graph: *mut ScotchGraph,
        baseval: c_int,
        vertnbr: c_int,
        verttab: *const c_int,
        vendtab: *const c_int,
        velotab: *const c_int,
        vlbltab: *const c_int,
        edgenbr: c_int,
        edgetab: *const c_int,
        edlotab: *const c_int,
    ) -> c_int;
    fn SCOTCH_graphCheck(graph: *const ScotchGraph) -> c_int;
    fn SCOTCH_graphRepart(
        graph: *mut ScotchGraph,
        partnbr: c_int,
        parotab: *mut c_int,
        emraval: c_double,
        vmlotab: *const c_int,
        strat: *mut ScotchStrat,
        parttab: *mut c_int,
    ) -> c_int;
    fn SCOTCH_stratInit(strat: *mut ScotchStrat) -> c_int;
    fn SCOTCH_stratExit(strat: *mut ScotchStrat);
    fn SCOTCH_stratGraphMapBuild(
        strat: *mut ScotchStrat,
        flags: c_int,
        partnbr: c_int,
        balrat: c_double,
    ) -> c_int;
    fn SCOTCH_contextInit(context: *mut ScotchContext) -> c_int;
    fn SCOTCH_contextExit(context: *mut ScotchContext);
    fn SCOTCH_contextOptionSetNum(
        context: *mut ScotchContext,
        option: c_int,
        value: c_int,
    ) -> c_int;
    fn SCOTCH_contextRandomClone(context: *mut ScotchContext) -> c_int;
    fn SCOTCH_contextRandomReset(context: *mut ScotchContext);
    fn SCOTCH_contextThreadSpawn(
        context: *mut ScotchContext,
        thrdnbr: c_int,
        coretab: *const c_int,
    ) -> c_int;
    fn SCOTCH_contextBindGraph(
        context: *mut ScotchContext,
        graph: *const ScotchGraph,
        bound: *mut ScotchGraph,
    ) -> c_int;
}

/// MPI, started once per process by the `mpi` crate (kept for the process's life), or found
/// already started by the caller.
static MPI: OnceLock<Result<Option<mpi::environment::Universe>, String>> = OnceLock::new();
/// `Zoltan_Initialize`, once per process, after MPI: the seed of Zoltan's global random
/// generator then, which every partitioning call starts from (PHG's matching draws from it, so
/// without the reset a second call on the same input gives other parts).
static ZOLTAN: OnceLock<Result<c_uint, String>> = OnceLock::new();

/// Starts MPI (serialized threading: calls come from any thread, one at a time) and Zoltan,
/// once; later calls return the first outcome.
pub(crate) fn start_zoltan() -> Result<(), String> {
    let mpi = MPI.get_or_init(|| {
        if mpi::environment::is_initialized() {
            return Ok(None);
        }
        match mpi::initialize_with_threading(mpi::Threading::Serialized) {
            Some((universe, level)) if level >= mpi::Threading::Serialized => Ok(Some(universe)),
            Some((_, level)) => Err(format!("MPI gives threading {level:?}, not Serialized")),
            None => Err("MPI could not be initialised".into()),
        }
    });
    mpi.as_ref().map_err(Clone::clone)?;
    let zoltan = ZOLTAN.get_or_init(|| {
        let mut version = 0.0f32;
        // SAFETY: MPI is initialised (above); Zoltan_Initialize with argc = 0 and a null argv
        // only reads `version`'s address, valid for the call.
        let rc = unsafe { Zoltan_Initialize(0, ptr::null_mut(), &mut version) };
        if rc == ZOLTAN_OK {
            // SAFETY: reads Zoltan's global seed; no argument.
            Ok(unsafe { Zoltan_Seed() })
        } else {
            Err(format!("Zoltan_Initialize returned {rc}"))
        }
    });
    zoltan.as_ref().map(|_| ()).map_err(Clone::clone)
}

/// What Zoltan's query functions answer, for vertices `0..n` (global and local id = index).
pub(crate) struct ZoltanQueries<'a> {
    /// CSR offsets.
    pub xadj: &'a [u32],
    /// CSR neighbours.
    pub adjncy: &'a [u32],
    /// Object weight per vertex (`PWgt`).
    pub pwgt: Vec<f32>,
    /// Edge weight per CSR entry (`CWgt`).
    pub cwgt: Vec<f32>,
    /// Object size per vertex (`RWgt`): the migration cost PHG's repartitioning counts.
    pub size: Vec<c_int>,
    /// Coordinates per vertex.
    pub coords: &'a [[f64; 3]],
    /// Current part per vertex.
    pub current: Vec<c_int>,
}

/// Runs `Zoltan_LB_Partition` with `params` on the queries' graph: the new part of every vertex
/// (the current one unless Zoltan exports it) and the call's wall time in seconds.
pub(crate) fn zoltan_partition(
    params: &[(&str, String)],
    q: &ZoltanQueries<'_>,
) -> Result<(Vec<u32>, f64), String> {
    // SAFETY: MPI is initialised by the caller (`start_zoltan`); the world communicator's raw
    // handle is valid for the process's life.
    let zz = unsafe { Zoltan_Create(mpi::topology::SimpleCommunicator::world().as_raw()) };
    if zz.is_null() {
        return Err("Zoltan_Create returned null".into());
    }
    let zz = ZoltanHandle(zz);
    for (name, value) in params {
        let (n, v) = (cstring(name)?, cstring(value)?);
        // SAFETY: `zz` is a live Zoltan structure; both strings are NUL-terminated and live for
        // the call (Zoltan copies them).
        let rc = unsafe { Zoltan_Set_Param(zz.0, n.as_ptr(), v.as_ptr()) };
        if rc != ZOLTAN_OK {
            return Err(format!("Zoltan rejected parameter {name}={value} ({rc})"));
        }
    }
    let data = q as *const ZoltanQueries as *mut c_void;
    // SAFETY: `zz` is live; every callback has the signature zoltan.h gives its setter and only
    // reads `data` as the `ZoltanQueries` it is, which outlives `zz` (dropped at the end of this
    // function, before `q`).
    let rcs = unsafe {
        [
            Zoltan_Set_Num_Obj_Fn(zz.0, num_obj, data),
            Zoltan_Set_Obj_List_Fn(zz.0, obj_list, data),
            Zoltan_Set_Num_Edges_Multi_Fn(zz.0, num_edges, data),
            Zoltan_Set_Edge_List_Multi_Fn(zz.0, edge_list, data),
            Zoltan_Set_Num_Geom_Fn(zz.0, num_geom, data),
            Zoltan_Set_Geom_Multi_Fn(zz.0, geom, data),
            Zoltan_Set_Obj_Size_Multi_Fn(zz.0, obj_size, data),
            Zoltan_Set_Part_Multi_Fn(zz.0, part, data),
        ]
    };
    if let Some(rc) = rcs.iter().find(|&&rc| rc != ZOLTAN_OK) {
        return Err(format!("Zoltan rejected a query function ({rc})"));
    }
    let (mut changes, mut ngid, mut nlid, mut nimport, mut nexport) = (0, 0, 0, 0, 0);
    let (mut igid, mut ilid, mut egid, mut elid): (Ids, Ids, Ids, Ids) = (
        ptr::null_mut(),
        ptr::null_mut(),
        ptr::null_mut(),
        ptr::null_mut(),
    );
    let (mut iproc, mut ipart, mut eproc, mut epart): (
        *mut c_int,
        *mut c_int,
        *mut c_int,
        *mut c_int,
    ) = (
        ptr::null_mut(),
        ptr::null_mut(),
        ptr::null_mut(),
        ptr::null_mut(),
    );
    let seed = match ZOLTAN.get() {
        Some(Ok(seed)) => *seed,
        _ => return Err("Zoltan is not initialised".into()),
    };
    let start = Instant::now();
    // SAFETY: Zoltan_Srand with a null state sets Zoltan's global seed (calls are serialised by
    // the caller). `zz` is live with its queries set; every out-pointer is a local of the type
    // zoltan.h declares; the lists Zoltan allocates are freed below with Zoltan_LB_Free_Part.
    let rc = unsafe {
        Zoltan_Srand(seed, ptr::null_mut());
        Zoltan_LB_Partition(
            zz.0,
            &mut changes,
            &mut ngid,
            &mut nlid,
            &mut nimport,
            &mut igid,
            &mut ilid,
            &mut iproc,
            &mut ipart,
            &mut nexport,
            &mut egid,
            &mut elid,
            &mut eproc,
            &mut epart,
        )
    };
    let seconds = start.elapsed().as_secs_f64();
    let mut new: Vec<u32> = q.current.iter().map(|&p| p as u32).collect();
    let answer = if rc != ZOLTAN_OK && rc != ZOLTAN_WARN {
        Err(format!("Zoltan_LB_Partition returned {rc}"))
    } else if nexport > 0 && (egid.is_null() || epart.is_null() || ngid != 1) {
        Err("Zoltan_LB_Partition returned no export list".into())
    } else {
        let n = nexport.max(0) as usize;
        // SAFETY: on success Zoltan allocated `nexport` global ids (one entry each, ngid = 1)
        // and as many target parts; they stay valid until freed below.
        let (gids, parts) = unsafe {
            if n == 0 {
                (&[][..], &[][..])
            } else {
                (
                    std::slice::from_raw_parts(egid, n),
                    std::slice::from_raw_parts(epart, n),
                )
            }
        };
        apply_exports(&mut new, gids, parts)
    };
    // SAFETY: the lists were allocated by this Zoltan_LB_Partition call (or are null, which
    // Zoltan_LB_Free_Part accepts) and are not used afterwards.
    unsafe {
        Zoltan_LB_Free_Part(&mut igid, &mut ilid, &mut iproc, &mut ipart);
        Zoltan_LB_Free_Part(&mut egid, &mut elid, &mut eproc, &mut epart);
    }
    answer.map(|()| (new, seconds))
}

/// Moves each exported vertex to its new part.
fn apply_exports(new: &mut [u32], gids: &[c_uint], parts: &[c_int]) -> Result<(), String> {
    for (&g, &p) in gids.iter().zip(parts) {
        let slot = new
            .get_mut(g as usize)
            .ok_or_else(|| format!("Zoltan exported unknown vertex {g}"))?;
        *slot = u32::try_from(p).map_err(|_| format!("Zoltan exported to part {p}"))?;
    }
    Ok(())
}

/// A Zoltan structure, destroyed when dropped.
struct ZoltanHandle(*mut ZoltanStruct);

impl Drop for ZoltanHandle {
    fn drop(&mut self) {
        // SAFETY: the pointer came from Zoltan_Create and is destroyed once, here.
        unsafe { Zoltan_Destroy(&mut self.0) }
    }
}

fn cstring(s: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("{s:?} holds a NUL byte"))
}

/// The queries behind Zoltan's `void *data`, and the ids Zoltan asks about.
///
/// # Safety
/// `data` must be the `ZoltanQueries` registered with the callback (see `zoltan_partition`),
/// `ids` null or pointing to `count` ids.
unsafe fn queries<'a>(
    data: *mut c_void,
    ids: Ids,
    count: c_int,
) -> (&'a ZoltanQueries<'a>, &'a [c_uint]) {
    let q = &*(data as *const ZoltanQueries);
    let ids = if ids.is_null() || count <= 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(ids, count as usize)
    };
    (q, ids)
}

/// Writes `count` values into `out` (one per id) with `value(vertex)`; fatal for an unknown id.
///
/// # Safety
/// `out` must hold `ids.len() * per` writable values.
unsafe fn fill<T: Copy>(
    ids: &[c_uint],
    out: *mut T,
    per: usize,
    ierr: *mut c_int,
    value: impl Fn(usize, &mut [T]) -> bool,
) {
    let out = std::slice::from_raw_parts_mut(out, ids.len() * per);
    for (i, &g) in ids.iter().enumerate() {
        if !value(g as usize, &mut out[i * per..(i + 1) * per]) {
            *ierr = ZOLTAN_FATAL;
            return;
        }
    }
    *ierr = ZOLTAN_OK;
}

extern "C" fn num_obj(data: *mut c_void, ierr: *mut c_int) -> c_int {
    // SAFETY: Zoltan passes the registered data and a valid `ierr`.
    unsafe {
        let (q, _) = queries(data, ptr::null_mut(), 0);
        *ierr = ZOLTAN_OK;
        q.pwgt.len() as c_int
    }
}

extern "C" fn obj_list(
    data: *mut c_void,
    _ngid: c_int,
    _nlid: c_int,
    gids: Ids,
    lids: Ids,
    wdim: c_int,
    wgts: *mut f32,
    ierr: *mut c_int,
) {
    // SAFETY: Zoltan passes arrays for num_obj() ids (one entry each: NUM_GID_ENTRIES =
    // NUM_LID_ENTRIES = 1) and num_obj() * wdim weights.
    unsafe {
        let (q, _) = queries(data, ptr::null_mut(), 0);
        let n = q.pwgt.len();
        let (g, l) = (
            std::slice::from_raw_parts_mut(gids, n),
            std::slice::from_raw_parts_mut(lids, n),
        );
        for v in 0..n {
            (g[v], l[v]) = (v as c_uint, v as c_uint);
        }
        let per = wdim.max(0) as usize;
        if per > 0 {
            let w = std::slice::from_raw_parts_mut(wgts, n * per);
            for v in 0..n {
                w[v * per..(v + 1) * per].fill(q.pwgt[v]);
            }
        }
        *ierr = ZOLTAN_OK;
    }
}

extern "C" fn num_edges(
    data: *mut c_void,
    _ngid: c_int,
    _nlid: c_int,
    num: c_int,
    gids: Ids,
    _lids: Ids,
    out: *mut c_int,
    ierr: *mut c_int,
) {
    // SAFETY: Zoltan passes `num` ids and room for `num` counts.
    unsafe {
        let (q, ids) = queries(data, gids, num);
        fill(ids, out, 1, ierr, |v, o| match q.xadj.get(v..v + 2) {
            Some(r) => {
                o[0] = (r[1] - r[0]) as c_int;
                true
            }
            None => false,
        });
    }
}

extern "C" fn edge_list(
    data: *mut c_void,
    _ngid: c_int,
    _nlid: c_int,
    num: c_int,
    gids: Ids,
    _lids: Ids,
    _num_edges: *mut c_int,
    nbor_gids: Ids,
    nbor_procs: *mut c_int,
    wdim: c_int,
    ewgts: *mut f32,
    ierr: *mut c_int,
) {
    // SAFETY: Zoltan passes `num` ids and room for the sum of their edge counts (as
    // `num_edges` reported them) in neighbours, processes and `wdim` weights each.
    unsafe {
        let (q, ids) = queries(data, gids, num);
        let per = wdim.max(0) as usize;
        let mut at = 0usize;
        for &g in ids {
            let Some(r) = q.xadj.get(g as usize..g as usize + 2) else {
                *ierr = ZOLTAN_FATAL;
                return;
            };
            for e in r[0] as usize..r[1] as usize {
                *nbor_gids.add(at) = q.adjncy[e];
                *nbor_procs.add(at) = 0;
                for d in 0..per {
                    *ewgts.add(at * per + d) = q.cwgt[e];
                }
                at += 1;
            }
        }
        *ierr = ZOLTAN_OK;
    }
}

extern "C" fn num_geom(_data: *mut c_void, ierr: *mut c_int) -> c_int {
    // SAFETY: Zoltan passes a valid `ierr`.
    unsafe { *ierr = ZOLTAN_OK };
    3
}

extern "C" fn geom(
    data: *mut c_void,
    _ngid: c_int,
    _nlid: c_int,
    num: c_int,
    gids: Ids,
    _lids: Ids,
    dim: c_int,
    out: *mut f64,
    ierr: *mut c_int,
) {
    // SAFETY: Zoltan passes `num` ids and room for `num * dim` coordinates (dim = num_geom = 3).
    unsafe {
        let (q, ids) = queries(data, gids, num);
        if dim != 3 {
            *ierr = ZOLTAN_FATAL;
            return;
        }
        fill(ids, out, 3, ierr, |v, o| match q.coords.get(v) {
            Some(p) => {
                o.copy_from_slice(p);
                true
            }
            None => false,
        });
    }
}

extern "C" fn obj_size(
    data: *mut c_void,
    _ngid: c_int,
    _nlid: c_int,
    num: c_int,
    gids: Ids,
    _lids: Ids,
    out: *mut c_int,
    ierr: *mut c_int,
) {
    // SAFETY: Zoltan passes `num` ids and room for `num` sizes.
    unsafe {
        let (q, ids) = queries(data, gids, num);
        fill(ids, out, 1, ierr, |v, o| match q.size.get(v) {
            Some(&s) => {
                o[0] = s;
                true
            }
            None => false,
        });
    }
}

extern "C" fn part(
    data: *mut c_void,
    _ngid: c_int,
    _nlid: c_int,
    num: c_int,
    gids: Ids,
    _lids: Ids,
    out: *mut c_int,
    ierr: *mut c_int,
) {
    // SAFETY: Zoltan passes `num` ids and room for `num` parts.
    unsafe {
        let (q, ids) = queries(data, gids, num);
        fill(ids, out, 1, ierr, |v, o| match q.current.get(v) {
            Some(&p) => {
                o[0] = p;
                true
            }
            None => false,
        });
    }
}

/// Scotch's graph in its own arrays (`SCOTCH_Num` = `int`, base 0, compact CSR).
pub(crate) struct ScotchInput {
    /// CSR offsets, `n + 1`.
    pub verttab: Vec<c_int>,
    /// Neighbours.
    pub edgetab: Vec<c_int>,
    /// Vertex loads (`PWgt`).
    pub velotab: Vec<c_int>,
    /// Edge loads (`CWgt`).
    pub edlotab: Vec<c_int>,
    /// Old partition.
    pub parotab: Vec<c_int>,
    /// Per-vertex migration costs (`RWgt`).
    pub vmlotab: Vec<c_int>,
}

/// Runs `SCOTCH_graphRepart` into `partnbr` parts with migration ratio `emraval` and a mapping
/// strategy built from `flags` and `balrat`, on one thread with a private random generator
/// reset for each call (Debian's Scotch is threaded: with its default context, two calls on a
/// 50,400-vertex graph gave different parts): the new parts and the wall time of building the
/// graph and repartitioning it, in seconds.
pub(crate) fn scotch_repart(
    s: &mut ScotchInput,
    partnbr: c_int,
    emraval: f64,
    flags: c_int,
    balrat: f64,
) -> Result<(Vec<c_int>, f64), String> {
    let n = s.velotab.len();
    let mut parttab: Vec<c_int> = vec![0; n];
    let mut context = ScotchContext { _dummy: [0.0; 3] };
    let mut graph = ScotchGraph { _dummy: [0.0; 12] };
    let mut bound = ScotchGraph { _dummy: [0.0; 12] };
    let mut strat = ScotchStrat { _dummy: [0.0; 1] };
    let start = Instant::now();
    // SAFETY: the four objects have the header's sizes; each is initialised here and exited
    // below in the reverse order whatever the outcome (Scotch's exit routines accept an
    // initialised object even if a later step failed). The arrays have the lengths
    // SCOTCH_graphBuild reads (verttab n + 1, velotab and vmlotab n, edgetab and edlotab
    // verttab[n]) and outlive the graph; parttab holds n parts.
    let rc = unsafe {
        SCOTCH_contextInit(&mut context);
        SCOTCH_graphInit(&mut graph);
        SCOTCH_graphInit(&mut bound);
        SCOTCH_stratInit(&mut strat);
        let mut rc = SCOTCH_contextThreadSpawn(&mut context, 1, ptr::null());
        if rc == 0 {
            rc = SCOTCH_contextOptionSetNum(&mut context, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
        }
        if rc == 0 {
            rc = SCOTCH_contextRandomClone(&mut context);
        }
        if rc == 0 {
            SCOTCH_contextRandomReset(&mut context);
            rc = SCOTCH_graphBuild(
                &mut graph,
                0,
                n as c_int,
                s.verttab.as_ptr(),
                ptr::null(),
                s.velotab.as_ptr(),
                ptr::null(),
                s.edgetab.len() as c_int,
                s.edgetab.as_ptr(),
                s.edlotab.as_ptr(),
            );
        }
        if rc == 0 {
            rc = SCOTCH_graphCheck(&graph);
        }
        if rc == 0 {
            rc = SCOTCH_contextBindGraph(&mut context, &graph, &mut bound);
        }
        if rc == 0 {
            rc = SCOTCH_stratGraphMapBuild(&mut strat, flags, partnbr, balrat);
        }
        if rc == 0 {
            rc = SCOTCH_graphRepart(
                &mut bound,
                partnbr,
                s.parotab.as_mut_ptr(),
                emraval,
                s.vmlotab.as_ptr(),
                &mut strat,
                parttab.as_mut_ptr(),
            );
        }
        SCOTCH_stratExit(&mut strat);
        SCOTCH_graphExit(&mut bound);
        SCOTCH_graphExit(&mut graph);
        SCOTCH_contextExit(&mut context);
        rc
    };
    let seconds = start.elapsed().as_secs_f64();
    if rc != 0 {
        return Err(format!("Scotch returned {rc} (see its message on stderr)"));
    }
    Ok((parttab, seconds))
}
