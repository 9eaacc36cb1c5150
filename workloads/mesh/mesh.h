// SPDX-License-Identifier: Apache-2.0
// Triangle meshes for the dmr workload (workloads/mesh/dmr.cpp): the
// geometric predicates (shared by the device kernels and the host checks, so
// both decide alike), a seeded generator of the Delaunay triangulation of
// random points in the unit square, a reader and writer of Jonathan
// Shewchuk's Triangle .node/.ele files, and the host checks of a refined
// mesh. No SystemC here.
//
// A mesh is points and counter-clockwise triangles; nbr[t][k] is the
// triangle across the edge opposite vertex k of t (the edge from vertex
// k + 1 to vertex k + 2), kNone on the boundary, as LonestarGPU's DMR keeps
// its `elements` and `neighbours`. Geometry is double precision, as
// LonestarGPU's (FORD is double). The domain is convex: the generator's is
// the unit square (its four corners are points of the mesh), a file's is
// checked to be.
//
// Triangle's formats (https://www.cs.cmu.edu/~quake/triangle.node.html and
// triangle.ele.html): `#` starts a comment; .node: a line "N 2 A B" (points,
// dimension 2, A attributes, B boundary markers 0 or 1), then N lines
// "i x y [A attributes] [marker]"; .ele: a line "T 3 A", then T lines
// "j n1 n2 n3 [A attributes]". Numbering starts at 0 or 1 (the first line's
// number) and is consecutive. Every problem is a UserError "file:line: what"
// (exit 2).
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace fg::mesh {

inline constexpr std::uint32_t kNone = 0xffffffffu;

// ---- predicates (plain double arithmetic, the same on host and device) ------------

// Twice the signed area of (a, b, c): > 0 counter-clockwise.
inline double orient(double ax, double ay, double bx, double by, double cx, double cy) {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

// > 0 when d is strictly inside the circle through counter-clockwise a, b, c
// (Triangle's incircle, non-robust); `perm` gets the sum of the terms'
// magnitudes, which bounds its rounding error (relative 1e-15 or so).
inline double incircle(double ax, double ay, double bx, double by, double cx, double cy, double dx, double dy,
                       double* perm = nullptr) {
  const double adx = ax - dx, ady = ay - dy, bdx = bx - dx, bdy = by - dy, cdx = cx - dx, cdy = cy - dy;
  const double alift = adx * adx + ady * ady, blift = bdx * bdx + bdy * bdy, clift = cdx * cdx + cdy * cdy;
  const double bc = bdx * cdy - cdx * bdy, ca = cdx * ady - adx * cdy, ab = adx * bdy - bdx * ady;
  if (perm) {
    auto a = [](double v) { return v < 0 ? -v : v; };
    *perm = alift * (a(bdx * cdy) + a(cdx * bdy)) + blift * (a(cdx * ady) + a(adx * cdy)) +
            clift * (a(adx * bdy) + a(bdx * ady));
  }
  return alift * bc + blift * ca + clift * ab;
}

// The circumcentre of (a, b, c) (computed relative to a).
inline void circumcentre(double ax, double ay, double bx, double by, double cx, double cy, double& ox, double& oy) {
  const double bx0 = bx - ax, by0 = by - ay, cx0 = cx - ax, cy0 = cy - ay;
  const double d = 2 * (bx0 * cy0 - by0 * cx0);
  const double b2 = bx0 * bx0 + by0 * by0, c2 = cx0 * cx0 + cy0 * cy0;
  ox = ax + (cy0 * b2 - by0 * c2) / d;
  oy = ay + (bx0 * c2 - cx0 * b2) / d;
}

// The angle at (cx, cy) between the rays to a and b is below 30 degrees:
// its cosine above cos 30 = sqrt(3)/2, i.e. a positive dot product whose
// square exceeds 3/4 of the product of the squared lengths (LonestarGPU's
// angleLT without the square root). Exactly 30 degrees is not below.
inline bool angle_below_30(double ax, double ay, double bx, double by, double cx, double cy) {
  const double vax = ax - cx, vay = ay - cy, vbx = bx - cx, vby = by - cy;
  const double dp = vax * vbx + vay * vby;
  return dp > 0 && dp * dp > 0.75 * (vax * vax + vay * vay) * (vbx * vbx + vby * vby);
}

// A bad triangle: its smallest angle is below 30 degrees (the worklist
// paper's and LonestarGPU's MINANGLE).
inline bool bad_triangle(double ax, double ay, double bx, double by, double cx, double cy) {
  return angle_below_30(bx, by, cx, cy, ax, ay) || angle_below_30(cx, cy, ax, ay, bx, by) ||
         angle_below_30(ax, ay, bx, by, cx, cy);
}

// ---- meshes ------------------------------------------------------------------------

using Tri = std::array<std::uint32_t, 3>;

struct Mesh {
  std::vector<double> x, y;   // points
  std::vector<Tri> tri;       // counter-clockwise
  std::vector<Tri> nbr;       // nbr[t][k]: across the edge opposite tri[t][k]; kNone: boundary
  std::string origin;         // the generator and its parameters, or the file(s)
  std::uint32_t base = 1;     // the number of the first point and triangle in files (Triangle's default: 1)
  std::uint64_t flipped = 0;  // clockwise triangles of a file, turned counter-clockwise
  std::uint32_t points() const { return static_cast<std::uint32_t>(x.size()); }
  std::uint32_t triangles() const { return static_cast<std::uint32_t>(tri.size()); }
  bool bad(std::uint32_t t) const {
    const Tri& v = tri[t];
    return bad_triangle(x[v[0]], y[v[0]], x[v[1]], y[v[1]], x[v[2]], y[v[2]]);
  }
};

// The Delaunay triangulation of `points` seeded uniform random points in the
// open unit square and the square's four corners (points 0..3), by
// Bowyer-Watson insertion into the square's two triangles (no super-triangle:
// every point is inside the square). Points are numbered in a snake order of
// a grid over the square, triangles in the snake order of their centroids.
// About 0.8 s per 100,000 points (8 s per million) on a 2-core test machine.
Mesh random_square(std::uint64_t points, std::uint64_t seed);

// The files of `input`: the path of a .ele (the .node beside it, the same
// name but the extension), of a .node (the .ele beside it), or of any other
// file, which holds a .node then a .ele (what dmr's --output writes). Throws UserError naming the file and line. The
// mesh is checked: every triangle non-degenerate (a clockwise one is turned), every point in a triangle, a valid
// triangulation of a convex domain, Delaunay.
Mesh read_triangle(const std::string& input);
// The triangles the .ele's header announces, before reading it (the device-
// memory estimate); 0 if it cannot be read (the read reports why).
std::uint64_t announced_triangles(const std::string& input);

// The .node then the .ele, numbered from m.base, coordinates to the last bit.
void write_triangle(std::ostream& out, const Mesh& m);

// What is wrong with a mesh, and the triangle (its index) it is about, if any.
struct Problem {
  std::string what;  // empty: nothing
  std::uint32_t triangle = kNone;
  explicit operator bool() const { return !what.empty(); }
};

// Sets m.nbr from the triangles' edges. A problem: an edge in two triangles
// the same way round (they overlap, or one is turned).
Problem build_neighbours(Mesh& m);

// Whether m is a valid triangulation of a convex polygon: every triangle
// counter-clockwise with positive area, m.nbr as build_neighbours makes it
// (so every neighbour relation is reciprocal), every point a vertex, the
// Euler characteristic of a disc (V - E + F = 1), one boundary loop, convex
// and counter-clockwise, the triangles' areas summing to its area. Returns
// the first problem, if any; `area` gets the sum of the triangles' areas,
// `boundary_points` the boundary's points.
Problem check_triangulation(const Mesh& m, double* area = nullptr, std::uint32_t* boundary_points = nullptr);

// Triangles with a point strictly inside their circumcircle: incircle above
// 1e-10 of its terms' magnitudes (a relative tolerance five orders above
// double's rounding). A grid of buckets keeps it near linear.
struct DelaunayCheck {
  std::uint64_t violations = 0;
  std::uint32_t triangle = kNone, point = kNone;  // the first found
};
DelaunayCheck check_delaunay(const Mesh& m);

}  // namespace fg::mesh
