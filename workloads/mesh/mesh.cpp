// SPDX-License-Identifier: Apache-2.0
#include "mesh/mesh.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "inputs/lines.h"
#include "inputs/rng.h"
#include "sim/error.h"

namespace fg::mesh {
namespace {

using Rng = inputs::SplitMix64;  // inputs/rng.h

// The cell of (x, y) in a g x g grid over the unit square, rows in snake order.
std::uint64_t snake_cell(double x, double y, std::uint64_t g) {
  const auto col =
      std::min<std::uint64_t>(g - 1, static_cast<std::uint64_t>(std::max(0.0, x) * static_cast<double>(g)));
  const auto row =
      std::min<std::uint64_t>(g - 1, static_cast<std::uint64_t>(std::max(0.0, y) * static_cast<double>(g)));
  return row * g + (row % 2 ? g - 1 - col : col);
}

// ---- Bowyer-Watson on the host (the generator) --------------------------------------

class Inserter {
 public:
  explicit Inserter(Mesh& m) : m_(m) {}

  // Inserts point p, walking from triangle `hint`; returns false (and changes
  // nothing) when the cavity is not star-shaped around p (p on a vertex).
  bool insert(std::uint32_t p, std::uint32_t& hint) {
    const double px = m_.x[p], py = m_.y[p];
    std::uint32_t cur = hint;
    for (std::uint64_t steps = 0;; ++steps) {
      if (steps > 4ull * m_.tri.size() + 16) throw std::logic_error("dmr generator: the walk does not end");
      int k = 0;
      for (; k < 3; ++k)
        if (edge_orient(cur, k, px, py) < 0) break;
      if (k == 3) break;
      const std::uint32_t nb = m_.nbr[cur][k];
      if (nb == kNone) throw std::logic_error("dmr generator: a point outside the square");
      cur = nb;
    }
    // The cavity: every triangle whose circumcircle holds p, from the one that holds p.
    if (in_.size() < m_.tri.size()) in_.resize(m_.tri.size(), 0), out_.resize(m_.tri.size(), 0);
    ++stamp_;
    cav_.assign(1, cur);
    in_[cur] = stamp_;
    for (std::size_t i = 0; i < cav_.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t nb = m_.nbr[cav_[i]][k];
        if (nb == kNone || in_[nb] == stamp_ || out_[nb] == stamp_) continue;
        const Tri& v = m_.tri[nb];
        if (incircle(m_.x[v[0]], m_.y[v[0]], m_.x[v[1]], m_.y[v[1]], m_.x[v[2]], m_.y[v[2]], px, py) > 0) {
          in_[nb] = stamp_;
          cav_.push_back(nb);
        } else {
          out_[nb] = stamp_;
        }
      }
    bnd_.clear();
    for (const std::uint32_t t : cav_)
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t nb = m_.nbr[t][k];
        if (nb != kNone && in_[nb] == stamp_) continue;
        Edge e{m_.tri[t][(k + 1) % 3], m_.tri[t][(k + 2) % 3], nb, 0};
        if (nb != kNone)
          e.slot = static_cast<std::uint32_t>(std::find(m_.nbr[nb].begin(), m_.nbr[nb].end(), t) - m_.nbr[nb].begin());
        if (orient(m_.x[e.a], m_.y[e.a], m_.x[e.b], m_.y[e.b], px, py) <= 0) return false;
        bnd_.push_back(e);
      }
    // The fan from p: the cavity's slots, then new ones.
    std::vector<std::uint32_t> ids(bnd_.size());
    for (std::size_t i = 0; i < bnd_.size(); ++i) {
      if (i < cav_.size()) {
        ids[i] = cav_[i];
      } else {
        ids[i] = static_cast<std::uint32_t>(m_.tri.size());
        m_.tri.push_back({}), m_.nbr.push_back({});
      }
    }
    for (std::size_t i = 0; i < bnd_.size(); ++i) {
      const Edge& e = bnd_[i];
      std::uint32_t from_b = kNone, to_a = kNone;
      for (std::size_t j = 0; j < bnd_.size(); ++j) {
        if (bnd_[j].a == e.b) from_b = ids[j];
        if (bnd_[j].b == e.a) to_a = ids[j];
      }
      m_.tri[ids[i]] = {e.a, e.b, p};
      m_.nbr[ids[i]] = {from_b, to_a, e.out};
      if (e.out != kNone) m_.nbr[e.out][e.slot] = ids[i];
    }
    hint = ids.back();
    return true;
  }

 private:
  struct Edge {
    std::uint32_t a, b, out, slot;
  };
  double edge_orient(std::uint32_t t, int k, double px, double py) const {
    const std::uint32_t a = m_.tri[t][(k + 1) % 3], b = m_.tri[t][(k + 2) % 3];
    return orient(m_.x[a], m_.y[a], m_.x[b], m_.y[b], px, py);
  }
  Mesh& m_;
  std::vector<std::uint32_t> in_, out_, cav_;
  std::vector<Edge> bnd_;
  std::uint32_t stamp_ = 0;
};

// ---- the reader ---------------------------------------------------------------------

class Lines {
 public:
  Lines(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}
  // The fields of the next line with any (after `#` comments are cut); false at the end.
  bool next(std::vector<std::string_view>& f) {
    while (std::getline(in_, buf_)) {
      ++number_;
      std::string_view line(buf_);
      if (const auto h = line.find('#'); h != std::string_view::npos) line = line.substr(0, h);
      f = inputs::fields(line);
      if (!f.empty()) return true;
    }
    if (in_.bad()) fail(fmt::format("read failed ({})", std::strerror(errno)));
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(number_, what); }
  [[noreturn]] void fail_at(std::uint64_t line, const std::string& what) const {
    throw UserError(fmt::format("{}:{}: {}", shown(name_, 200), line, what));
  }
  std::uint64_t number() const { return number_; }
  const std::string& name() const { return name_; }

 private:
  std::istream& in_;
  std::string name_, buf_;
  std::uint64_t number_ = 0;
};

std::uint64_t whole(const Lines& in, std::string_view f, const char* what) {
  std::uint64_t v = 0;
  const char* end = f.data() + f.size();
  auto [p, ec] = std::from_chars(f.data(), end, v);
  if (ec != std::errc() || p != end) in.fail(fmt::format("{} '{}' is not a non-negative integer", what, shown(f)));
  return v;
}

double real(const Lines& in, std::string_view f, const char* what) {
  double v = 0;
  const char* end = f.data() + f.size();
  auto [p, ec] = std::from_chars(f.data(), end, v);
  if (ec != std::errc() || p != end || !std::isfinite(v))
    in.fail(fmt::format("{} '{}' is not a finite number", what, shown(f)));
  return v;
}

constexpr std::uint64_t kMaxPoints = 1ull << 26, kMaxTriangles = 1ull << 27;

struct Files {
  std::string node, ele;  // equal: one file with both
};

Files files_of(const std::string& input) {
  auto ends = [&](const char* s) {
    const std::size_t n = std::strlen(s);
    return input.size() > n && input.compare(input.size() - n, n, s) == 0;
  };
  if (ends(".ele")) return {input.substr(0, input.size() - 4) + ".node", input};
  if (ends(".node")) return {input, input.substr(0, input.size() - 5) + ".ele"};
  return {input, input};
}

void open(std::ifstream& f, const std::string& path) {
  f.open(path, std::ios::binary);
  if (!f) throw UserError(fmt::format("{}: cannot open: {}", shown(path, 200), std::strerror(errno)));
}

// Line numbers of the points and triangles, for messages.
struct Where {
  std::vector<std::uint64_t> point_line, tri_line;
  std::uint64_t tri_base = 1;  // the .ele's first triangle number
};

void read_nodes(Lines& in, Mesh& m, Where& w) {
  std::vector<std::string_view> f;
  if (!in.next(f)) in.fail("no .node header (points 2 attributes markers)");
  if (f.size() != 4)
    in.fail(fmt::format("the .node header has {} fields, not 4 (points 2 attributes markers)", f.size()));
  const auto n = whole(in, f[0], "point count");
  const auto dim = whole(in, f[1], "dimension");
  const auto attrs = whole(in, f[2], "attribute count");
  const auto markers = whole(in, f[3], "boundary marker count");
  if (n == 0) in.fail("no points");
  if (n > kMaxPoints) in.fail(fmt::format("{} points is more than the reader's limit of {}", n, kMaxPoints));
  if (dim != 2) in.fail(fmt::format("dimension {}, not 2", dim));
  if (attrs > 1000) in.fail(fmt::format("{} attributes per point", attrs));
  if (markers > 1) in.fail(fmt::format("{} boundary markers per point (0 or 1)", markers));
  const auto want = 3 + attrs + markers;
  m.x.reserve(n), m.y.reserve(n), w.point_line.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!in.next(f)) in.fail(fmt::format("the file ends after {} of its {} points", i, n));
    if (f.size() != want)
      in.fail(fmt::format("{} fields, not {} (number x y, {} attributes, {} markers)", f.size(), want, attrs, markers));
    const auto id = whole(in, f[0], "point number");
    if (i == 0) {
      if (id > 1) in.fail(fmt::format("the first point is numbered {}, not 0 or 1", id));
      m.base = static_cast<std::uint32_t>(id);
    } else if (id != m.base + i) {
      in.fail(fmt::format("point number {}, not {} (numbers are consecutive)", id, m.base + i));
    }
    m.x.push_back(real(in, f[1], "x"));
    m.y.push_back(real(in, f[2], "y"));
    for (std::uint64_t a = 0; a < attrs; ++a) real(in, f[3 + a], "attribute");
    if (markers) {
      std::int64_t v = 0;
      const auto mk = f[3 + attrs];
      auto [p, ec] = std::from_chars(mk.data(), mk.data() + mk.size(), v);
      if (ec != std::errc() || p != mk.data() + mk.size())
        in.fail(fmt::format("boundary marker '{}' is not an integer", shown(mk)));
    }
    w.point_line.push_back(in.number());
  }
}

void read_elements(Lines& in, Mesh& m, Where& w) {
  std::vector<std::string_view> f;
  if (!in.next(f)) in.fail("no .ele header (triangles 3 attributes)");
  if (f.size() != 3) in.fail(fmt::format("the .ele header has {} fields, not 3 (triangles 3 attributes)", f.size()));
  const auto n = whole(in, f[0], "triangle count");
  const auto corners = whole(in, f[1], "nodes per triangle");
  const auto attrs = whole(in, f[2], "attribute count");
  if (n == 0) in.fail("no triangles");
  if (n > kMaxTriangles) in.fail(fmt::format("{} triangles is more than the reader's limit of {}", n, kMaxTriangles));
  if (corners != 3) in.fail(fmt::format("{} nodes per triangle: only 3 (linear triangles) are read", corners));
  if (attrs > 1000) in.fail(fmt::format("{} attributes per triangle", attrs));
  const std::uint64_t want = 4 + attrs;
  std::uint64_t first = 0;
  m.tri.reserve(n), w.tri_line.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!in.next(f)) in.fail(fmt::format("the file ends after {} of its {} triangles", i, n));
    if (f.size() != want)
      in.fail(fmt::format("{} fields, not {} (number, 3 nodes, {} attributes)", f.size(), want, attrs));
    const auto id = whole(in, f[0], "triangle number");
    if (i == 0) {
      if (id > 1) in.fail(fmt::format("the first triangle is numbered {}, not 0 or 1", id));
      first = w.tri_base = id;
    } else if (id != first + i) {
      in.fail(fmt::format("triangle number {}, not {} (numbers are consecutive)", id, first + i));
    }
    Tri t{};
    for (int k = 0; k < 3; ++k) {
      const auto v = whole(in, f[1 + k], "node");
      if (v < m.base || v >= m.base + m.points())
        in.fail(fmt::format("node {} is not a point (they are numbered {}..{})", v, m.base, m.base + m.points() - 1));
      t[k] = static_cast<std::uint32_t>(v - m.base);
    }
    for (std::uint64_t a = 0; a < attrs; ++a) real(in, f[4 + a], "attribute");
    const double o = orient(m.x[t[0]], m.y[t[0]], m.x[t[1]], m.y[t[1]], m.x[t[2]], m.y[t[2]]);
    if (!(o != 0))  // also NaN
      in.fail(fmt::format("triangle {} is degenerate: its nodes {} {} {} are collinear or repeated", id, t[0] + m.base,
                          t[1] + m.base, t[2] + m.base));
    if (o < 0) std::swap(t[1], t[2]), ++m.flipped;
    m.tri.push_back(t);
    w.tri_line.push_back(in.number());
  }
}

}  // namespace

// ---- the generator -------------------------------------------------------------------

Mesh random_square(std::uint64_t points, std::uint64_t seed) {
  Rng r{seed};
  struct P {
    double x, y;
    std::uint64_t cell;
  };
  std::vector<P> ps(points);
  const auto g =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(std::sqrt(static_cast<double>(points) / 2))));
  for (auto& p : ps) {
    do p.x = r.unit();
    while (p.x == 0);
    do p.y = r.unit();
    while (p.y == 0);
    p.cell = snake_cell(p.x, p.y, g);
  }
  std::stable_sort(ps.begin(), ps.end(), [](const P& a, const P& b) { return a.cell < b.cell; });
  Mesh m;
  m.origin = fmt::format("square(points={}, seed={})", points, seed);
  m.x = {0, 1, 1, 0}, m.y = {0, 0, 1, 1};
  m.tri = {{0, 1, 2}, {0, 2, 3}};
  m.nbr = {{kNone, 1, kNone}, {kNone, kNone, 0}};
  m.x.reserve(points + 4), m.y.reserve(points + 4);
  Inserter ins(m);
  std::uint32_t hint = 0;
  for (const P& p : ps) {
    m.x.push_back(p.x), m.y.push_back(p.y);
    // A point on an earlier one (1 in 2^50 per pair) is dropped.
    if (!ins.insert(m.points() - 1, hint)) m.x.pop_back(), m.y.pop_back();
  }
  // Triangles in the snake order of their centroids, for locality on the device.
  std::vector<std::uint64_t> key(m.tri.size());
  const auto gt = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(std::sqrt(static_cast<double>(m.tri.size()) / 2))));
  for (std::size_t t = 0; t < m.tri.size(); ++t) {
    const Tri& v = m.tri[t];
    key[t] = snake_cell((m.x[v[0]] + m.x[v[1]] + m.x[v[2]]) / 3, (m.y[v[0]] + m.y[v[1]] + m.y[v[2]]) / 3, gt);
  }
  std::vector<std::uint32_t> order(m.tri.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
  std::vector<Tri> sorted(m.tri.size());
  for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = m.tri[order[i]];
  m.tri = std::move(sorted);
  if (const Problem p = build_neighbours(m)) throw std::logic_error("dmr generator: " + p.what);
  return m;
}

// ---- files ---------------------------------------------------------------------------

Mesh read_triangle(const std::string& input) {
  const Files fs = files_of(input);
  Mesh m;
  Where w;
  std::ifstream nf, ef;
  open(nf, fs.node);
  Lines nodes(nf, fs.node);
  read_nodes(nodes, m, w);
  std::string ele_name = fs.ele;
  if (fs.ele == fs.node) {
    read_elements(nodes, m, w);
    std::vector<std::string_view> f;
    if (nodes.next(f)) nodes.fail(fmt::format("more than the {} triangles of the .ele header", m.triangles()));
    m.origin = fs.node;
  } else {
    open(ef, fs.ele);
    Lines eles(ef, fs.ele);
    read_elements(eles, m, w);
    std::vector<std::string_view> f;
    if (eles.next(f)) eles.fail(fmt::format("more than the {} triangles of the header", m.triangles()));
    if (nodes.next(f)) nodes.fail(fmt::format("more than the {} points of the header", m.points()));
    m.origin = fs.node + " + " + fs.ele;
  }
  auto at_tri = [&](std::uint32_t t, const std::string& what) {
    throw UserError(fmt::format("{}:{}: triangle {}: {}", shown(ele_name, 200), w.tri_line[t], t + w.tri_base, what));
  };
  {
    std::vector<char> used(m.points(), 0);
    for (const Tri& t : m.tri) used[t[0]] = used[t[1]] = used[t[2]] = 1;
    for (std::uint32_t p = 0; p < m.points(); ++p)
      if (!used[p])
        throw UserError(
            fmt::format("{}:{}: point {} is in no triangle", shown(fs.node, 200), w.point_line[p], p + m.base));
  }
  Problem p = build_neighbours(m);
  if (!p) p = check_triangulation(m);
  if (p && p.triangle != kNone) at_tri(p.triangle, p.what);
  if (p) throw UserError(fmt::format("{}: not a triangulation of a convex domain: {}", shown(ele_name, 200), p.what));
  if (const DelaunayCheck d = check_delaunay(m); d.violations)
    at_tri(d.triangle, fmt::format("not Delaunay: point {} ({}:{}) is inside its circumcircle ({} such triangles); dmr "
                                   "refines Delaunay triangulations",
                                   d.point + m.base, shown(fs.node, 200), w.point_line[d.point], d.violations));
  return m;
}

std::uint64_t announced_triangles(const std::string& input) {
  const Files fs = files_of(input);
  std::ifstream f(fs.ele, std::ios::binary);
  if (!f) return 0;
  std::string line;
  std::uint64_t skip = 0;  // a combined file: the .node's header and points come first
  bool in_nodes = fs.ele == fs.node;
  while (std::getline(f, line)) {
    if (const auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream s(line);
    std::uint64_t n = 0;
    if (!(s >> n)) continue;
    if (in_nodes) {
      if (skip == 0) {
        skip = n + 1;  // this header, then n points
      }
      if (--skip == 0) in_nodes = false;
      continue;
    }
    return n;
  }
  return 0;
}

void write_triangle(std::ostream& out, const Mesh& m) {
  out << m.points() << " 2 0 0\n";
  for (std::uint32_t p = 0; p < m.points(); ++p) out << fmt::format("{} {} {}\n", p + m.base, m.x[p], m.y[p]);
  out << m.triangles() << " 3 0\n";
  for (std::uint32_t t = 0; t < m.triangles(); ++t)
    out << fmt::format("{} {} {} {}\n", t + m.base, m.tri[t][0] + m.base, m.tri[t][1] + m.base, m.tri[t][2] + m.base);
}

// ---- checks ------------------------------------------------------------------------

Problem build_neighbours(Mesh& m) {
  std::unordered_map<std::uint64_t, std::uint32_t> edge;  // (a, b) -> 3 t + k
  edge.reserve(3 * m.tri.size());
  auto key = [](std::uint32_t a, std::uint32_t b) { return std::uint64_t{a} << 32 | b; };
  for (std::uint32_t t = 0; t < m.triangles(); ++t)
    for (std::uint32_t k = 0; k < 3; ++k) {
      const std::uint32_t a = m.tri[t][(k + 1) % 3], b = m.tri[t][(k + 2) % 3];
      const auto [it, fresh] = edge.emplace(key(a, b), 3 * t + k);
      if (!fresh)
        return {fmt::format("its edge {}-{} is also in triangle {} the same way round (the triangles overlap)",
                            a + m.base, b + m.base, it->second / 3 + m.base),
                t};
    }
  m.nbr.assign(m.tri.size(), Tri{kNone, kNone, kNone});
  for (std::uint32_t t = 0; t < m.triangles(); ++t)
    for (std::uint32_t k = 0; k < 3; ++k) {
      const std::uint32_t a = m.tri[t][(k + 1) % 3], b = m.tri[t][(k + 2) % 3];
      if (const auto it = edge.find(key(b, a)); it != edge.end()) m.nbr[t][k] = it->second / 3;
    }
  return {};
}

Problem check_triangulation(const Mesh& m, double* area, std::uint32_t* boundary_points) {
  const auto& x = m.x;
  const auto& y = m.y;
  double sum = 0;
  for (std::uint32_t t = 0; t < m.triangles(); ++t) {
    const Tri& v = m.tri[t];
    for (const std::uint32_t p : v)
      if (p >= m.points()) return {fmt::format("node {} is not a point", p + m.base), t};
    const double o = orient(x[v[0]], y[v[0]], x[v[1]], y[v[1]], x[v[2]], y[v[2]]);
    if (!(o > 0)) return {fmt::format("clockwise or degenerate (twice its signed area: {})", o), t};
    sum += o / 2;
  }
  if (area) *area = sum;
  Mesh ref;
  ref.tri = m.tri, ref.base = m.base;
  if (Problem p = build_neighbours(ref)) return p;
  if (m.nbr.size() != m.tri.size())
    return {fmt::format("{} neighbour triples for {} triangles", m.nbr.size(), m.tri.size())};
  for (std::uint32_t t = 0; t < m.triangles(); ++t)
    for (int k = 0; k < 3; ++k)
      if (m.nbr[t][k] != ref.nbr[t][k])
        return {fmt::format("its neighbour across edge {}-{} is {}, its edges say {}", m.tri[t][(k + 1) % 3] + m.base,
                            m.tri[t][(k + 2) % 3] + m.base,
                            m.nbr[t][k] == kNone ? std::string("none") : std::to_string(m.nbr[t][k] + m.base),
                            ref.nbr[t][k] == kNone ? std::string("none") : std::to_string(ref.nbr[t][k] + m.base)),
                t};
  std::vector<char> used(m.points(), 0);
  for (const Tri& t : m.tri) used[t[0]] = used[t[1]] = used[t[2]] = 1;
  for (std::uint32_t p = 0; p < m.points(); ++p)
    if (!used[p]) return {fmt::format("point {} is in no triangle", p + m.base)};
  // The boundary: each point starts at most one boundary edge.
  std::vector<std::uint32_t> next(m.points(), kNone);
  std::uint64_t bedges = 0;
  std::uint32_t start = kNone;
  for (std::uint32_t t = 0; t < m.triangles(); ++t)
    for (int k = 0; k < 3; ++k)
      if (m.nbr[t][k] == kNone) {
        const std::uint32_t a = m.tri[t][(k + 1) % 3], b = m.tri[t][(k + 2) % 3];
        if (next[a] != kNone)
          return {fmt::format("point {} starts two boundary edges (the domain is pinched there)", a + m.base), t};
        next[a] = b, start = a, ++bedges;
      }
  const std::uint64_t edges = (3ull * m.triangles() + bedges) / 2;
  const auto euler = static_cast<std::int64_t>(m.points()) - static_cast<std::int64_t>(edges) + m.triangles();
  if (euler != 1)
    return {fmt::format("V - E + F = {} - {} + {} = {}, not 1 (a disc): holes or several pieces", m.points(), edges,
                        m.triangles(), euler)};
  if (start == kNone) return {"no boundary"};
  std::uint64_t loop = 0;
  double shoelace = 0;
  std::uint32_t a = start;
  do {
    const std::uint32_t b = next[a];
    if (b == kNone) return {fmt::format("the boundary ends at point {}", a + m.base)};
    const std::uint32_t c = next[b];
    if (c == kNone) return {fmt::format("the boundary ends at point {}", b + m.base)};
    const double o = orient(x[a], y[a], x[b], y[b], x[c], y[c]);
    const double lab = std::hypot(x[b] - x[a], y[b] - y[a]), lbc = std::hypot(x[c] - x[b], y[c] - y[b]);
    if (o < -1e-12 * lab * lbc)
      return {fmt::format("the boundary turns clockwise at point {}: the domain is not convex", b + m.base)};
    shoelace += x[a] * y[b] - x[b] * y[a];
    a = b;
    if (++loop > bedges) break;
  } while (a != start);
  if (loop != bedges)
    return {fmt::format("the boundary is more than one loop ({} of its {} edges in the first)", loop, bedges)};
  shoelace /= 2;
  if (!(std::abs(shoelace - sum) <= 1e-9 * std::abs(shoelace)))
    return {fmt::format("the triangles cover {} but the boundary encloses {}", sum, shoelace)};
  if (boundary_points) *boundary_points = static_cast<std::uint32_t>(bedges);
  return {};
}

DelaunayCheck check_delaunay(const Mesh& m) {
  DelaunayCheck r;
  if (m.points() == 0) return r;
  const auto [x0, x1] = std::minmax_element(m.x.begin(), m.x.end());
  const auto [y0, y1] = std::minmax_element(m.y.begin(), m.y.end());
  const double minx = *x0, miny = *y0, w = std::max(*x1 - minx, 1e-300), h = std::max(*y1 - miny, 1e-300);
  const auto g = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(std::sqrt(m.points() / 2.0))));
  const double gd = static_cast<double>(g);
  auto cell = [&](double v, double lo, double span) {
    const double c = std::floor((v - lo) / span * gd);
    return static_cast<std::uint64_t>(std::clamp(c, 0.0, gd - 1));  // also for huge and NaN-free values
  };
  std::vector<std::uint32_t> start(g * g + 1, 0), items(m.points());
  for (std::uint32_t p = 0; p < m.points(); ++p) ++start[cell(m.y[p], miny, h) * g + cell(m.x[p], minx, w) + 1];
  for (std::uint64_t i = 0; i < g * g; ++i) start[i + 1] += start[i];
  {
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::uint32_t p = 0; p < m.points(); ++p) items[fill[cell(m.y[p], miny, h) * g + cell(m.x[p], minx, w)]++] = p;
  }
  for (std::uint32_t t = 0; t < m.triangles(); ++t) {
    const Tri& v = m.tri[t];
    const double ax = m.x[v[0]], ay = m.y[v[0]], bx = m.x[v[1]], by = m.y[v[1]], cx = m.x[v[2]], cy = m.y[v[2]];
    double ox = 0, oy = 0;
    circumcentre(ax, ay, bx, by, cx, cy, ox, oy);
    double rad = std::max({std::hypot(ax - ox, ay - oy), std::hypot(bx - ox, by - oy), std::hypot(cx - ox, cy - oy)});
    std::uint64_t cx0 = 0, cx1 = g - 1, cy0 = 0, cy1 = g - 1;
    if (std::isfinite(ox) && std::isfinite(oy) && std::isfinite(rad)) {
      rad *= 1 + 1e-9;
      cx0 = cell(ox - rad, minx, w), cx1 = cell(ox + rad, minx, w);
      cy0 = cell(oy - rad, miny, h), cy1 = cell(oy + rad, miny, h);
    }
    for (std::uint64_t row = cy0; row <= cy1; ++row)
      for (std::uint64_t col = cx0; col <= cx1; ++col)
        for (std::uint32_t i = start[row * g + col]; i < start[row * g + col + 1]; ++i) {
          const std::uint32_t p = items[i];
          if (p == v[0] || p == v[1] || p == v[2]) continue;
          double perm = 0;
          const double det = incircle(ax, ay, bx, by, cx, cy, m.x[p], m.y[p], &perm);
          if (det > 1e-10 * perm) {
            if (r.violations++ == 0) r.triangle = t, r.point = p;
          }
        }
  }
  return r;
}

}  // namespace fg::mesh
