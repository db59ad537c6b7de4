// The shock-tube box of `plume run shock`: [0, 4] x [0, 1] x [0, 1], unstructured tetrahedra.
// Regenerate (reproducibly: one thread, fixed seed and algorithms) with
//   gmsh meshes/shock_box.geo -3 -format msh41 -o meshes/shock_box.msh
SetFactory("Built-in");
h = 0.072;              // target edge length: about 50,000 tetrahedra
Point(1) = {0, 0, 0, h};
Point(2) = {4, 0, 0, h};
Point(3) = {4, 1, 0, h};
Point(4) = {0, 1, 0, h};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
// Sweep the bottom face upwards only as a geometry (no Layers): the volume stays unstructured.
Extrude {0, 0, 1} { Surface{1}; }
Physical Volume("box") = {1};

Mesh.Algorithm = 6;      // Frontal-Delaunay surfaces
Mesh.Algorithm3D = 1;    // Delaunay volume
Mesh.RandomSeed = 1;
General.NumThreads = 1;
Mesh.Optimize = 1;
Mesh.Binary = 0;
Mesh.MshFileVersion = 4.1;
