"""VTK's own view of plume's .vtu files (run with Debian's /usr/bin/python3 and python3-vtk9).

    vtk_check.py read FILE.vtu|FILE.pvtu    print cells, tetra count, total volume, cell arrays
                                            (type, range, and the sum of each); a .pvtu is
                                            read with all its pieces as one grid
    vtk_check.py write FILE.vtu MODE        write two tetrahedra sharing a face, with cell arrays
                                            "id" (Int32) and "value" (Float64); MODE is one of
                                            appended (VTK's default: appended base64, zlib),
                                            appended-base64 (the same, said explicitly),
                                            appended-raw (raw appended, zlib), appended-raw-none
                                            (raw appended, uncompressed), binary (inline base64),
                                            ascii
"""
import sys

import vtk


def read(path):
    if path.endswith(".pvtu"):
        reader = vtk.vtkXMLPUnstructuredGridReader()
    else:
        reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    grid = reader.GetOutput()
    sizes = vtk.vtkCellSizeFilter()
    sizes.SetInputData(grid)
    sizes.ComputeVolumeOn()
    sizes.Update()
    volumes = sizes.GetOutput().GetCellData().GetArray("Volume")
    total = sum(volumes.GetValue(i) for i in range(volumes.GetNumberOfTuples()))
    tetras = sum(1 for i in range(grid.GetNumberOfCells()) if grid.GetCellType(i) == vtk.VTK_TETRA)
    data = grid.GetCellData()
    names = [data.GetArrayName(i) for i in range(data.GetNumberOfArrays())]
    print(f"cells {grid.GetNumberOfCells()}")
    print(f"tetras {tetras}")
    print(f"points {grid.GetNumberOfPoints()}")
    print(f"volume {total:.15g}")
    print(f"arrays {','.join(names)}")
    for name in names:
        array = data.GetArray(name)
        print(f"array {name} {array.GetDataTypeAsString()} {array.GetRange()[0]:.15g} {array.GetRange()[1]:.15g}")
        total = sum(array.GetValue(i) for i in range(array.GetNumberOfTuples()))
        print(f"sum {name} {total:.17g}")


def write(path, mode):
    points = vtk.vtkPoints()
    points.SetDataTypeToDouble()
    for p in [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]:
        points.InsertNextPoint(*p)
    grid = vtk.vtkUnstructuredGrid()
    grid.SetPoints(points)
    for tet in [(0, 1, 2, 3), (1, 2, 3, 4)]:
        ids = vtk.vtkIdList()
        for v in tet:
            ids.InsertNextId(v)
        grid.InsertNextCell(vtk.VTK_TETRA, ids)
    line = vtk.vtkIdList()
    line.InsertNextId(0)
    line.InsertNextId(4)
    grid.InsertNextCell(vtk.VTK_LINE, line)  # plume skips it
    ids = vtk.vtkIntArray()
    ids.SetName("id")
    values = vtk.vtkDoubleArray()
    values.SetName("value")
    for i, v in enumerate([0.5, -2.25, 7.0]):
        ids.InsertNextValue(10 + i)
        values.InsertNextValue(v)
    grid.GetCellData().AddArray(ids)
    grid.GetCellData().AddArray(values)
    writer = vtk.vtkXMLUnstructuredGridWriter()
    writer.SetFileName(path)
    writer.SetInputData(grid)
    if mode == "appended-base64":
        writer.SetDataModeToAppended()
        writer.EncodeAppendedDataOn()
    elif mode in ("appended-raw", "appended-raw-none"):
        writer.SetDataModeToAppended()
        writer.EncodeAppendedDataOff()
        if mode == "appended-raw-none":
            writer.SetCompressorTypeToNone()
    elif mode == "binary":
        writer.SetDataModeToBinary()
    elif mode == "ascii":
        writer.SetDataModeToAscii()
    elif mode != "appended":
        sys.exit(f"unknown mode {mode}")
    if not writer.Write():
        sys.exit(f"VTK could not write {path}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "read":
        read(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
