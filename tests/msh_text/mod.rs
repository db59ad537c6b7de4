//! Small MSH files written by hand, shared by the library's and the command's bad-input tests.
#![allow(dead_code)]

/// An MSH 2.2 file with `nodes` (lines "tag x y z") and tetrahedra (lines "a b c d").
pub fn msh22(nodes: &[&str], tets: &[&str]) -> String {
    let mut s = format!(
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n{}\n",
        nodes.len()
    );
    for n in nodes {
        s += &format!("{n}\n");
    }
    s += &format!("$EndNodes\n$Elements\n{}\n", tets.len());
    for (e, t) in tets.iter().enumerate() {
        s += &format!("{} 4 2 0 1 {t}\n", e + 1);
    }
    s + "$EndElements\n"
}

/// Five nodes: the unit tetrahedron's corners and (1, 1, 1).
pub const UNIT_NODES: [&str; 5] = ["1 0 0 0", "2 1 0 0", "3 0 1 0", "4 0 0 1", "5 1 1 1"];
