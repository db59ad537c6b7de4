//! Files: Gmsh MSH 2.2 / 4.1 and VTK `.vtu` meshes in and out, METIS graph files out.
